-- A narrow index of the live jobs' dates, beside jobs_date_posted_idx (0027), which
-- carries each job's title vector for title searches in date order. Its entries are
-- about five times smaller, so a filter that reads dates without titles reads a fifth
-- of the pages: a date range turned into a bitmap ("machine learning" in the last 30
-- days, 260,000 entries at 1,000,000 postings: 4,744 pages of the wide index), or a
-- walk newest first that checks each job's row for other filters. At 1,000,000
-- postings the keywords phrase of the last 30 days went from 368-390 to 222 ms over
-- HTTP, country + category from 55-61 to 21 ms (docs/performance.md).
create index jobs_posted_idx on jobs (date_posted desc, id desc) where not expired;
