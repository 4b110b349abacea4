/**
 * POST /v2/jobs/contacts (docs/contacts.md): the hiring contacts of jobs or of a
 * company. An add-on: the account needs the hiring_manager_contacts feature. Billed 1
 * unit of m_hiring_manager_contacts per contact returned, `limit` reserved first; an
 * answer without contacts costs nothing. Contacts are personal data: they are only
 * ever in the response body, never in a log line or an error. Mounted before the
 * /v2/jobs/{job_id} router.
 */
import Router from '@koa/router'
import { contactPerson } from '../../ingest/transform/contacts.ts'
import { sanitizeDescription } from '../../ingest/transform/sanitize-description.ts'
import { contactKey, findCompanyIdBySlug, listCompanyContacts, listPostingContacts, type PostingContact } from '../../sql/contacts.ts'
import type { Db } from '../../sql/db.ts'
import { errors } from '../errors.ts'
import { jsonBody } from '../middleware/body.ts'
import { keyed } from '../middleware/keyed.ts'
import { limitFromBody, perResult } from '../middleware/metering.ts'
import { contactsBody, MAX_CONTACTS_LIMIT, type ContactsBody } from '../schemas/contacts.ts'
import { validate } from '../validate.ts'

export type Contact = { name: string | null; role: string | null; email: string | null; phone: string | null; source: string; job_id: string | null }

/**
 * The contacts, at most `limit`, each e-mail (else phone) once, in this order: those of
 * the jobs asked for (in their order), each with the name and role its posting gives
 * beside it, else the profile's for the same address; then the profile contacts of the
 * companies concerned (the jobs' and company_slug's); then the contacts of the
 * company's live postings, newest first.
 */
export async function listContacts(db: Db, body: ContactsBody): Promise<Contact[]> {
  const jobIds = [...new Set([...(body.job_id ? [body.job_id] : []), ...(body.job_ids ?? [])])]
  let companyId: string | null = null
  if (body.company_slug !== undefined) {
    companyId = await findCompanyIdBySlug(db, body.company_slug)
    if (!companyId) throw errors.notFound('Company')
  }
  const listed = await listCompanyContacts(db, { jobIds, companyId })
  const profiles = new Map(listed.map((c) => [contactKey(c), c]))
  const postings = await listPostingContacts(db, { jobIds, companyId, limit: body.limit, except: [...profiles.keys()] })

  const fromPosting = (p: PostingContact): Contact => {
    // only for the contacts returned: the description is sanitized again to find its blocks
    const found = contactPerson(sanitizeDescription(p.description).blocks, p)
    const profile = profiles.get(contactKey(p))
    return {
      name: found.name ?? profile?.name ?? null,
      role: found.role ?? profile?.role ?? null,
      email: p.email,
      phone: p.phone ?? profile?.phone ?? null,
      source: p.job_id,
      job_id: p.job_id,
    }
  }
  const out = new Map<string, () => Contact>()
  for (const p of postings) if (p.asked) out.set(contactKey(p), () => fromPosting(p))
  for (const c of listed) {
    if (!out.has(contactKey(c))) out.set(contactKey(c), () => ({ name: c.name, role: c.role, email: c.email, phone: c.phone, source: 'company', job_id: null }))
  }
  for (const p of postings) if (!out.has(contactKey(p))) out.set(contactKey(p), () => fromPosting(p))
  return [...out.values()].slice(0, body.limit).map((contact) => contact())
}

export function contactRoutes(db: Db) {
  const router = new Router({ prefix: '/v2/jobs' })

  // the body is parsed first: the reservation is the requested limit, 1 unit per contact
  router.post(
    '/contacts',
    jsonBody(),
    keyed({ feature: 'hiring_manager_contacts', meter: 'm_hiring_manager_contacts', cost: perResult(limitFromBody(10), MAX_CONTACTS_LIMIT) }),
    async (ctx) => {
      const body = await validate(contactsBody, ctx.request.body)
      ctx.body = { contacts: await listContacts(db, body) }
    },
  )

  return router
}
