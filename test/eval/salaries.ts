/**
 * Salary accuracy against hand labels: `node --import tsx test/eval/salaries.ts [--misses]`.
 *
 * test/fixtures/salary-labels.jsonl holds one line per posting, labelled by hand from the raw text
 * of the shared datasets (../shared/datasets, or SHARED_DATASETS): {file, id, stated} and, where
 * pay is stated, {min, max, currency, period} as the posting states it (an open end is null).
 * Batch 1 is the sample the salary rules were developed on; batch 2 (`"batch": 2`) was labelled
 * afterwards and only scored, so its figures show how the rules do on postings they were not tuned to.
 * Each labelled record is read through the format's adapter and normalizePosting, as `make ingest`
 * reads it, and its stored salary is compared field by field. This is an evaluation, not a test:
 * it reads files the tests must not depend on.
 */
import fs from 'node:fs'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { openFeed } from '../../ingest/formats/index.ts'
import { isRejection, normalizePosting } from '../../ingest/normalize.ts'
import type { Salary } from '../../ingest/types.ts'

type Label = { file: string; id: string; stated: boolean; batch?: number; min?: number | null; max?: number | null; currency?: string; period?: string }

const here = path.dirname(new URL(import.meta.url).pathname)
const datasets = process.env.SHARED_DATASETS ?? path.resolve(here, '../../../shared/datasets')
const labels: Label[] = fs
  .readFileSync(path.join(here, '../fixtures/salary-labels.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l))
const showMisses = process.argv.includes('--misses')
const absent = [...new Set(labels.map((l) => l.file))].filter((f) => !fs.existsSync(path.join(datasets, f)))
if (absent.length) {
  console.log(`salaries: skipped, the shared datasets are not at ${datasets} (missing ${absent.join(', ')}); set SHARED_DATASETS`)
  process.exit(0)
}

/** The record ids of a JSONL or JSON-array file, in the order the adapters number them (1-based). */
function recordIds(file: string): string[] {
  const text = gunzipSync(fs.readFileSync(file)).toString('utf8')
  const records: { id: unknown }[] = text.trimStart().startsWith('[') ? JSON.parse(text) : text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
  return records.map((r) => String(r.id))
}

/** The normalized salary of each labelled record of one file, by record id. */
async function salariesOf(file: string, ids: Set<string>): Promise<Map<string, Salary | null>> {
  const full = path.join(datasets, file)
  const byLine = recordIds(full)
  const out = new Map<string, Salary | null>()
  const { items } = await openFeed(full)
  for await (const item of items) {
    const id = byLine[item.line - 1]
    if (!ids.has(id) || !('raw' in item)) continue
    const p = normalizePosting(item.raw, { now: new Date('2026-01-01T00:00:00Z') })
    out.set(id, isRejection(p) ? null : p.salary)
  }
  return out
}

const byFile = new Map<string, Label[]>()
for (const l of labels) byFile.set(l.file, [...(byFile.get(l.file) ?? []), l])
const got = new Map<string, Salary | null>()
for (const [file, ls] of byFile) {
  const s = await salariesOf(file, new Set(ls.map((l) => l.id)))
  for (const l of ls) {
    if (!s.has(l.id)) throw new Error(`${file}: record ${l.id} not found`)
    got.set(`${file}#${l.id}`, s.get(l.id)!)
  }
}

const sameNumber = (a: number | null | undefined, b: number | null | undefined) => ((a ?? null) === null ? (b ?? null) === null : b != null && Math.abs(a! - b) < 0.005)
const fields = ['stated', 'min', 'max', 'currency', 'period'] as const

/** Per-field accuracy on the postings of `set` that state pay, and how many without pay got one. */
function score(set: Label[], name: string) {
  const hits = Object.fromEntries(fields.map((f) => [f, 0])) as Record<(typeof fields)[number], number>
  const stated = set.filter((l) => l.stated)
  let falsePay = 0
  for (const l of set) {
    const s = got.get(`${l.file}#${l.id}`) ?? null
    if (!l.stated) {
      if (s) falsePay++
      if (s && showMisses) console.log(`MISS ${l.file}#${l.id} [stated]: want none, got ${s.min}-${s.max} ${s.currency} ${s.period}`)
      continue
    }
    const ok = {
      stated: s !== null,
      min: s !== null && sameNumber(l.min, s.min),
      max: s !== null && sameNumber(l.max, s.max),
      currency: s !== null && s.currency === l.currency,
      period: s !== null && s.period === l.period,
    }
    for (const f of fields) if (ok[f]) hits[f]++
    const wrong = fields.filter((f) => !ok[f])
    if (wrong.length && showMisses) {
      const have = s ? `${s.min}-${s.max} ${s.currency} ${s.period}` : 'none'
      console.log(`MISS ${l.file}#${l.id} [${wrong.join(',')}]: want ${l.min}-${l.max} ${l.currency} ${l.period}, got ${have}`)
    }
  }
  console.log(`\n${name}: ${set.length} labelled postings, ${stated.length} state pay, ${set.length - stated.length} do not`)
  console.log('| field | accuracy on postings that state pay |\n|---|---|')
  for (const f of fields) console.log(`| ${f} | ${(hits[f] / stated.length).toFixed(2)} (${hits[f]}/${stated.length}) |`)
  console.log(`Postings without pay given a salary anyway: ${falsePay}/${set.length - stated.length}`)
}

// batch 1 is the sample the rules were developed on; batch 2 was labelled afterwards and held out
score(labels, 'All')
for (const batch of [1, 2]) score(labels.filter((l) => (l.batch ?? 1) === batch), batch === 1 ? 'Batch 1 (development)' : 'Batch 2 (held out)')
