/**
 * The demo postings' vectors, shipped with the code (demo-vectors.bin), so that the
 * first `make run` has vector search over its demo data at once. Embedding the 2,000
 * demo postings takes USE lite about 90 s on two cores, longer than the whole first
 * start may take; copying these into the embedding cache takes 2 to 4 s, and the
 * demo ingest then finds every text cached. A text not in the file (the generator
 * or the text recipe changed since it was written) is embedded as usual, only slower;
 * test/embed/demo-vectors.test.ts says when the file needs writing again:
 *   npm run embed -- --write-demo-vectors
 *
 * Format: a header line, "jds-embeddings 1 " and JSON {provider, model_name,
 * model_version, count, dims}, then per text its sha256 (32 bytes) and the first
 * `dims` numbers of its vector as little-endian float16 (the rest are the zero padding).
 * float16 keeps about 3 significant digits, enough that a vector read back has cosine
 * above 0.99999 with the model's own, and halves the file (2 MB for 2,000 texts).
 */
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { fromSql, toSql } from 'pgvector'
import type { Db } from '../../sql/db.ts'
import { insertCachedEmbeddings, listCachedEmbeddings, modelId } from '../../sql/embeddings.ts'
import { batches, toContractVector, type ModelInfo } from './embedder.ts'

export const DEMO_VECTORS = fileURLToPath(new URL('./demo-vectors.bin', import.meta.url))
const MAGIC = 'jds-embeddings 1 '

type Header = ModelInfo & { count: number; dims: number }

// float16 <-> float32, round half up; the vectors' numbers lie in [-1, 1]
const f32 = new Float32Array(1)
const u32 = new Uint32Array(f32.buffer)

function toHalf(v: number): number {
  f32[0] = v
  const x = u32[0]
  const sign = (x >>> 16) & 0x8000
  let exp = ((x >>> 23) & 0xff) - 127 + 15
  let mant = x & 0x7fffff
  if (exp <= 0) {
    if (exp < -10) return sign
    mant = (mant | 0x800000) >>> (1 - exp)
    return sign | ((mant + 0x1000) >>> 13)
  }
  mant += 0x1000
  if (mant & 0x800000) {
    mant = 0
    exp++
  }
  if (exp >= 31) return sign | 0x7c00
  return sign | (exp << 10) | (mant >>> 13)
}

function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1
  const exp = (h >>> 10) & 0x1f
  const mant = h & 0x3ff
  if (exp === 0) return sign * mant * 2 ** -24
  if (exp === 31) return mant ? NaN : sign * Infinity
  return sign * (1 + mant / 1024) * 2 ** (exp - 15)
}

/** Writes the model's whole embedding cache in `db` to `file`; returns how many vectors. */
export async function writeDemoVectors(db: Db, info: ModelInfo, file = DEMO_VECTORS) {
  const rows = (await listCachedEmbeddings(db, await modelId(db, info))).map((r) => ({ sha: r.sha, vector: fromSql(r.vector) as number[] }))
  // the padding every vector shares is not stored
  let dims = 1
  for (const r of rows) for (let d = r.vector.length - 1; d >= dims; d--) if (r.vector[d] !== 0) dims = d + 1
  const header: Header = { provider: info.provider, model_name: info.model_name, model_version: info.model_version, count: rows.length, dims }
  const head = Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`)
  const body = Buffer.alloc(rows.length * (32 + dims * 2))
  rows.forEach((r, i) => {
    const at = i * (32 + dims * 2)
    body.write(r.sha, at, 'hex')
    for (let d = 0; d < dims; d++) body.writeUInt16LE(toHalf(r.vector[d]), at + 32 + d * 2)
  })
  fs.writeFileSync(file, Buffer.concat([head, body]))
  return rows.length
}

/** The file's model and vectors (unit length, 768 numbers) by text hash. */
export function readDemoVectors(file = DEMO_VECTORS): { header: Header; vectors: Map<string, number[]> } {
  const data = fs.readFileSync(file)
  const newline = data.indexOf(10)
  const line = data.subarray(0, newline).toString()
  if (!line.startsWith(MAGIC)) throw new Error(`${file} is not an embeddings file`)
  const header = JSON.parse(line.slice(MAGIC.length)) as Header
  const vectors = new Map<string, number[]>()
  const size = 32 + header.dims * 2
  for (let i = 0, at = newline + 1; i < header.count; i++, at += size) {
    const v = new Array<number>(header.dims)
    for (let d = 0; d < header.dims; d++) v[d] = fromHalf(data.readUInt16LE(at + 32 + d * 2))
    vectors.set(data.toString('hex', at, at + 32), toContractVector(v))
  }
  return { header, vectors }
}

/** Copies the shipped vectors into the embedding cache when they are of this model; returns how many. */
export async function importDemoVectors(db: Db, info: ModelInfo, file = DEMO_VECTORS) {
  if (!fs.existsSync(file)) return 0
  const { header, vectors } = readDemoVectors(file)
  if (header.provider !== info.provider || header.model_name !== info.model_name || header.model_version !== info.model_version) return 0
  const model = await modelId(db, info)
  for (const part of batches([...vectors], 500)) await insertCachedEmbeddings(db, model, part.map(([sha, v]) => ({ sha, vector: toSql(v) })))
  return vectors.size
}
