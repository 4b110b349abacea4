-- Every count an ingest run's summary prints is kept with the run (ingest/pipeline.ts):
-- postings seen again unchanged, and postings already past valid_through when they
-- arrived, which were stored as expired.
alter table ingest_runs add column unchanged integer not null default 0;
alter table ingest_runs add column expired_on_arrival integer not null default 0;
