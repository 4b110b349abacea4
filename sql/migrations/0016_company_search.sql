-- Company search (POST /v2/platform/companies/search; sql/company-search.ts) and the
-- company_types tags (docs/companies.md).
--
-- What a search reads per company is kept on the company row, so no search aggregates
-- jobs: the count of live postings (the ranking's tie-break and the `hiring` filter),
-- the technologies and benefits of the live postings (words `query` matches), their
-- boards and place keys, and the tags. refresh_company_stats() recomputes them from the jobs; ingest
-- calls it at the end of a run for the companies the run wrote, expiry for the
-- companies whose jobs it expired, and this migration once for every company.

-- levenshtein_less_equal: company_name's typo check, on the few names pg_trgm finds
create extension if not exists fuzzystrmatch;

alter table companies
  add column live_jobs integer not null default 0,
  -- distinct technologies and benefits (the tech-stack and culture words) of live postings
  add column live_terms text[] not null default '{}',
  -- distinct boards of live postings
  add column live_boards text[] not null default '{}',
  -- distinct place keys of live postings (jobs.place_keys: c:germany, r:…, t:…), so a
  -- country or region filter reads one GIN index rather than every matching job
  add column live_place_keys text[] not null default '{}',
  -- Startup, Public Company, … (company_types_of below)
  add column company_types text[] not null default '{}';

-- A company's text (description, the two tsvectors, the postings' words) goes to TOAST,
-- as jobs' descriptions do: a search without text reads every company's row for its
-- filters and live_jobs, and a row of 3 KB made that a scan of 16 MB for 5,000
-- companies. The column added next rewrites the table, so every row is stored so.
alter table companies set (toast_tuple_target = 256);

-- What `query` matches: the name (A); what the company does, its services and its
-- technologies (B); its live postings' technologies and benefits, and its remote
-- policy and hiring region as the profile words them (C). search_tsv stays what the
-- job search's company_keywords match.
alter table companies add column profile_tsv tsvector generated always as (
  setweight(to_tsvector('english', coalesce(name, '')), 'A') ||
  setweight(to_tsvector('english', coalesce(description_summary, '') || ' ' || words(services) || ' ' || words(technologies)), 'B') ||
  setweight(to_tsvector('english', words(live_terms) || ' ' || coalesce(remote_policy, '') || ' ' || coalesce(hiring_region, '')), 'C')
) stored;

-- The company part of a LinkedIn company URL, lower-cased: what linkedin_url matches,
-- with or without www., a trailing slash or a query string.
-- https://www.linkedin.com/company/Acme-Inc/?trk=x → acme-inc
create function linkedin_company_key(url text) returns text
  language sql immutable parallel safe
  return lower(substring(url from '(?i)^\s*(?:https?://)?(?:[a-z]+\.)?linkedin\.com/company/([^/?#[:space:]]+)'));

/*
 * The company_types tags, in this order; docs/companies.md gives each rule with
 * examples. postings counts every posting of the company (expired ones too, so a
 * company's tags do not change as its postings expire), remote_postings those with
 * location_type Remote, agency_postings those flagged recruiter_agency.
 */
create function company_types_of(
  name text, type text, size_bucket text, description text, remote_policy text, is_recruiting_agency boolean,
  industries text[], subindustries text[], postings integer, remote_postings integer, agency_postings integer
) returns text[]
  language sql immutable parallel safe
