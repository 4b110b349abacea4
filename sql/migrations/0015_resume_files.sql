-- Stored resumes (POST /v2/resumes): the file's name and size as uploaded, and why
-- reading it failed when it did. A resume whose file cannot be read stays `uploaded`
-- with parse_error set, rather than a failed state the spec does not have.
alter table resumes
  add column file_name text,
  add column file_size integer,
  add column parse_error text,
  add column parsed_at timestamptz;
