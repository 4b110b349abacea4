-- Hiring contacts a company profile lists (make ingest-companies, a `contacts` list;
-- ingest/profile-contacts.ts), served by POST /v2/jobs/contacts with the contacts of
-- the company's postings (jobs.contact_email, jobs.contact_phone). Personal data: an
-- operator deletes them with `admin contacts:delete --company SLUG` (docs/contacts.md),
-- and a company's deletion takes them along.
create table company_contacts (
  company_id bigint not null references companies (id) on delete cascade,
  -- the contact's place in the profile's list: the order they are served in
  position integer not null,
  name text,
  role text,
  email text,
  phone text,
  created_at timestamptz not null default now(),
  constraint company_contacts_pkey primary key (company_id, position),
  constraint company_contacts_reachable_check check (email is not null or phone is not null)
);
