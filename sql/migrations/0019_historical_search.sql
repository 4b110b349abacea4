-- Historical search and export (sql/historical.ts; docs/market-data.md, "How historical
-- search stays fast").
--
-- job_archive rows are wide (about 700 bytes before the description: places as JSON,
-- skills, technologies, benefits), and a search aggregates every match: the postings of
-- a country can be most of the archive. So each archived row is also kept as one narrow
-- row of job_archive_facts (about 100 bytes): its dates, whether it kept a description,
-- and integer references to four dictionaries of the values postings share (companies,
-- titles, place sets, keyword terms). Every filter resolves to dictionary ids first (a
-- title query is matched against the distinct titles, a place against the distinct
-- place sets), then one scan of the facts counts, groups by year and company, and
-- samples. A statement-level trigger keeps the facts in step with job_archive, whoever
-- writes it (expiry, ingest of postings that arrive expired, a bulk load).
--
-- The widest searches are a country or a group of countries, alone or with a company:
-- "the United States" is about 60 % of the archive. For those the counts are read from
-- job_archive_counts instead, postings per (year posted, company, set of countries),
-- kept by the same trigger: tens of thousands of rows for a country rather than
-- hundreds of thousands of facts. Keyed by the posting's whole set of countries, so a
-- posting open to two countries of a group still counts once.

-- The places of the live row (c:…, r:…, t:…; a country key also for remote postings
-- open to it: seeds/places/place-keys.ts), so a place is the same filter over the archive
-- as over live jobs.
alter table job_archive add column place_keys text[] not null default '{}';

-- A row archived without place keys takes its job's; one archived with them (a bulk
-- load) keeps its own. Before the insert, so the statement trigger below sees them.
create function job_archive_place_keys() returns trigger language plpgsql as $$
begin
  if new.place_keys = '{}' then
    new.place_keys := coalesce((select j.place_keys from jobs j where j.id = new.job_id), '{}');
  end if;
  return new;
end
$$;
create trigger job_archive_place_keys before insert on job_archive
  for each row execute function job_archive_place_keys();

create table job_archive_companies (
  id integer generated always as identity primary key,
  company_name text not null,
  company_slug text not null,
  constraint job_archive_companies_key unique (company_name, company_slug)
);
-- company_names are exact names, case aside
create index job_archive_companies_name_idx on job_archive_companies (lower(company_name));
create index job_archive_companies_slug_idx on job_archive_companies (company_slug);

-- Titles repeat ("Registered Nurse"): a title query reads the distinct titles' vectors.
-- Unique by digest, since a title can be longer than a btree entry may be.
create table job_archive_titles (
  id integer generated always as identity primary key,
  job_title text not null,
  title_tsv tsvector generated always as (to_tsvector('english', job_title)) stored
);
create unique index job_archive_titles_key on job_archive_titles (md5(job_title));
create index job_archive_titles_tsv_idx on job_archive_titles using gin (title_tsv);

-- The countries of a place set (its c: keys, sorted): what the counts are kept by.
create table job_archive_country_sets (
  id integer generated always as identity primary key,
  country_keys text[] not null constraint job_archive_country_sets_key unique
);
create index job_archive_country_sets_keys_idx on job_archive_country_sets using gin (country_keys);

-- A place set: the place keys and locations (as served: [{city, region, country,
-- coordinates}]) one or more postings share. A place filter picks sets, not postings.
create table job_archive_places (
  id integer generated always as identity primary key,
  place_keys text[] not null,
  locations jsonb not null,
  country_set_id integer not null references job_archive_country_sets (id)
);
-- a set's identity; immutable as an index expression needs (array_to_string is stable
-- only because of other element types' output functions)
create function place_set_digest(keys text[], locations jsonb) returns text
  language sql immutable parallel safe
  return md5(array_to_string(keys, '|') || ' ' || locations::text);
create unique index job_archive_places_key on job_archive_places (place_set_digest(place_keys, locations));
create index job_archive_places_keys_idx on job_archive_places using gin (place_keys);
-- the coordinates of each set's locations: radius and box filters narrow by lat/lng
create table job_archive_place_points (
  place_id integer not null references job_archive_places (id),
  lat double precision not null,
  lng double precision not null
);
create index job_archive_place_points_latlng_idx on job_archive_place_points (lat, lng);

-- Each skill, technology and benefit as written ("Python", "machine learning"); keywords
-- match their vectors, so a posting matches a word when one of its terms holds it.
create table job_archive_terms (
  id integer generated always as identity primary key,
  term text not null,
  term_tsv tsvector generated always as (to_tsvector('english', term)) stored
);
create unique index job_archive_terms_key on job_archive_terms (md5(term));
create index job_archive_terms_tsv_idx on job_archive_terms using gin (term_tsv);

create table job_archive_facts (
  job_id bigint primary key,
  date_posted date not null,
  date_expired date not null,
  company_id integer not null,
  title_id integer not null,
  place_id integer not null,
  described boolean not null,
  term_ids integer[] not null default '{}'
);
-- Postings per year posted, company and set of countries: the counts of a search whose
-- only filters are countries (geo_locations of countries, a location_group made of
-- countries) and companies. Rows whose postings were all rewritten elsewhere stay at 0.
create table job_archive_counts (
  country_set_id integer not null,
  company_id integer not null,
  year smallint not null,
  postings integer not null,
  described integer not null,
  constraint job_archive_counts_pkey primary key (country_set_id, company_id, year)
);
-- companies alone, or with whole years
create index job_archive_counts_company_idx on job_archive_counts (company_id);

