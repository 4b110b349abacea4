/**
 * Hiring contacts (POST /v2/jobs/contacts; docs/contacts.md): the contact e-mail and
 * phone of postings (jobs.contact_email, jobs.contact_phone, found at ingest) and the
 * contacts company profiles list (company_contacts, migration 0017). Personal data:
 * nothing here logs them, and deleteCompanyContacts removes a company's.
 */
import type { Db } from './db.ts'

export type CompanyContact = { name: string | null; role: string | null; email: string | null; phone: string | null }

/** A posting's contact, with the description that may name the person beside it. */
export type PostingContact = { job_id: string; company_id: string; email: string | null; phone: string | null; description: string }

/** The key two contacts are the same by: the e-mail, else the phone's digits. */
export const contactKey = (c: { email: string | null; phone: string | null }) =>
  c.email ? `e:${c.email.toLowerCase()}` : `p:${(c.phone ?? '').replace(/\D/g, '')}`

export async function findCompanyIdBySlug(db: Db, slug: string) {
  const [row] = await db<{ id: string }[]>`select id::text from companies where slug = ${slug}`
  return row?.id ?? null
}

/**
 * Postings' contacts, one per e-mail (else phone), at most `limit`: those of the given
 * jobs in the order asked (`asked`), then the live postings of the given company, newest
 * first, leaving out the keys (contactKey) in `except`. Each contact comes from the first
 * posting in that order that gives it. Descriptions are read only for the rows returned.
 */
export async function listPostingContacts(
  db: Db,
  { jobIds, companyId, limit, except = [] }: { jobIds: string[]; companyId: string | null; limit: number; except?: string[] },
) {
  if (!jobIds.length && !companyId) return []
  return db<(PostingContact & { asked: boolean })[]>`
    with candidates as (
      select j.id, j.contact_email, j.contact_phone, array_position(${jobIds}::bigint[], j.id) as ord, null::date as posted
      from jobs j
      where j.id = any(${jobIds}::bigint[]) and (j.contact_email is not null or j.contact_phone is not null)
      ${companyId ? db`
      union all
      select j.id, j.contact_email, j.contact_phone, null, j.date_posted
      from jobs j
      where j.company_id = ${companyId} and not j.expired and (j.contact_email is not null or j.contact_phone is not null)` : db``}
    ), keyed as (
      select c.*, coalesce('e:' || lower(c.contact_email), 'p:' || regexp_replace(c.contact_phone, '\\D', '', 'g')) as key
      from candidates c
    ), firsts as (
      select distinct on (key) id, contact_email, contact_phone, ord, posted
      from keyed
      where ord is not null or key <> all(${except}::text[])
      order by key, ord nulls last, posted desc nulls last, id desc
    ), page as (
      select * from firsts order by ord nulls last, posted desc nulls last, id desc limit ${limit}
    )
    select p.id::text as job_id, j.company_id::text, p.contact_email as email, p.contact_phone as phone, j.description,
      p.ord is not null as asked
    from page p join jobs j on j.id = p.id
    order by p.ord nulls last, p.posted desc nulls last, p.id desc`
}

/**
 * The contacts the profiles list of the company given and of the given jobs' companies:
 * the jobs' companies first, in the jobs' order, each list in its own order.
 */
export async function listCompanyContacts(db: Db, { jobIds, companyId }: { jobIds: string[]; companyId: string | null }) {
  if (!jobIds.length && !companyId) return []
  return db<(CompanyContact & { company_id: string })[]>`
    with companies as (
      select j.company_id as id, min(array_position(${jobIds}::bigint[], j.id)) as ord
      from jobs j where j.id = any(${jobIds}::bigint[])
      group by j.company_id
      ${companyId ? db`union all select ${companyId}::bigint, null` : db``}
    ), ranked as (
      select id, min(ord) as ord from companies group by id
    )
    select cc.company_id::text, cc.name, cc.role, cc.email, cc.phone
    from company_contacts cc join ranked r on r.id = cc.company_id
    order by r.ord nulls last, cc.position`
}

/**
 * Replaces the profile contacts of each company (by slug) with the list given; companies
 * not named keep theirs. A slug that has no company is skipped (ingest writes the
 * profile first).
 */
export async function replaceCompanyContacts(db: Db, bySlug: Map<string, CompanyContact[]>) {
  if (bySlug.size === 0) return
  const slugs = [...bySlug.keys()]
  const rows = slugs.flatMap((slug) => bySlug.get(slug)!.map((c, position) => ({ slug, position, ...c })))
  // positions below a list's length are upserted, those from it on deleted: disjoint rows,
  // so one statement does both (sub-statements of one statement do not see each other's rows)
  await db`
    with lists as (
      select c.id, l.n from unnest(${slugs}::text[], ${slugs.map((s) => bySlug.get(s)!.length)}::int[]) as l(slug, n)
      join companies c on c.slug = l.slug
    ), removed as (
      delete from company_contacts cc using lists l where cc.company_id = l.id and cc.position >= l.n
    )
    insert into company_contacts (company_id, position, name, role, email, phone)
    select c.id, r.position, r.name, r.role, r.email, r.phone
    from jsonb_to_recordset(${db.json(rows)}::jsonb) as r(slug text, position int, name text, role text, email text, phone text)
    join companies c on c.slug = r.slug
    on conflict (company_id, position) do update set
      name = excluded.name, role = excluded.role, email = excluded.email, phone = excluded.phone`
}

/**
 * Deletes every contact of a company: its profile's, and the contact e-mail and phone of
 * each of its postings. null when no company has the slug.
 */
export async function deleteCompanyContacts(db: Db, slug: string) {
  const [row] = await db<{ profile_contacts: number; posting_contacts: number }[]>`
    with company as (
      select id from companies where slug = ${slug}
    ), profile as (
      delete from company_contacts cc using company c where cc.company_id = c.id returning 1
    ), postings as (
      update jobs j set contact_email = null, contact_phone = null
      from company c
      where j.company_id = c.id and (j.contact_email is not null or j.contact_phone is not null)
      returning 1
    )
    select (select count(*) from profile)::int as profile_contacts, (select count(*) from postings)::int as posting_contacts
    from company`
  return row ?? null
}
