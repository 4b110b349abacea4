-- refresh_company_stats (0016) reads each company's jobs through jobs_company_idx alone.
-- Its live terms and place keys asked for `company_id = c.id and not j.expired` in one
-- scan, which let the planner AND the company's index with a partial index over every
-- live job (jobs_embedding_model_idx, `where not expired`): 770,000 entries read for
-- each company's twenty jobs, 50 ms a company at 1,000,000 postings, 40 minutes for an
-- ingest's 50,000 companies. Behind OFFSET 0 the scan has only the company to go by,
-- and `not expired` applies to the rows it returns.
create or replace function refresh_company_stats(ids bigint[]) returns integer
  language sql
as $$
  with fresh as (
    select c.id, p.live_jobs, p.live_boards,
      array(
        select distinct term
        from (select j.expired, j.technologies, j.benefits from jobs j where j.company_id = c.id offset 0) j,
          unnest(j.technologies || j.benefits) term
        where not j.expired
        order by term
      ) as live_terms,
      array(
        select distinct k
        from (select j.expired, j.place_keys from jobs j where j.company_id = c.id offset 0) j,
          unnest(j.place_keys) k
        where not j.expired
        order by k
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
