-- Keys that customers manage themselves (GET/POST/DELETE /v2/keys): a name to tell them
-- apart. Keys made before, and by the admin CLI, have none. last_used_at (0001) is
-- written at most once a minute per key and process (api/middleware/key-use.ts).
alter table api_keys add column name text;
alter table api_keys add constraint api_keys_name_length check (char_length(name) <= 100);
