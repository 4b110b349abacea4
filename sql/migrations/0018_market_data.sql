-- Market data (docs/market-data.md): the salary benchmark's public_url look-up and the
-- insights' scans.

-- POST /v2/jobs/salary-benchmark finds the posting a public_url names by one of its
-- sources' links (sql/salary-benchmark.ts findPostingByUrl). Hash indexes: only equality
-- is asked, and a link can be longer than a btree entry may be (2,704 bytes).
create index job_sources_application_link_idx on job_sources using hash (application_link);
create index job_sources_job_board_link_idx on job_sources using hash (job_board_link);

-- POST /v2/jobs/insights aggregates every posting a search matches: with few filters,
-- most of the table. A jobs row is about 1.7 kB on its page (descriptions, vectors and
-- text vectors mostly out of line, but not all), so a scan of 100,000 rows reads 170 MB;
-- the columns the counts and salaries need fit in about 120 bytes. With them in this
-- index, a search without selective filters is an index-only scan (sql/insights.ts), and
-- the weekly trend, which counts expired postings too, is a range of it by date.
-- job_categories comes from the fixed category list, so an entry stays far below the
-- btree limit.
create index jobs_insights_idx on jobs (date_posted, id)
  include (expired, company_id, location_type, job_type, experience_level, job_categories, salary_annual_min, salary_annual_max, salary_currency);
