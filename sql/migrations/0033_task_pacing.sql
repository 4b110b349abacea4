-- How an export gives way to the API (jobs/pace.ts): whether it rests between batches
-- now, what for, and its steps and rests so far; written with the task's progress and
-- shown as the task's `pacing`. Null for tasks that do not pace.
alter table tasks add column pacing jsonb;
