-- jobs_embedding_model_idx (0004) was partial on `not expired`: an index over every live
-- job that the planner took as a cheap way to apply `not expired`, ANDing all of it with
-- a search's own index (EXPLAIN at 1,000,000 postings: 770,000 entries read to keep
-- 115,000 title matches, 60 ms, and a bitmap grown past work_mem into lossy pages).
-- As 0001 says of the btree indexes over every live row, such an index must not be
-- partial, and `expired` must not be one of its columns either (the planner read all
-- of an index on (embedding_model, expired) for the same purpose). Counting the live
-- jobs of a model (sql/embeddings.ts) now reads their rows.
drop index jobs_embedding_model_idx;
create index jobs_embedding_model_idx on jobs (embedding_model);
