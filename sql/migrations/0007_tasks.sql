-- Tasks run on pg-boss (jobs/tasks.ts, docs/tasks.md). A task's row is its public
-- state; pg-boss only carries {task_id} and retries an attempt whose worker died.

-- Each pickup of the task is an attempt; only the attempt that holds the row may move
-- it on, so a worker that outlived its expiry cannot finish a task a second time.
alter table tasks add column attempt integer not null default 0;

-- What creating the task charged (the export's units), and what its failure refunded:
-- refunded_units is written once, in the transaction that marks the task failed.
alter table tasks add column charged_meter text;
alter table tasks add column charged_units integer not null default 0;
alter table tasks add column charged_period_start timestamptz;
alter table tasks add column refunded_units integer;

-- The finished file: where it is kept (file_key in the file store), until when it is
-- served, and when the cleanup job deleted it.
alter table tasks add column file_key text;
alter table tasks add column file_expires_at timestamptz;
alter table tasks add column file_deleted_at timestamptz;

-- the notification, once sent (or written to the outbox)
alter table tasks add column notified_at timestamptz;

-- the cleanup job's scan: finished files past their expiry and not yet deleted
create index tasks_file_expiry_idx on tasks (file_expires_at) where file_key is not null and file_deleted_at is null;

-- Secrets the service generates for itself once and every process shares, such as
-- the key download links are signed with (when DOWNLOAD_SIGNING_SECRET is unset).
create table service_secrets (
  name text primary key,
  value text not null,
  created_at timestamptz not null default now()
);
