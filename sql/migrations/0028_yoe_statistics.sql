-- The yoe filter compares coalesce(yoe_max, yoe_min) and coalesce(yoe_min, yoe_max)
-- with the range (a job may state one bound; sql/search.ts, rangeOverlap). Postgres keeps
-- no statistics of an expression without an index or these, and guessed a third for each
-- comparison: 6,100 of 69,000 "analyst" titles at 1,000,000 postings for yoe 2 to 5,
-- where 40,913 have it. On that guess it read every title match and sorted them by date
-- (420-470 ms) rather than walking the date index to the newest 1,000 (docs/performance.md).
create statistics jobs_yoe_range_stats on (coalesce(yoe_max, yoe_min)), (coalesce(yoe_min, yoe_max)) from jobs;
analyze jobs;
