/**
 * Embedding models, the embedding cache and the jobs' vectors (migration 0004).
 * Vectors travel as pgvector's text form ('[0.1,0.2,…]', pgvector's toSql()); text
 * hashes as hex (sha256, 64 characters), stored as bytea.
 */
import type { Db } from './db.ts'

/** A model as ingest/embed names it (ModelInfo); declared here so sql/ imports nothing above it. */
export type EmbeddingModel = { provider: string; model_name: string; model_version: string }

/** The numbers in every stored vector (the columns are vector(768)). */
const DIM = 768

// per connection pool: the same model has another id in another database
const ids = new WeakMap<Db, Map<string, Promise<number>>>()

/**
 * The model's id, registered on first use. Cached per process and database, since a
 * model's row never changes; a failed lookup is not cached.
 */
export function modelId(db: Db, info: EmbeddingModel): Promise<number> {
  let known = ids.get(db)
  if (!known) ids.set(db, (known = new Map()))
  const key = JSON.stringify([info.provider, info.model_name, info.model_version])
  let id = known.get(key)
  if (!id) {
    id = registerModel(db, info)
    id.catch(() => known.delete(key))
    known.set(key, id)
  }
  return id
}

async function registerModel(db: Db, { provider, model_name, model_version }: EmbeddingModel): Promise<number> {
  const find = () => db<{ id: number }[]>`
    select id from embedding_models
    where provider = ${provider} and model_name = ${model_name} and model_version = ${model_version}`
  const [known] = await find()
  if (known) return known.id
  const [inserted] = await db<{ id: number }[]>`
    insert into embedding_models (provider, model_name, model_version, dim)
    values (${provider}, ${model_name}, ${model_version}, ${DIM})
    on conflict on constraint embedding_models_key do nothing
    returning id`
  // nothing inserted: another process registered it a moment ago
  return inserted?.id ?? (await find())[0].id
}

export type StoredModel = { id: number; provider: string; model_name: string; model_version: string; jobs: number }

/** Every registered model with the number of live jobs its vectors are stored for, most first. */
export async function storedModels(db: Db): Promise<StoredModel[]> {
  return db<StoredModel[]>`
    select m.id, m.provider, m.model_name, m.model_version, count(j.embedding_model)::int as jobs
    from embedding_models m
    left join jobs j on j.embedding_model = m.id and not j.expired
    group by m.id
    order by jobs desc, m.id`
}

/** What `make embed` has to do for this model: jobs without a vector, and jobs with another model's. */
export async function countEmbeddingBacklog(db: Db, model: number) {
  const [row] = await db<{ missing: number; other_model: number }[]>`
    select count(*) filter (where embedding is null)::int as missing,
      count(*) filter (where embedding is not null and embedding_model is distinct from ${model})::int as other_model
    from jobs`
  return row
}

/** What a job's embedding text is made of (ingest/embed/job-text.ts). */
export type JobTextFields = {
  job_title: string
  company: string
  locations: { city: string | null; region: string | null; country: string | null }[]
  location_type: string | null
  remote_countries: string[]
  skills: string[]
  technologies: string[]
  job_categories: string[]
  description: string
}

/** A job to embed: its text's fields, and its version (updated_at), to write back only to an unchanged job. */
export type JobTextRow = JobTextFields & { id: string; version: string }

/** Which jobs listJobsToEmbed looks at: an ingest batch's duplicate groups, the ids of a queued batch, or a page in id order (`make embed`). */
export type EmbedScope = { md5Hashes: string[] } | { ids: string[] } | { after: string; limit: number }

/** Jobs whose vector is missing or from another model than `model`, within the scope, in id order. */
export async function listJobsToEmbed(db: Db, model: number, where: EmbedScope) {
  const scope =
    'md5Hashes' in where ? db`and j.md5_hash = any(${where.md5Hashes})`
    : 'ids' in where ? db`and j.id = any(${where.ids}::bigint[])`
    : db`and j.id > ${where.after}::bigint`
  return db<JobTextRow[]>`
    select j.id::text, j.updated_at::text as version, j.job_title, c.name as company, j.locations, j.location_type,
      j.remote_countries, j.skills, j.technologies, j.job_categories, j.description
    from jobs j
    join companies c on c.id = j.company_id
    where j.embedding_model is distinct from ${model} ${scope}
    order by j.id
    ${'limit' in where ? db`limit ${where.limit}` : db``}`
}

/**
 * The ids of these duplicate groups' jobs that the calling transaction wrote (inserted or
 * rewrote: updated_at is the transaction's now()) and whose vector is missing or from
 * another model than `model`. A job of an earlier batch that a duplicate only touched
 * was queued with that batch.
 */
export async function listJobIdsToEmbed(db: Db, model: number, md5Hashes: string[]) {
  if (md5Hashes.length === 0) return []
  const rows = await db<{ id: string }[]>`
    select id::text from jobs
    where md5_hash = any(${md5Hashes}) and updated_at = now() and embedding_model is distinct from ${model}
    order by id`
  return rows.map((r) => r.id)
}

/** The ids of every live job whose vector is missing or from another model than `model`, in id order. */
export async function listLiveJobIdsToEmbed(db: Db, model: number) {
  const rows = await db<{ id: string }[]>`
    select id::text from jobs
    where not expired and (embedding_model is null or embedding_model < ${model} or embedding_model > ${model})
    order by id`
  return rows.map((r) => r.id)
}

