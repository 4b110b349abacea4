-- Embeddings: which model made each stored vector, a cache of vectors by the text they
-- embed, and the HNSW index with its build parameters stated. docs/embeddings.md has
-- the design; ingest/embed makes the vectors.

-- Every model that has made a vector here. Vectors of two models live in unrelated
-- spaces, so a query vector is compared only with vectors of its own model
-- (jobs.embedding_model), and `make embed` re-embeds what another model made.
create table embedding_models (
  id integer generated always as identity primary key,
  provider text not null, -- EMBEDDING_PROVIDER: use, transformers or openai
  model_name text not null,
  model_version text not null,
  -- numbers per stored vector: the API's 768 (a smaller model's vectors are zero-padded)
  dim integer not null,
  created_at timestamptz not null default now(),
  constraint embedding_models_key unique (provider, model_name, model_version)
);

-- A model is recorded only with a vector. A vector without one is of an unknown
-- model, which `make embed` replaces.
alter table jobs
  add column embedding_model integer constraint jobs_embedding_model_fkey references embedding_models (id),
  add constraint jobs_embedding_model_check check (embedding_model is null or embedding is not null);
alter table resumes
  add column embedding_model integer constraint resumes_embedding_model_fkey references embedding_models (id),
  add constraint resumes_embedding_model_check check (embedding_model is null or embedding is not null);

-- live vectors per model (storedModels() in sql/embeddings.ts), counted from the index
create index jobs_embedding_model_idx on jobs (embedding_model) where not expired;

-- A job's vector embeds a text made from these fields (ingest/embed/job-text.ts).
-- When an ingest rewrites any of them, the vector no longer describes the job: it is
-- dropped here, in the same statement, and the ingest (or `make embed`) makes the new
-- one. A change to the text's fields needs a migration that changes this list.
create function jobs_drop_stale_embedding() returns trigger language plpgsql as $$
begin
  new.embedding := null;
  new.embedding_model := null;
  return new;
end
$$;
create trigger jobs_embedding_stale
  before update of job_title, company_id, locations, location_type, remote_countries, skills, technologies, job_categories, description
  on jobs
  for each row
  when ((old.job_title, old.company_id, old.locations, old.location_type, old.remote_countries, old.skills, old.technologies, old.job_categories, old.description)
    is distinct from (new.job_title, new.company_id, new.locations, new.location_type, new.remote_countries, new.skills, new.technologies, new.job_categories, new.description))
  execute function jobs_drop_stale_embedding();

-- Vectors by model and the sha256 of the text they embed, so the same text is never
-- embedded twice by one model: an ingest of unchanged text, `make embed` after a
-- failed run, and a job whose text changes back all take their vectors from here.
create table embedding_cache (
  model_id integer not null constraint embedding_cache_model_fkey references embedding_models (id) on delete cascade,
  text_sha256 bytea not null,
  embedding vector(768) not null,
  created_at timestamptz not null default now(),
  constraint embedding_cache_pkey primary key (model_id, text_sha256)
);

-- The job vectors' HNSW index, with its build parameters stated rather than left to
-- pgvector's defaults. Queries must order by cosine distance (`embedding <=> $1`) for
-- it to apply: that is the operator vector_cosine_ops indexes.
--  m = 16: links per node (32 on the bottom layer). pgvector's default; recall at a
--    given ef_search grows little beyond it for text embeddings of a few hundred
--    dimensions, while the index's size and each insert's cost grow with it.
--  ef_construction = 128, twice pgvector's default: the candidate list kept while
--    linking a new vector. A wider one links each vector to truer neighbours, which
--    raises recall at every ef_search the queries use (40, 100, 400). Each insert
--    costs more (1.3 ms instead of 1.0 ms per vector, 2,000 jobs on Postgres 15), next
--    to tens of milliseconds to embed the posting in the first place.
drop index jobs_embedding_idx;
create index jobs_embedding_idx on jobs using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = 128);