-- sample_titles and exports read the most recently posted first
create index job_archive_facts_posted_idx on job_archive_facts (date_posted desc, job_id desc);
create index job_archive_facts_expired_idx on job_archive_facts (date_expired);
create index job_archive_facts_company_idx on job_archive_facts (company_id);
create index job_archive_facts_title_idx on job_archive_facts (title_id);
create index job_archive_facts_place_idx on job_archive_facts (place_id);
create index job_archive_facts_terms_idx on job_archive_facts using gin (term_ids);

create function country_keys_of(place_keys text[]) returns text[]
  language sql immutable parallel safe
  return array(select k from unnest(place_keys) k where k like 'c:%' order by k);

/** Adds (sign 1) or takes away (-1) the facts of these postings in job_archive_counts. */
create function job_archive_count(archived bigint[], direction integer) returns void language sql as $$
  insert into job_archive_counts (country_set_id, company_id, year, postings, described)
  select p.country_set_id, f.company_id, extract(year from f.date_posted)::smallint, direction * count(*), direction * count(*) filter (where f.described)
  from job_archive_facts f join job_archive_places p on p.id = f.place_id
  where f.job_id = any(archived)
  group by 1, 2, 3
  on conflict (country_set_id, company_id, year) do update set
    postings = job_archive_counts.postings + excluded.postings,
    described = job_archive_counts.described + excluded.described
$$;

/**
 * (Re)writes the facts of these archive rows, adding what the dictionaries lack. Each
 * statement sees the rows the previous ones added (read committed), and a dictionary
 * value added meanwhile by another transaction is skipped by ON CONFLICT and found by
 * the join after it commits.
 */
create function job_archive_index(archived bigint[]) returns void language plpgsql as $$
begin
  insert into job_archive_companies (company_name, company_slug)
  select distinct a.company_name, a.company_slug from job_archive a where a.job_id = any(archived)
  on conflict (company_name, company_slug) do nothing;

  insert into job_archive_titles (job_title)
  select distinct a.job_title from job_archive a where a.job_id = any(archived)
  on conflict ((md5(job_title))) do nothing;

  insert into job_archive_country_sets (country_keys)
  select distinct country_keys_of(a.place_keys) from job_archive a where a.job_id = any(archived)
  on conflict (country_keys) do nothing;

  with added as (
    insert into job_archive_places (place_keys, locations, country_set_id)
    select distinct a.place_keys, a.locations, s.id
    from job_archive a join job_archive_country_sets s on s.country_keys = country_keys_of(a.place_keys)
    where a.job_id = any(archived)
    on conflict ((place_set_digest(place_keys, locations))) do nothing
    returning id, locations
  )
  insert into job_archive_place_points (place_id, lat, lng)
  select added.id, (l->'coordinates'->>'lat')::float8, (l->'coordinates'->>'lng')::float8
  from added, jsonb_array_elements(case when jsonb_typeof(added.locations) = 'array' then added.locations else '[]' end) l
  where l->'coordinates'->>'lat' is not null and l->'coordinates'->>'lng' is not null;

  insert into job_archive_terms (term)
  select distinct x from job_archive a, unnest(a.skills || a.technologies || a.benefits) x
  where a.job_id = any(archived) and x is not null
  on conflict ((md5(term))) do nothing;

  -- what these rows counted before (an update moves a posting between counts)
  perform job_archive_count(archived, -1);

  insert into job_archive_facts (job_id, date_posted, date_expired, company_id, title_id, place_id, described, term_ids)
  select a.job_id, a.date_posted, a.date_expired, c.id, t.id, p.id, a.description_kept, coalesce(terms.term_ids, '{}')
  from job_archive a
  join job_archive_companies c on c.company_name = a.company_name and c.company_slug = a.company_slug
  join job_archive_titles t on md5(t.job_title) = md5(a.job_title)
  join job_archive_places p on place_set_digest(p.place_keys, p.locations) = place_set_digest(a.place_keys, a.locations)
  -- set-wise rather than a subquery per row, so the terms are joined once (by hash for a large batch)
  left join (
    select e.job_id, array_agg(distinct k.id order by k.id) as term_ids
    from job_archive e, unnest(e.skills || e.technologies || e.benefits) x
    join job_archive_terms k on md5(k.term) = md5(x)
    where e.job_id = any(archived)
    group by e.job_id
  ) terms on terms.job_id = a.job_id
  where a.job_id = any(archived)
  on conflict (job_id) do update set
    date_posted = excluded.date_posted, date_expired = excluded.date_expired, company_id = excluded.company_id,
    title_id = excluded.title_id, place_id = excluded.place_id, described = excluded.described, term_ids = excluded.term_ids;

  perform job_archive_count(archived, 1);
end
$$;

create function job_archive_index_written() returns trigger language plpgsql as $$
begin
  perform job_archive_index(array(select job_id from written));
  return null;
end
$$;
create trigger job_archive_index_inserted after insert on job_archive
  referencing new table as written for each statement execute function job_archive_index_written();
create trigger job_archive_index_updated after update on job_archive
  referencing new table as written for each statement execute function job_archive_index_written();

create function job_archive_unindex_deleted() returns trigger language plpgsql as $$
declare
  gone bigint[] := array(select job_id from deleted);
begin
  perform job_archive_count(gone, -1);
  delete from job_archive_facts f where f.job_id = any(gone);
  return null;
end
$$;
create trigger job_archive_unindex_deleted after delete on job_archive
  referencing old table as deleted for each statement execute function job_archive_unindex_deleted();

-- the rows archived before this migration: their update indexes them
update job_archive a set place_keys = coalesce((select j.place_keys from jobs j where j.id = a.job_id), a.place_keys);

-- the historical export's tasks (jobs/export-historical.ts)
alter table tasks drop constraint tasks_type_check;
alter table tasks add constraint tasks_type_check
  check (type in ('export_job_data', 'export_expired_jobs', 'salary_benchmark', 'export_historical_jobs'));
