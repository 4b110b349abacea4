/**
 * Stored resumes: the record the API returns (the spec's "Resume record") and what the
 * parse job writes. Every read and delete is scoped to the owner's account: another
 * account's resume is as unknown as a missing one.
 */
import { toSql } from 'pgvector'
import type { Db } from './db.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export type ResumeRow = {
  id: string
  account_id: string
  resume_url: string
  file_key: string
  file_name: string | null
  file_size: number | null
  content_type: string | null
  parsed_data: Record<string, unknown> | null
  status: 'uploaded' | 'parsed'
  parse_error: string | null
  created_at: Date
  updated_at: Date
}

export type NewResume = { id: string; account_id: string; resume_url: string; file_key: string; file_name: string | null; file_size: number; content_type: string }

export async function insertResume(db: Db, r: NewResume): Promise<ResumeRow> {
  const [row] = await db<ResumeRow[]>`
    insert into resumes (id, account_id, resume_url, file_key, file_name, file_size, content_type)
    values (${r.id}, ${r.account_id}, ${r.resume_url}, ${r.file_key}, ${r.file_name}, ${r.file_size}, ${r.content_type})
    returning *`
  return row
}

export async function findResume(db: Db, accountId: string, id: string): Promise<ResumeRow | null> {
  if (!UUID.test(id)) return null
  const [row] = await db<ResumeRow[]>`select * from resumes where id = ${id} and account_id = ${accountId}`
  return row ?? null
}

/** The owner's resumes, newest first, and how many there are. */
export async function listResumes(db: Db, accountId: string, offset: number, limit: number) {
  const rows = await db<ResumeRow[]>`
    select * from resumes where account_id = ${accountId}
    order by created_at desc, id desc
    offset ${offset} limit ${limit}`
  const [{ count }] = await db<{ count: number }[]>`select count(*)::int as count from resumes where account_id = ${accountId}`
  return { rows, total: count }
}

/** Deletes the record, its parsed data and its vector; returns the file's key so the caller removes the file. */
export async function deleteResume(db: Db, accountId: string, id: string): Promise<{ file_key: string } | null> {
  if (!UUID.test(id)) return null
  const [row] = await db<{ file_key: string }[]>`delete from resumes where id = ${id} and account_id = ${accountId} returning file_key`
  return row ?? null
}

/** What the parse job needs; null when the resume was deleted meanwhile. */
export async function findResumeFile(db: Db, id: string) {
  const [row] = await db<{ id: string; file_key: string; content_type: string; status: string }[]>`
    select id, file_key, content_type, status from resumes where id = ${id}`
  return row ?? null
}

export async function markResumeParsed(db: Db, id: string, parsed: object, vector: { embedding: number[]; model: number } | null) {
  await db`
    update resumes set
      parsed_data = ${db.json(parsed as never)},
      status = 'parsed',
      parse_error = null,
      embedding = ${vector ? toSql(vector.embedding) : null}::vector,
      embedding_model = ${vector?.model ?? null},
      parsed_at = now(),
      updated_at = now()
    where id = ${id}`
}

export async function markResumeUnreadable(db: Db, id: string, error: string) {
  await db`update resumes set parse_error = ${error}, updated_at = now() where id = ${id}`
}
