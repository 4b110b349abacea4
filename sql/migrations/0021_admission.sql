-- Admission in one statement (docs/metering.md). A request's key, rate-limit windows and
-- meter reservation are taken by one statement and its charge settled by another
-- (sql/meters.ts), so no API process keeps leases, polls an epoch or writes heartbeats.
-- What this removes held no billed units: a lease held units reserved or free, never
-- charged ones (those moved to usage_meters.used and the ledger at each flush, which
-- stay as they are). Charges a process of the previous version has settled but not
-- flushed exist only in its memory; it flushes them when it stops, so it must stop
-- first, and this migration refuses to run while one still says it is alive.
do $$
begin
  if exists (select 1 from api_processes where seen_at > now() - interval '10 seconds') then
    raise exception 'API processes of the previous version are still running (api_processes): stop them, so that they record what they charged, then migrate';
  end if;
end $$;

drop function meter_grant(uuid, int, uuid[], text[], timestamptz[], timestamptz[], text[], bigint[], bigint[], bigint[]);
drop function meter_flush(uuid, int, uuid[], text[], timestamptz[], bigint[], bigint[], int[], text[], int[], bigint[], bigint[], text[]);
drop table meter_leases;
drop table api_processes;
drop trigger accounts_billing_epoch on accounts;
drop trigger api_keys_billing_epoch on api_keys;
drop trigger account_allowances_billing_epoch on account_allowances;
drop trigger plan_meters_billing_epoch on plan_meters;
drop function bump_billing_epoch();
drop sequence billing_epoch;

-- Units that requests in flight hold on the row: the sum of its meter_reservations,
-- kept on the row itself because the row's lock is what makes a block-mode check and
-- the reservation one atomic step. A check that summed meter_reservations instead
-- would read them as of its statement's start, without those committed while it
-- waited for the lock.
alter table usage_meters
  add column reserved bigint not null default 0 constraint usage_meters_reserved_check check (reserved >= 0);

-- One row per request in flight on a metered route: its reservation, deleted by the
-- statement that settles it. A reservation whose request never settles (its process
-- died) lapses at expires_at, and the next reservation on the meter row gives its
-- units back. The lapse is far beyond any request's time: a request still running
-- then is charged when it settles all the same, only no longer held against the cap.
create table meter_reservations (
  id bigint generated always as identity primary key,
  account_id uuid not null,
  meter text not null,
  period_start timestamptz not null,
  units bigint not null constraint meter_reservations_units_check check (units > 0),
  expires_at timestamptz not null,
  constraint meter_reservations_meter_fkey foreign key (account_id, meter, period_start)
    references usage_meters (account_id, meter, period_start) on delete cascade
);
create index meter_reservations_meter_idx on meter_reservations (account_id, meter, period_start, expires_at);

comment on table usage_ledger is 'append-only; each charge row written since migration 0021 covers one request (earlier rows, from batched flushes, may list many)';
