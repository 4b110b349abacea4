-- The expired-jobs feed (sql/expired-feed.ts, docs/expired-jobs.md) orders jobs by when
-- this service marked them expired. date_expired cannot serve: it is clamped to
-- valid_through, so a job marked expired today may carry last week's date, and a client
-- polling with since=<its last poll> would never see it.
alter table jobs add column expired_at timestamptz;

-- Jobs expired before this column existed: the start (UTC) of their date_expired, the
-- closest this database knows.
update jobs set expired_at = coalesce(date_expired::timestamp at time zone 'UTC', updated_at)
where expired;

-- Several writers move `expired`: the expiry run (markExpired in sql/expiry.ts, which
-- sets expired_at to its run's time itself), and ingest, which inserts a posting that
-- is already past valid_through as expired, rewrites a changed posting (expired either
-- way) and brings back a job its board lists again (touchJobs). Rather than each of
-- them keeping expired_at in step, these triggers do: a job that becomes expired gets
-- now() unless the statement gave expired_at, and a job that becomes live again loses
-- it, and so leaves the feed. The WHEN clauses keep the function off the rows whose
-- expired did not change, which are nearly all of an ingest's touches.
create function jobs_stamp_expired_at() returns trigger language plpgsql as $$
begin
  new.expired_at := case when new.expired then coalesce(new.expired_at, now()) end;
  return new;
end
$$;
create trigger jobs_expired_at_insert
  before insert on jobs
  for each row when (new.expired)
  execute function jobs_stamp_expired_at();
create trigger jobs_expired_at_update
  before update of expired on jobs
  for each row when (old.expired is distinct from new.expired)
  execute function jobs_stamp_expired_at();

alter table jobs add constraint jobs_expired_at_check check (expired = (expired_at is not null));

-- The feed's scan: where expired and expired_at >= $since order by expired_at desc, id desc.
-- id breaks the ties (a run stamps all its jobs with one time), so pages are stable; and
-- being in the index, it lets a deep offset be skipped without reading the rows.
create index jobs_expired_at_idx on jobs (expired_at desc, id desc) where expired;
