-- When each job's vector was written: the background embedding's rate (admin
-- embeddings:status) is the vectors written in the last minutes. A vector dropped as
-- stale keeps its old time until the new one is written.
alter table jobs add column embedded_at timestamptz;
