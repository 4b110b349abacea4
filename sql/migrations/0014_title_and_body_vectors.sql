-- A job's vector is now the normalized sum of the vectors of its title and of a short
-- body (ingest/embed/job-text.ts) instead of one vector of the whole posting: short
-- queries find the jobs they name far more often (docs/vector-search.md, Relevance).
-- The old vectors go; every process with an embedding model queues the live jobs that
-- lack a vector when it starts with an empty queue (jobs/embed-vectors.ts), and the
-- background embedding writes the new ones. Until then vector search finds the jobs
-- already re-embedded, and its meta.jobs_without_vector says how many are waiting.
update jobs set embedding = null, embedding_model = null where embedding is not null or embedding_model is not null;
