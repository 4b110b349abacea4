-- A graph of each job category's vectors (docs/vector-search.md, Plans). Job categories
-- are regions of a model's space, and a filter on them is where the one graph of every
-- job serves worst: a query far from the region walks many jobs outside it before it
-- reaches any, and finds its jobs only roughly in order (two categories, 12.7 % of
-- 100,000 postings: recall@10 0.94 through that graph, or 35 ms to read and rank all
-- 9,695 matches). A partial HNSW index per category holds its live jobs alone, so its
-- nearest are found as a search without a filter finds its own: recall@10 0.985 in 6 ms
-- for the two categories, 0.991 in 14 ms for five. Live jobs only: searches read those
-- unless asked for expired ones too, and an expired job's vector then costs no graph
-- but the one of every job. The list is the interface's (seeds/categories.json) and
-- Other; each index is named for its category: jobs_embedding_<category>_idx.
do $$
declare
  category text;
begin
  foreach category in array array[
    'Accounting, Payroll & Financial Planning Jobs',
    'Administration Jobs',
    'Arts and Design Jobs',
    'Banking Jobs',
    'Business Development Jobs',
    'Business Operations & Strategy Jobs',
    'Community and Social Services Jobs',
    'Consulting Jobs',
    'Culinary Jobs',
    'Customer Support & Success Jobs',
    'Data Analyst Jobs',
    'Driver and Delivery Jobs',
    'Education Jobs',
    'Engineering Jobs',
    'Finance Jobs',
    'Healthcare Services Jobs',
    'Hospitality Jobs',
    'Human Resources Jobs',
    'IT Support Jobs',
    'Information Technology Jobs',
    'Insurance Jobs',
    'Legal Jobs',
    'Marketing Jobs',
    'Media and Communication Jobs',
    'Operations Jobs',
    'Product Jobs',
    'Project & Program Management Jobs',
    'Purchasing Jobs',
    'Quality Assurance Jobs',
    'Real Estate Jobs',
    'Recruitment Jobs',
    'Research Jobs',
    'Retail Jobs',
    'Risk and Compliance Jobs',
    'Sales Jobs',
    'Security Engineer Jobs',
    'Skilled Trade Jobs',
    'Software Engineer Jobs',
    'Support Engineer Jobs',
    'Other'
  ] loop
    execute format(
      'create index %I on jobs using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = 128) where not expired and job_categories && %L::text[]',
      'jobs_embedding_' || trim(both '_' from regexp_replace(lower(regexp_replace(category, ' Jobs$', '')), '[^a-z0-9]+', '_', 'g')) || '_idx',
      array[category]);
  end loop;
end
$$;
