-- jobs_yoe_idx (0001) was a btree on (yoe_min, yoe_max), partial on `not expired`. No
-- search can use it for what it holds: the `yoe` filter compares coalesce(yoe_max,
-- yoe_min) and coalesce(yoe_min, yoe_max) with the range (a job that states one bound),
-- and sort_by yoe orders by coalesce(yoe_min, yoe_max). The planner took it for the
-- other thing it offers, the list of every live job, and ANDed all of it into searches
-- to apply `not expired` (EXPLAIN: 76,717 entries read to keep 9,738 jobs of two
-- categories in a vector search at 100,000 postings; "yoe range" and "title with
-- exclusion" in the search bench), as 0024 found of jobs_embedding_model_idx.
drop index jobs_yoe_idx;
