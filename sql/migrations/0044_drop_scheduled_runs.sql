-- Scheduled runs are sent to pg-boss under a job id derived from the queue and the
-- instant (jobs/schedule.ts), so pg-boss itself keeps each instant to one job: the
-- claims table is no longer read or written.
drop table scheduled_runs;
