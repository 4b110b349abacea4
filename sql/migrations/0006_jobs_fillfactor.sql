-- Scores (compensation_value_score's percentile, coolness) are rewritten over many
-- rows after each ingest and expiry. With free room on each page such an update can
-- stay on its page and skip every index (a HOT update), the HNSW index above all,
-- where a new row version would otherwise cost an index insertion each.
alter table jobs set (fillfactor = 80);
