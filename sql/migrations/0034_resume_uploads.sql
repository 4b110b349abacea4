-- Uploads of stored resumes in progress (ingest/resume/store.ts). The row is written
-- before the file is stored and removed in the transaction that inserts the resume,
-- so a crash between the two steps leaves a row here, never a file nobody knows of.
-- The sweep claims rows older than its grace period (swept_at), deletes their files,
-- then the rows; an upload whose row was claimed gives up and deletes its own file.
create table resume_uploads (
  id uuid primary key,
  file_key text not null,
  created_at timestamptz not null default now(),
  swept_at timestamptz
);
create index resume_uploads_created_idx on resume_uploads (created_at);