/**
 * The live jobs still waiting for a vector of `model` (none yet, or another model's):
 * what vector search cannot find until the background embedding reaches them.
 * Found through jobs_embedding_model_idx (jobs by model).
 */
export async function countLiveWithoutVector(db: Db, model: number) {
  const [{ n }] = await db<{ n: number }[]>`
    select count(*)::int as n from jobs
    where not expired and (embedding_model is null or embedding_model < ${model} or embedding_model > ${model})`
  return n
}

export type EmbeddingStatus = { live: number; live_pending: number; done: number; pending: number; last_minute: number; last_5_minutes: number }

/**
 * The background embedding's state for `model` (admin embeddings:status): live jobs and
 * those of them without its vector; every job with and without it; the vectors written
 * in the last minute and the last five.
 */
export async function embeddingStatus(db: Db, model: number): Promise<EmbeddingStatus> {
  const [row] = await db<EmbeddingStatus[]>`
    select count(*) filter (where not expired)::int as live,
      count(*) filter (where not expired and embedding_model is distinct from ${model})::int as live_pending,
      count(*) filter (where embedding_model = ${model})::int as done,
      count(*) filter (where embedding_model is distinct from ${model})::int as pending,
      count(*) filter (where embedded_at > now() - interval '1 minute' and embedding_model = ${model})::int as last_minute,
      count(*) filter (where embedded_at > now() - interval '5 minutes' and embedding_model = ${model})::int as last_5_minutes
    from jobs`
  return row
}

/** How many of these duplicate groups' jobs have no vector. */
export async function countUnembedded(db: Db, md5Hashes: string[]) {
  if (md5Hashes.length === 0) return 0
  const [{ n }] = await db<{ n: number }[]>`
    select count(*)::int as n from jobs where md5_hash = any(${md5Hashes}) and embedding is null`
  return n
}

/** Which of these text hashes the cache holds for the model. */
export async function findCachedHashes(db: Db, model: number, hashes: string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set()
  const rows = await db<{ sha: string }[]>`
    select encode(text_sha256, 'hex') as sha from embedding_cache
    where model_id = ${model} and text_sha256 in (select decode(h, 'hex') from unnest(${hashes}::text[]) as h)`
  return new Set(rows.map((r) => r.sha))
}

/** Stores vectors by text hash; a hash already cached keeps its vector. */
export async function insertCachedEmbeddings(db: Db, model: number, rows: { sha: string; vector: string }[]) {
  if (rows.length === 0) return
  await db`
    insert into embedding_cache (model_id, text_sha256, embedding)
    select ${model}, decode(t.sha, 'hex'), t.vector::vector
    from unnest(${rows.map((r) => r.sha)}::text[], ${rows.map((r) => r.vector)}::text[]) as t (sha, vector)
    on conflict on constraint embedding_cache_pkey do nothing`
}

/**
 * Gives each job the normalized sum of the cached vectors of its two texts (its title's
 * and its body's: ingest/embed/job-text.ts), and the model, in one statement; a job
 * whose texts are not both cached is left out. The sum of two unit vectors points
 * halfway between them, so a query's cosine with it weighs the title and the body alike.
 * A job rewritten since it was read (its updated_at moved on) is left for the next run:
 * its texts are no longer the ones hashed. Returns the ids written. Versions travel as
 * text: the driver would send a timestamptz parameter through a JavaScript Date, which
 * drops the microseconds.
 */
export async function updateJobEmbeddingsFromCache(db: Db, model: number, jobs: { id: string; version: string; title: string; body: string }[]) {
  if (jobs.length === 0) return []
  // the jobs written are recorded for vsearch saved searches in the same statement (sql/saved-searches.ts)
  const rows = await db<{ id: string }[]>`
    with written as (
      update jobs j set embedding = l2_normalize(ct.embedding + cb.embedding), embedding_model = ${model}, embedded_at = now()
      from unnest(
        ${jobs.map((j) => j.id)}::bigint[], ${jobs.map((j) => j.version)}::text[], ${jobs.map((j) => j.title)}::text[], ${jobs.map((j) => j.body)}::text[]
      ) as t (id, version, title, body)
      join embedding_cache ct on ct.model_id = ${model} and ct.text_sha256 = decode(t.title, 'hex')
      join embedding_cache cb on cb.model_id = ${model} and cb.text_sha256 = decode(t.body, 'hex')
      where j.id = t.id and j.updated_at = t.version::timestamptz
      returning j.id
    ), inbox as (
      insert into saved_search_inbox (type, job_ids)
      select 'job.vector', array_agg(id order by id) from written
      having count(*) > 0 and exists (select 1 from saved_searches where status <> 'disabled' and kind = 'vsearch' and 'job.new' = any(events))
    )
    select id::text from written`
  return rows.map((r) => r.id)
}

/** Every cached vector of a model, by text hash (for the shipped demo vectors, ingest/embed/demo-vectors.ts). */
export async function listCachedEmbeddings(db: Db, model: number) {
  return db<{ sha: string; vector: string }[]>`
    select encode(text_sha256, 'hex') as sha, embedding::text as vector
    from embedding_cache where model_id = ${model}
    order by text_sha256`
}
