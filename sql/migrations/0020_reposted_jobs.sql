-- Re-posted jobs (docs/ingest.md, "Re-posted jobs"): a posting listed again after its
-- period ended is a new job, so a duplicate group (md5_hash) holds one live job at most
-- and one expired job per past period. md5_hash is unique among live jobs only.
alter table jobs drop constraint jobs_md5_hash_key;
create unique index jobs_md5_hash_live_key on jobs (md5_hash) where not expired;
-- every period of a group, for ingest's lookup and the vector queue's (sql/embeddings.ts)
create index jobs_md5_hash_idx on jobs (md5_hash);
