-- The date index (0001) carries each live job's title vector, so that the newest title
-- matches are found in the index alone: a search by title sorted by date, or relevance's
-- window of the newest matches (sql/search.ts, rankedIds), walks the dates newest first
-- and tests each entry's title, where it read each job's row to test it. "nurse OR
-- pharmacist OR physician" at 1,000,000 postings read 47,000 rows for its 1,000 newest
-- matches (215-323 ms); from the index, 27 ms, no row read (docs/performance.md).
--
-- company_id is not carried as well: with it, counting the jobs of companies that match
-- company_keywords walked this index and looked up each job's company, reading the
-- company's TOASTed words (430 ms, against 50 ms from the companies' side).
--
-- An index entry has a size limit, so titles are bounded (ingest/transform/clean-title.ts,
-- MAX_TITLE, 200 characters); the longer ones stored before it are cut here.
update jobs set job_title = left(job_title, 199) || '…' where length(job_title) > 200;
drop index jobs_date_posted_idx;
create index jobs_date_posted_idx on jobs (date_posted desc, id desc) include (title_tsv) where not expired;
