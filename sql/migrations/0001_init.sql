-- The service's schema: companies, jobs with their locations and sources, the
-- historical archive of expired jobs, accounts and API keys, tasks and resumes.

create extension if not exists vector;
create extension if not exists pg_trgm;
create extension if not exists cube;
create extension if not exists earthdistance;

-- array_to_string is only stable (it calls type output functions), which generated
-- columns refuse; for text[] it cannot vary, so this wrapper may say immutable.
create function words(text[]) returns text
  language sql immutable parallel safe
  return array_to_string($1, ' ');

create table companies (
  id bigint generated always as identity primary key,
  slug text not null constraint companies_slug_key unique,
  name text not null,
  logo text,
  link text,
  linkedin_link text,
  description_summary text,
  services text[] not null default '{}',
  size_min integer,
  size_max integer,
  size_bucket text constraint companies_size_bucket_check
    check (size_bucket in ('1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000', '5001-10000', '10000+')),
  industries text[] not null default '{}',
  subindustries text[] not null default '{}',
  type text,
  is_recruiting_agency boolean not null default false,
  job_board text,
  -- name, then what the company does: what company_keywords and company search match
  search_tsv tsvector generated always as (
    setweight(to_tsvector('english', coalesce(name, '')), 'A') ||
    setweight(to_tsvector('english', coalesce(description_summary, '') || ' ' || words(services)), 'B')
  ) stored,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index companies_name_lower_idx on companies (lower(name));
create index companies_name_trgm_idx on companies using gin (name gin_trgm_ops);
create index companies_industries_idx on companies using gin (industries);
create index companies_subindustries_idx on companies using gin (subindustries);
create index companies_size_bucket_idx on companies (size_bucket);
create index companies_search_tsv_idx on companies using gin (search_tsv);

-- Each board we ingest from, with the time of its latest ingest: a posting that this
-- board's latest ingest has not seen for EXPIRE_AFTER_DAYS is gone from the board.
create table job_boards (
  name text primary key,
  last_ingest_at timestamptz not null default now()
);

create table jobs (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id),
  job_slug text not null constraint jobs_job_slug_key unique,
  -- over normalized company, title, location and description: the duplicate group
  md5_hash text not null constraint jobs_md5_hash_key unique,
  -- the source whose posting the job shows (its board is job_board); other sources
  -- in the duplicate group only add links
  source_key text not null,
  job_title text not null,
  job_title_raw text not null,
  description text not null,
  description_raw text not null,
  location_raw text,
  -- [{city, region, country, coordinates: {lat, lng}}], as served; job_locations indexes them
  locations jsonb not null default '[]',
  location_type text constraint jobs_location_type_check check (location_type in ('Remote', 'Hybrid', 'In-Person')),
  remote_countries text[] not null default '{}',
  -- "c:germany", "r:germany|bavaria", "t:germany|bavaria|munich" (ingest/transform/place-keys.ts)
  place_keys text[] not null default '{}',
  job_type text constraint jobs_job_type_check
    check (job_type in ('Full Time', 'Part Time', 'Contract / Temporary', 'Internship')),
  -- salary as stated, and annualized with the constants in ingest (hourly x2080 ...)
  salary_min numeric,
  salary_max numeric,
  salary_currency text,
  salary_period text constraint jobs_salary_period_check
    check (salary_period in ('hourly', 'daily', 'weekly', 'monthly', 'yearly')),
  salary_annual_min numeric,
  salary_annual_max numeric,
  yoe_min numeric,
  yoe_max numeric,
  experience_level text constraint jobs_experience_level_check
    check (experience_level in ('Entry', 'Junior', 'Mid', 'Senior', 'Executive')),
  education_level text,
  language text,
  team text,
  requirements_summary text,
  job_categories text[] not null default '{}',
  skills text[] not null default '{}',
  technologies text[] not null default '{}',
  benefits text[] not null default '{}',
  visa_sponsored boolean,
  recruiter_agency boolean not null default false,
  offers_equity boolean,
  date_posted date not null,
  job_board text not null,
  job_board_link text,
  application_link text,
  platform_job_id text,
  contact_email text,
  contact_phone text,
  coolness_score real,
  flexibility_score real,
  compensation_value_score real,
  benefits_score real,
  impact_autonomy_score real,
  prestige_score real,
  growth_score real,
  meta_completeness boolean not null default false,
  meta_targetability real,
  -- Three vectors, so no query ever reads a description's (TOASTed) vector just to
  -- check a weight or to rank: job_titles match title_tsv, keywords match
  -- keywords_tsv (skills, technologies, benefits, description), and relevance ranks
  -- on the small rank_tsv, title (A) > skills and technologies (B) > benefits (C);
  -- a match in the description alone ranks 0 and recency decides. The default
  -- parser reads HTML tags as 'tag' tokens, which the english config drops.
  title_tsv tsvector generated always as (to_tsvector('english', job_title)) stored,
  keywords_tsv tsvector generated always as (
    to_tsvector('english', words(skills || technologies || benefits) || ' ' || description)
  ) stored,
  rank_tsv tsvector generated always as (
    setweight(to_tsvector('english', job_title), 'A') ||
    setweight(to_tsvector('english', words(skills || technologies)), 'B') ||
    setweight(to_tsvector('english', words(benefits)), 'C')
  ) stored,
  embedding vector(768),
  first_seen_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  valid_through timestamptz,
  expired boolean not null default false,
  date_expired date,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- Descriptions (and their vector) go to TOAST even when they compress small, so a
-- heap row holds only what filters and sorts read: searches touch thousands of rows.
-- What filters and ranking read for every candidate stays in the row (storage main):
-- the title and rank vectors, the categories and the place keys.
alter table jobs set (toast_tuple_target = 256);
alter table jobs
  alter column title_tsv set storage main,
  alter column rank_tsv set storage main,
  alter column job_categories set storage main,
  alter column place_keys set storage main;

-- Most reads want live jobs only, so the btree filter indexes are partial on that.
-- The GIN ones are not: a partial GIN index invites the planner to scan all of it
-- just to apply "not expired".
create index jobs_company_idx on jobs (company_id, date_posted desc, id desc);
create index jobs_date_posted_idx on jobs (date_posted desc, id desc) where not expired;
create index jobs_title_tsv_idx on jobs using gin (title_tsv);
create index jobs_keywords_tsv_idx on jobs using gin (keywords_tsv);
create index jobs_categories_idx on jobs using gin (job_categories);
create index jobs_place_keys_idx on jobs using gin (place_keys);
create index jobs_location_type_idx on jobs (location_type, date_posted desc, id desc) where not expired;
create index jobs_job_type_idx on jobs (job_type, date_posted desc, id desc) where not expired;
create index jobs_experience_idx on jobs (experience_level, date_posted desc, id desc) where not expired;
-- the salary filter's and sort's expression (sql/search.ts)
create index jobs_salary_sort_idx on jobs ((coalesce(salary_annual_max, salary_annual_min)) desc nulls last, id desc) where not expired;
create index jobs_yoe_idx on jobs (yoe_min, yoe_max) where not expired;
create index jobs_job_board_idx on jobs (job_board, date_posted desc, id desc) where not expired;
create index jobs_visa_idx on jobs (date_posted desc, id desc) where not expired and visa_sponsored;
create index jobs_expired_idx on jobs (date_expired desc, id) where expired;
-- not partial: a partial index over every live row tempts the planner to bitmap-scan
-- all of it just to apply "not expired"
create index jobs_valid_through_idx on jobs (valid_through);
-- cosine distance (<=>) must be what queries use for this index to apply
create index jobs_embedding_idx on jobs using hnsw (embedding vector_cosine_ops);

create table job_locations (
  job_id bigint not null references jobs (id) on delete cascade,
  position smallint not null,
  city text,
  region text,
  country text,
  lat double precision,
  lng double precision,
  primary key (job_id, position)
);
-- strict filters use jobs.place_keys; this serves the rest (a city without its region)
create index job_locations_city_idx on job_locations (lower(city));
-- radius and box filters narrow by lat/lng first, then check earth_distance
create index job_locations_latlng_idx on job_locations (lat, lng);

-- Every board a posting was seen on: a duplicate from another board joins the group
-- here instead of becoming a second job.
create table job_sources (
  job_id bigint not null references jobs (id) on delete cascade,
  job_board text not null,
  source_key text not null, -- the board's own id, or the md5 when it gives none
  -- over every ingested field: a re-ingest that changes nothing only touches last_seen_at
  content_hash text not null,
  job_board_link text,
  application_link text,
  first_seen_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  constraint job_sources_pkey primary key (job_board, source_key)
);
create index job_sources_job_idx on job_sources (job_id);

-- Expired postings, kept for historical search after the live row moves on.
create table job_archive (
  job_id bigint primary key,
  job_title text not null,
  company_name text not null,
  company_slug text not null,
  locations jsonb not null default '[]',
  countries text[] not null default '{}',
  date_posted date not null,
  date_expired date not null,
  skills text[] not null default '{}',
  technologies text[] not null default '{}',
  benefits text[] not null default '{}',
  description_kept boolean not null,
  description text,
  title_tsv tsvector generated always as (to_tsvector('english', job_title)) stored,
  archived_at timestamptz not null default now()
);
create index job_archive_title_tsv_idx on job_archive using gin (title_tsv);
create index job_archive_company_idx on job_archive (company_slug);
create index job_archive_date_posted_idx on job_archive (date_posted);
create index job_archive_date_expired_idx on job_archive (date_expired);
create index job_archive_countries_idx on job_archive using gin (countries);

create table ingest_runs (
  id bigint generated always as identity primary key,
  source text not null,
  started_at timestamptz not null default now(),
  finished_at timestamptz,
  read integer not null default 0,
  inserted integer not null default 0,
  updated integer not null default 0,
  duplicates integer not null default 0,
  rejected integer not null default 0
);

create table accounts (
  id uuid primary key default gen_random_uuid(),
  email text not null constraint accounts_email_key unique,
  plan text not null constraint accounts_plan_check
    check (plan in ('free', 'starter', 'growth', 'scale', 'pro', 'enterprise', 'legacy')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Keys are stored only as a SHA-256 of the key: they are 192-bit random, so a fast
-- hash is as safe as a slow one and keeps authentication to one index lookup.
create table api_keys (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  key_hash text not null constraint api_keys_key_hash_key unique,
  prefix text not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  last_used_at timestamptz
);
create index api_keys_account_idx on api_keys (account_id);

create table tasks (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  type text not null constraint tasks_type_check
    check (type in ('export_job_data', 'export_expired_jobs', 'salary_benchmark')),
  state text not null default 'queued' constraint tasks_state_check
    check (state in ('queued', 'processing', 'finished', 'failed')),
  progress real not null default 0,
  priority integer not null default 0,
  input jsonb not null default '{}',
  result jsonb,
  error text,
  worker_id text,
  notify boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  started_at timestamptz,
  completed_at timestamptz
);
create index tasks_account_idx on tasks (account_id, created_at desc);

create table resumes (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  resume_url text not null,
  file_key text not null,
  content_type text,
  parsed_data jsonb,
  status text not null default 'uploaded' constraint resumes_status_check check (status in ('uploaded', 'parsed')),
  embedding vector(768),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index resumes_account_idx on resumes (account_id, created_at desc);
