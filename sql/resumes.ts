/**
 * Stored resumes: the record the API returns (the spec's "Resume record") and what the
 * parse job writes. Every read and delete is scoped to the owner's account: another
 * account's resume is as unknown as a missing one.
 */
import { toSql } from 'pgvector'
import type { Db } from './db.ts'
import { isUuid } from './ids.ts'


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
  if (!isUuid(id)) return null
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
  if (!isUuid(id)) return null
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

// --- uploads in progress (migration 0034, ingest/resume/store.ts) -------------------------

/** Records that `fileKey` is about to be stored for resume `id`, before the file is written. */
export async function beginResumeUpload(db: Db, id: string, fileKey: string) {
  await db`insert into resume_uploads (id, file_key) values (${id}, ${fileKey})`
}

/**
 * Ends the upload inside the transaction that inserts the record; false when the sweep
 * has claimed it meanwhile (the caller then gives up and deletes its file).
 */
export async function finishResumeUpload(db: Db, id: string): Promise<boolean> {
  const rows = await db`delete from resume_uploads where id = ${id} and swept_at is null returning id`
  return rows.length > 0
}

/** An upload that failed before its record was inserted, once its file is deleted. */
export async function dropResumeUpload(db: Db, id: string) {
  await db`delete from resume_uploads where id = ${id}`
}

/**
 * Claims up to `limit` uploads begun more than `graceSeconds` ago (a crash stopped
 * them, or a sweep that claimed them stopped): an upload still running can no longer
 * finish once claimed. Rows another sweep is claiming right now are skipped.
 */
export async function claimStaleResumeUploads(db: Db, graceSeconds: number, limit: number) {
  return db<{ id: string; file_key: string }[]>`
    update resume_uploads set swept_at = now()
    where id in (
      select id from resume_uploads
      where created_at <= now() - make_interval(secs => ${graceSeconds})
      order by created_at
      limit ${limit}
      for update skip locked)
    returning id, file_key`
}

// --- vectors for `make embed` ---------------------------------------------------------------

/** Parsed resumes without a vector of `model`: none (parsed while no model was configured) or another model's. */
export async function countResumeEmbeddingBacklog(db: Db, model: number) {
  const [row] = await db<{ missing: number; other_model: number }[]>`
    select count(*) filter (where embedding is null)::int as missing,
           count(*) filter (where embedding is not null and embedding_model is distinct from ${model})::int as other_model
    from resumes where status = 'parsed' and parsed_data is not null`
  return row
}

/** A page of them in id order, after `after` (a uuid; '' for the first page). */
export async function listResumesToEmbed(db: Db, model: number, after: string | null, limit: number) {
  return db<{ id: string; parsed_data: Record<string, unknown> }[]>`
    select id::text, parsed_data from resumes
    where status = 'parsed' and parsed_data is not null
      and (embedding is null or embedding_model is distinct from ${model})
      and (${after}::uuid is null or id > ${after}::uuid)
    order by id
    limit ${limit}`
}

/**
 * Writes a resume's vector of `model`, unless the resume was parsed again since it was
 * read (its parsed data changed) or deleted; returns whether it was written.
 */
export async function setResumeVector(db: Db, id: string, parsed: object, embedding: number[], model: number) {
  const rows = await db`
    update resumes set embedding = ${toSql(embedding)}::vector, embedding_model = ${model}, updated_at = now()
    where id = ${id} and status = 'parsed' and parsed_data = ${db.json(parsed as never)}
    returning id`
  return rows.length > 0
}
