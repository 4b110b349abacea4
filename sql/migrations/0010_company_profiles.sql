-- Company profiles ingested on their own (make ingest-companies; ingest/companies.ts):
-- what a profile says beyond what postings carry. Postings never clear these.
alter table companies add column careers_url text;
alter table companies add column technologies text[] not null default '{}';
-- as the source words it: fully-remote, remote-first, remote-friendly, hybrid, …
alter table companies add column remote_policy text;
-- where the company hires, as the source words it (worldwide, americas, europe, …)
alter table companies add column hiring_region text;
alter table companies add column profile_updated_at timestamptz;
