-- Every running API process, and the billing_epoch value whose changes it has applied
-- (cached keys dropped, leases to be granted again). An admin command that revokes a
-- key or changes an account, plan or allowance moves the epoch once its change has
-- committed and waits until every live process has applied it (sql/api-processes.ts),
-- so the change holds for every request sent after the command returns.
create table api_processes (
  id uuid primary key,
  epoch bigint not null,
  -- written whenever the process applies a new epoch and at least once a second
  -- otherwise; a process silent for longer than the liveness window is taken for dead
  -- (and, unable to reach the database, it has stopped trusting its caches by then)
  seen_at timestamptz not null default now(),
  started_at timestamptz not null default now()
);

-- Scheduled runs (expiry, period roll-over) fire in every API process; the first to
-- claim a scheduled instant here enqueues its job, in the same transaction, so each
-- instant runs once however many processes serve the database.
create table scheduled_runs (
  queue text not null,
  -- the instant the schedule named (node-cron's, not when a process got to it)
  scheduled_at timestamptz not null,
  claimed_at timestamptz not null default now(),
  constraint scheduled_runs_pkey primary key (queue, scheduled_at)
);
