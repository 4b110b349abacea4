-- Saved searches and their webhooks (docs/webhooks.md).
--
-- A saved search keeps the client's filters as given (filters) and as the search code
-- compiles them (compiled: sql/search.ts SearchFilters), so matching runs the same
-- whereClause as POST /v2/jobs/search without an api/ import. A vsearch search also
-- keeps its query's vector and model; matching compares with `<=>`, cosine distance, as
-- vector search does.
--
-- The secret signs deliveries (HMAC), so it is stored as it is; previous_secret signs
-- too until previous_secret_until, the 24 hours after a rotation.
create table saved_searches (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  name text not null,
  kind text not null constraint saved_searches_kind_check check (kind in ('search', 'vsearch')),
  filters jsonb not null,
  compiled jsonb not null,
  events text[] not null,
  status text not null default 'active' constraint saved_searches_status_check check (status in ('active', 'paused', 'disabled')),
  webhook_url text not null,
  secret text not null,
  previous_secret text,
  previous_secret_until timestamptz,
  query_vector vector(768),
  embedding_model integer,
  min_similarity real,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_delivery_at timestamptz,
  failing_since timestamptz,
  disabled_reason text
);
create index saved_searches_account_idx on saved_searches (account_id, created_at desc, id desc);

-- Work for the matcher, written in the transaction that makes it true: the jobs an
-- ingest batch inserted (job.new), an expiry run expired (job.expired), a vector write
-- embedded (job.vector). The matcher deletes a row in the transaction that records its
-- events, so a crash in between leaves the row to match again.
create table saved_search_inbox (
  id bigint generated always as identity primary key,
  type text not null constraint saved_search_inbox_type_check check (type in ('job.new', 'job.expired', 'job.vector')),
  job_ids bigint[] not null,
  created_at timestamptz not null default now()
);

-- Each job a search matched, once per event type: a job whose vector is written again,
-- or an inbox row matched twice, produces no second event.
create table saved_search_matches (
  saved_search_id uuid not null references saved_searches (id) on delete cascade,
  type text not null,
  job_id bigint not null,
  created_at timestamptz not null default now(),
  constraint saved_search_matches_pkey primary key (saved_search_id, type, job_id)
);

-- An event is up to 100 jobs of one search, delivered in id order, one at a time per
-- search. lease_until marks a delivery in flight: a worker that dies leaves it to lapse,
-- and another worker delivers the event again.
create table webhook_events (
  id bigint generated always as identity primary key,
  saved_search_id uuid not null references saved_searches (id) on delete cascade,
  account_id uuid not null references accounts (id) on delete cascade,
  type text not null constraint webhook_events_type_check check (type in ('job.new', 'job.expired')),
  job_ids bigint[] not null,
  status text not null default 'pending' constraint webhook_events_status_check check (status in ('pending', 'held_quota', 'delivered', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  lease_until timestamptz,
  created_at timestamptz not null default now(),
  delivered_at timestamptz,
  charged boolean not null default false
);
-- the head of each search's queue: its oldest event not yet delivered or given up
create index webhook_events_queue_idx on webhook_events (saved_search_id, id) where status in ('pending', 'held_quota');
create index webhook_events_account_idx on webhook_events (account_id, id desc);
create index webhook_events_created_idx on webhook_events (created_at);

create table webhook_attempts (
  id bigint generated always as identity primary key,
  event_id bigint not null references webhook_events (id) on delete cascade,
  attempted_at timestamptz not null default now(),
  status_code integer,
  error text,
  duration_ms integer not null
);
create index webhook_attempts_event_idx on webhook_attempts (event_id, id);
