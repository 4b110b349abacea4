-- Each job vector's signs, one bit per number (pgvector's binary_quantize): 96 bytes in
-- the row, beside the vector's 3 KB in TOAST. Vector search ranks the jobs that pass a
-- filter by the Hamming distance of these bits when the HNSW index serves that filter
-- badly (the matches lie away from the query), and re-ranks the best few hundred by
-- their exact cosine distance, so such a search reads a few hundred vectors from TOAST
-- rather than every match's (sql/vector-search.ts, docs/vector-search.md, Plans).
--
-- Generated, so every write of a vector writes its bits; without a BEFORE UPDATE
-- trigger on jobs (0012), Postgres computes them only when the vector changes. Storage
-- main keeps them in the row despite toast_tuple_target (0001): such a value leaves
-- the row only when the row would not fit a page. Both in one statement, so the one
-- rewrite of the table (and of its indexes) this costs already stores them in the row.
alter table jobs
  add column embedding_bits bit(768) generated always as (binary_quantize(embedding)::bit(768)) stored,
  alter column embedding_bits set storage main;

-- vsearch's job_title (the title exactly, case aside): a filter that keeps a handful of
-- jobs, which without an index cost a read of every live row. Not partial: an index
-- over every live row is one the planner ANDs into other searches to apply
-- `not expired` (0001, 0024).
create index jobs_title_lower_idx on jobs (lower(job_title));
