-- The jobs each user of an account has fetched by id (GET /v2/jobs/{job_id}), which
-- neural-search's hide_seen_jobs leaves out. user_id is the account's own name for
-- one of its users (the user_id query parameter of that GET), or the account id when
-- the request names none. Only the first view is kept: a repeated view writes nothing.
create table job_views (
  account_id uuid not null references accounts (id) on delete cascade,
  user_id text not null,
  job_id bigint not null references jobs (id) on delete cascade,
  viewed_at timestamptz not null default now(),
  -- the hide_seen_jobs anti-join looks up (account, user, job) for each candidate
  constraint job_views_pkey primary key (account_id, user_id, job_id)
);
-- a job's views, for the cascade when the job is deleted
create index job_views_job_idx on job_views (job_id);
