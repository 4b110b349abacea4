/**
 * Duplicate-merge precision and recall against hand labels:
 * `node --import tsx test/eval/duplicates.ts [--misses]` (`make eval-fields` runs it too).
 *
 * test/fixtures/duplicate-labels.jsonl holds candidate pairs of postings of the shared datasets
 * (../shared/datasets, or SHARED_DATASETS): {a: {file, id}, b: {file, id}, same, kind}. `same` is
 * whether the two are one vacancy, labelled by hand from the raw records (docs/ingest-labels.md):
 * the same employer, role, place and terms, on two boards or posted again; `kind` says how the
 * pair was found (same or cross board, exact or near title). Ingest merges two postings when they
 * normalize to the same duplicate key (md5_hash: company, title, primary place or remote scope,
 * description text), so a pair is predicted merged when their keys are equal.
 * Exits 0 without scoring when the shared files are absent: an evaluation, not a test.
 */
import fs from 'node:fs'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { openFeed } from '../../ingest/formats/index.ts'
import { isRejection, normalizePosting } from '../../ingest/normalize.ts'

type Ref = { file: string; id: string }
type Pair = { a: Ref; b: Ref; same: boolean; kind: string }

const here = path.dirname(new URL(import.meta.url).pathname)
const datasets = process.env.SHARED_DATASETS ?? path.resolve(here, '../../../shared/datasets')
const pairs: Pair[] = fs
  .readFileSync(path.join(here, '../fixtures/duplicate-labels.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l))
const showMisses = process.argv.includes('--misses')

const files = [...new Set(pairs.flatMap((p) => [p.a.file, p.b.file]))]
const absent = files.filter((f) => !fs.existsSync(path.join(datasets, f)))
if (absent.length) {
  console.log(`duplicates: skipped, the shared datasets are not at ${datasets} (missing ${absent.join(', ')}); set SHARED_DATASETS`)
  process.exit(0)
}

/** The record ids of a JSONL or JSON-array file, in the order the adapters number them (1-based). */
function recordIds(file: string): string[] {
  const text = gunzipSync(fs.readFileSync(file)).toString('utf8')
  const records: { id: unknown }[] = text.trimStart().startsWith('[') ? JSON.parse(text) : text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
  return records.map((r) => String(r.id))
}

/** The duplicate key of each wanted record of a file, as `make ingest` computes it; null when rejected. */
async function keysOf(file: string, ids: Set<string>): Promise<Map<string, string | null>> {
  const full = path.join(datasets, file)
  const byLine = recordIds(full)
  const out = new Map<string, string | null>()
  const { items } = await openFeed(full)
  for await (const item of items) {
    const id = byLine[item.line - 1]
    if (!ids.has(id)) continue
    const p = 'raw' in item ? normalizePosting(item.raw, { now: new Date('2026-01-01T00:00:00Z') }) : null
    out.set(id, !p || isRejection(p) ? null : p.md5_hash)
  }
  return out
}

const keys = new Map<string, string | null>()
for (const file of files) {
  const ids = new Set(pairs.flatMap((p) => [p.a, p.b]).filter((r) => r.file === file).map((r) => r.id))
  for (const [id, key] of await keysOf(file, ids)) keys.set(`${file}#${id}`, key)
}

const stats = new Map<string, { tp: number; fp: number; fn: number; tn: number }>()
const misses: string[] = []
for (const p of pairs) {
  const ka = keys.get(`${p.a.file}#${p.a.id}`)
  const kb = keys.get(`${p.b.file}#${p.b.id}`)
  if (ka === undefined || kb === undefined) throw new Error(`record not found: ${p.a.file}#${p.a.id} or ${p.b.file}#${p.b.id}`)
  const merged = ka !== null && ka === kb
  for (const group of ['all', p.kind]) {
    const s = stats.get(group) ?? { tp: 0, fp: 0, fn: 0, tn: 0 }
    if (merged && p.same) s.tp++
    else if (merged) s.fp++
    else if (p.same) s.fn++
    else s.tn++
    stats.set(group, s)
  }
  if (merged !== p.same) misses.push(`MISS ${merged ? 'false merge' : 'not merged'}: ${p.a.file}#${p.a.id} ~ ${p.b.file}#${p.b.id} [${p.kind}]`)
}

if (showMisses) console.log(misses.join('\n'))
const ratio = (n: number, d: number) => (d ? (n / d).toFixed(2) : '–')
console.log(`\n${pairs.length} labelled pairs, ${pairs.filter((p) => p.same).length} the same job`)
console.log('| pairs | n | same job | merged | precision | recall |\n|---|---|---|---|---|---|')
for (const [group, s] of [...stats].sort(([a], [b]) => (a === 'all' ? -1 : b === 'all' ? 1 : a < b ? -1 : 1))) {
  const n = s.tp + s.fp + s.fn + s.tn
  console.log(`| ${group} | ${n} | ${s.tp + s.fn} | ${s.tp + s.fp} | ${ratio(s.tp, s.tp + s.fp)} (${s.tp}/${s.tp + s.fp}) | ${ratio(s.tp, s.tp + s.fn)} (${s.tp}/${s.tp + s.fn}) |`)
}