as $$
  select array_remove(array[
    case when startup then 'Startup' end,
    case when public then 'Public Company' end,
    case when nonprofit then 'Non-Profit' end,
    case when enterprise then 'Enterprise' end,
    case when agency then 'Agency' end,
    case when recruiting then 'Recruiting Agency' end,
    case when government then 'Government' end,
    case when remote_first then 'Remote-first' end
  ], null)
  from (
    select *,
      not enterprise and not public and not nonprofit and not government and (
        t ~* 'start-?up'
        or d ~* '\man? ([a-z0-9]+[ ,-]+){0,3}start-?up\M'
        or d ~* '\m(venture|vc)[- ]backed\M|\mseed[- ](stage|funded)\M|\mseries [a-c] (funded|funding|round)\M|\my ?combinator\M'
      ) as startup,
      not recruiting and not government and (
        (t ~* '\magency\M' and t !~* 'government|staffing|recruit|employment')
        or d ~* '\m(digital|creative|design|marketing|advertising|branding|web|development|software|product|media|seo|ux|pr|communications|growth|content) (agency|studio)\M'
        or d ~* '\mconsultancy\M|\magency (for|that|which|specializ)'
      ) as agency
    from (
      select *,
        coalesce(size_bucket in ('1001-5000', '5001-10000', '10000+'), false) as enterprise,
        t ~* 'public company|publicly (traded|held|listed)'
          or d ~* '\mpublicly (traded|listed)\M|\m(nyse|nasdaq|lse|tsx|asx): ?[a-z]|\mlisted on the [a-z]+( [a-z]+)? stock exchange' as public,
        t ~* 'non-?profit|not-for-profit|charity'
          or 'Nonprofit' = any(industries)
          or d ~* '\mnon-?profit\M|\mnot-for-profit\M|\m501\(c\)\(3\)|\mregistered charity\M|\mcharitable organi[sz]ation\M' as nonprofit,
        t ~* 'government'
          or 'Public Administration' = any(industries)
          or coalesce(name, '') ~* '^(city|county|state|town|village|borough|department|ministry|government) of\M'
          or d ~* '\m(government|federal) agency\M|\mpublic sector (body|organi[sz]ation)\M|\mlocal authority\M' as government,
        coalesce(is_recruiting_agency, false)
          or t ~* 'staffing|recruit'
          or 'Staffing & Recruiting' = any(subindustries)
          or (postings > 0 and agency_postings * 2 > postings) as recruiting,
        coalesce(remote_policy, '') ~* '(fully|all)[- ]?remote|remote[- ]?(first|only)|distributed'
          or d ~* '\mremote[- ](first|only)\M|\mfully[- ]remote\M|\mfully distributed\M|\mall[- ]remote\M|100% remote\M'
          or (postings >= 3 and remote_postings = postings) as remote_first
      from (select coalesce(type, '') as t, coalesce(description, '') as d) given
    ) facts
  ) tags
$$;

/*
 * Recomputes live_jobs, live_terms, live_boards, live_place_keys and company_types of the given
 * companies from their jobs; writes only the rows whose values change. Returns how
 * many it wrote. (`id = any(ids)` reads the primary key for each id; an optional
 * "every company" would make the planner scan them all for a batch's few.)
 */
create function refresh_company_stats(ids bigint[]) returns integer
  language sql
as $$
  with fresh as (
    select c.id, p.live_jobs, p.live_boards,
      array(
        select distinct term from jobs j, unnest(j.technologies || j.benefits) term
        where j.company_id = c.id and not j.expired order by term
      ) as live_terms,
      array(
        select distinct k from jobs j, unnest(j.place_keys) k
        where j.company_id = c.id and not j.expired order by k
      ) as live_place_keys,
      company_types_of(c.name, c.type, c.size_bucket, c.description_summary, c.remote_policy, c.is_recruiting_agency,
                       c.industries, c.subindustries, p.postings, p.remote_postings, p.agency_postings) as company_types
    from companies c
    cross join lateral (
      select count(*) filter (where not j.expired)::int as live_jobs,
             count(*)::int as postings,
             count(*) filter (where j.location_type = 'Remote')::int as remote_postings,
             count(*) filter (where j.recruiter_agency)::int as agency_postings,
             coalesce(array_agg(distinct j.job_board order by j.job_board) filter (where not j.expired), '{}') as live_boards
      from jobs j where j.company_id = c.id
    ) p
    where c.id = any(ids)
  ), written as (
    update companies c set
      live_jobs = f.live_jobs, live_terms = f.live_terms, live_boards = f.live_boards, live_place_keys = f.live_place_keys,
      company_types = f.company_types
    from fresh f
    where c.id = f.id
      and (c.live_jobs, c.live_terms, c.live_boards, c.live_place_keys, c.company_types)
          is distinct from (f.live_jobs, f.live_terms, f.live_boards, f.live_place_keys, f.company_types)
    returning 1
  )
  select count(*)::int from written
$$;

select refresh_company_stats(array(select id from companies));

create index companies_profile_tsv_idx on companies using gin (profile_tsv);
create index companies_company_types_idx on companies using gin (company_types);
create index companies_live_boards_idx on companies using gin (live_boards);
create index companies_live_place_keys_idx on companies using gin (live_place_keys);
create index companies_linkedin_key_idx on companies (linkedin_company_key(linkedin_link));
-- searches without text rank by live postings: the first page reads this index in order
create index companies_live_jobs_idx on companies (live_jobs desc, id);
