-- While jobs has a BEFORE UPDATE row trigger, Postgres computes every stored generated
-- column again on every UPDATE of the table, since such a trigger may change any column:
-- the three tsvectors (title, keywords, company) were rebuilt for each score refresh,
-- each touch of a job seen again and each vector written, whatever they changed. An
-- ingest of 20,000 generated postings took 22 s with the two triggers below and 17 s
-- without them; its re-ingest 11.4 s and 7.9 s.
--
-- expired_at: the statements that change expired set it themselves (sql/postings.ts,
-- sql/expiry.ts), and jobs_expired_at_check refuses any that does not.
drop trigger jobs_expired_at_update on jobs;

-- The stale vector: dropped by an AFTER trigger instead, which updates only the rows
-- whose text fields changed (an edit at the source), in the same statement's transaction.
-- Its own update changes none of the fields it watches, so it does not fire again.
drop trigger jobs_embedding_stale on jobs;
create or replace function jobs_drop_stale_embedding() returns trigger language plpgsql as $$
begin
  update jobs set embedding = null, embedding_model = null where id = new.id and embedding is not null;
  return null;
end
$$;
create trigger jobs_embedding_stale
  after update of job_title, company_id, locations, location_type, remote_countries, skills, technologies, job_categories, description
  on jobs
  for each row
  when ((old.job_title, old.company_id, old.locations, old.location_type, old.remote_countries, old.skills, old.technologies, old.job_categories, old.description)
    is distinct from (new.job_title, new.company_id, new.locations, new.location_type, new.remote_countries, new.skills, new.technologies, new.job_categories, new.description))
  execute function jobs_drop_stale_embedding();
