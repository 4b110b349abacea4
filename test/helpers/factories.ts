/** Rows with random ids, so tests in one file never collide. */
import type { ReadItem } from '../../ingest/read.ts'
import { randomBytes } from 'node:crypto'
import { createAccount, createKey, type Plan } from '../../sql/accounts.ts'
import type { Db } from '../../sql/db.ts'

export async function createAccountWithKey(db: Db, plan: Plan = 'free') {
  const accountId = await createAccount(db, `t-${randomBytes(6).toString('hex')}@example.test`, plan)
  return { accountId, key: await createKey(db, accountId) }
}

/** A raw posting as ingest reads it; override any field. */
export function rawPosting(overrides: Record<string, unknown> = {}, n = Math.floor(Math.random() * 1e9)) {
  return {
    source_id: `t-${n}`,
    job_board: 'TestBoard',
    job_board_link: `https://board.example.test/jobs/${n}`,
    application_link: `https://acme.example.test/apply/${n}`,
    job_title: `Senior Backend Engineer ${n}`,
    description: `<p>We build payment systems with TypeScript and PostgreSQL. Posting ${n}.</p><ul><li>5+ years of experience</li></ul>`,
    location_raw: 'Berlin, Germany',
    location_type: 'Hybrid',
    job_type: 'Full Time',
    salary_range: { min: 70000, max: 90000, currency: 'EUR', period: 'yearly' },
    date_posted: '2026-11-01',
    company: { name: 'Acme Payments', link: 'https://acme.example.test', size_range: '51-200', industries: ['Finance'], subindustries: ['Fintech'] },
    ...overrides,
  }
}

/** Raw postings as the pipeline reads them, numbered from line 1. */
export const readItems = (rows: unknown[]): ReadItem[] => rows.map((raw, i) => ({ line: i + 1, raw: raw as never }))
