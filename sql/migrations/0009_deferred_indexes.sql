-- Indexes dropped for a bulk load and owed back (sql/deferred-indexes.ts). A row is
-- written in the transaction that drops its index and deleted in the one that builds
-- it again, so a load that dies half way leaves the row, and the next start rebuilds.
create table deferred_indexes (
  name text primary key,
  definition text not null,
  deferred_at timestamptz not null default now()
);
