/**
 * Field accuracy against hand labels: `node --import tsx test/eval/fields.ts [--misses]` (`make eval-fields`).
 *
 * test/fixtures/field-labels.jsonl holds one line per posting of the shared datasets (../shared/datasets,
 * or SHARED_DATASETS), labelled by hand from the raw record (docs/ingest-labels.md gives the rules):
 *   {file, id, location_type, countries, job_type, level}, and for Hacker News comments `company`;
 *   `posting: false` marks a record that is not a job posting (a reply), which ingest must reject;
 *   `reject_ok: true` marks a posting in prose with no header, which ingest may reject instead.
 * `countries` are ISO codes or scope names ("EMEA", "APAC", "LATAM", "Europe"), compared as sets of
 * countries with the union of the posting's location countries and remote countries; an empty list
 * is a remote posting open anywhere (or no place stated).
 * Each record is read through its format's adapter and normalizePosting, as `make ingest` reads it.
 * A labelled posting that ingest rejects counts as wrong on every field. Exits 0 without scoring
 * when the shared files are absent: this is an evaluation, not a test.
 */
import fs from 'node:fs'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { openFeed } from '../../ingest/formats/index.ts'
import { isRejection, normalizePosting } from '../../ingest/normalize.ts'
import type { Posting } from '../../ingest/types.ts'
import { countryCode } from '../../seeds/places/geocode.ts'
import { foldPlace, gazetteer } from '../../seeds/places/gazetteer.ts'

type Label = {
  file: string
  id: string
  posting?: boolean
  reject_ok?: boolean
  location_type?: string | null
  countries?: string[]
  job_type?: string | null
  level?: string | null
  company?: string
}

const here = path.dirname(new URL(import.meta.url).pathname)
const datasets = process.env.SHARED_DATASETS ?? path.resolve(here, '../../../shared/datasets')
const labelFile = path.join(here, '../fixtures/field-labels.jsonl')
const showMisses = process.argv.includes('--misses')
const labels: Label[] = fs.readFileSync(labelFile, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))

const files = [...new Set(labels.map((l) => l.file))]
const absent = files.filter((f) => !fs.existsSync(path.join(datasets, f)))
if (absent.length) {
  console.log(`fields: skipped, the shared datasets are not at ${datasets} (missing ${absent.join(', ')}); set SHARED_DATASETS`)
  process.exit(0)
}

/** The record ids of a JSONL or JSON-array file, in the order the adapters number them (1-based). */
function recordIds(file: string): string[] {
  const text = gunzipSync(fs.readFileSync(file)).toString('utf8')
  const records: { id: unknown }[] = text.trimStart().startsWith('[') ? JSON.parse(text) : text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
  return records.map((r) => String(r.id))
}

/** What ingest makes of each labelled record: the posting, or null when rejected. */
async function normalizedOf(file: string, ids: Set<string>): Promise<Map<string, Posting | null>> {
  const full = path.join(datasets, file)
  const byLine = recordIds(full)
  const out = new Map<string, Posting | null>()
  const { items } = await openFeed(full)
  for await (const item of items) {
    const id = byLine[item.line - 1]
    if (!ids.has(id)) continue
    if (!('raw' in item)) {
      out.set(id, null)
      continue
    }
    const p = normalizePosting(item.raw, { now: new Date('2026-01-01T00:00:00Z') })
    out.set(id, isRejection(p) ? null : p)
  }
  return out
}

/** A label's countries as ISO codes: a country name or code, or a scope the gazetteer knows ("EMEA"). */
function codesOf(tokens: string[]): Set<string> {
  const out = new Set<string>()
  for (const t of tokens) {
    const scope = gazetteer().scopes.get(foldPlace(t))
    if (scope && t.length > 2) scope.forEach((c) => out.add(c))
    else {
      const cc = countryCode(t)
      if (!cc) throw new Error(`label country "${t}" is neither a country nor a scope`)
      out.add(cc)
    }
  }
  return out
}

function postingCodes(p: Posting): Set<string> {
  const names = [...p.locations.map((l) => l.country), ...p.remote_countries].filter((x): x is string => !!x)
  return new Set(names.map((n) => countryCode(n) ?? n))
}

const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x))
const fold = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim()

const got = new Map<string, Posting | null>()
for (const file of files) {
  const ls = labels.filter((l) => l.file === file)
  const s = await normalizedOf(file, new Set(ls.map((l) => l.id)))
  for (const l of ls) {
    if (!s.has(l.id)) throw new Error(`${file}: record ${l.id} not found`)
    got.set(`${file}#${l.id}`, s.get(l.id)!)
  }
}

const FIELDS = ['location_type', 'countries', 'job_type', 'level', 'company'] as const
type Field = (typeof FIELDS)[number]
const SOURCES: [string, (l: Label) => boolean][] = [
  ['all', () => true],
  ['NHS', (l) => l.file.startsWith('nhs')],
  ['remote boards', (l) => l.file.startsWith('remote-boards')],
  ['new-grad', (l) => l.file.startsWith('newgrad')],
]

/** Whether field f of l is right; null when the field is not scored for l. */
function check(l: Label, p: Posting | null, f: Field): { ok: boolean; want: string; have: string } | null {
  if (f === 'company' && l.company === undefined) return null
  const want =
    f === 'countries' ? [...codesOf(l.countries ?? [])].sort().join(',') : f === 'company' ? l.company! : String(l[f] ?? null)
  if (!p) return { ok: false, want, have: 'rejected' }
  const have =
    f === 'countries' ? [...postingCodes(p)].sort().join(',')
    : f === 'location_type' ? String(p.location_type)
    : f === 'job_type' ? String(p.job_type)
    : f === 'level' ? String(p.experience_level)
    : p.company.name
  const ok = f === 'countries' ? sameSet(codesOf(l.countries ?? []), postingCodes(p)) : f === 'company' ? fold(want) === fold(have) : want === have
  return { ok, want, have }
}

const table: string[] = []
const misses: string[] = []
let nonPostings = 0
let nonPostingsLanded = 0
let proseRejected = 0
const stats = new Map<string, { hits: number; n: number }>()
for (const l of labels) {
  const key = `${l.file}#${l.id}`
  const p = got.get(key) ?? null
  if (l.posting === false) {
    nonPostings++
    if (p) {
      nonPostingsLanded++
      misses.push(`MISS ${key} [posting]: not a posting, landed as "${p.job_title}" at "${p.company.name}"`)
    }
    continue
  }
  if (!p && l.reject_ok) {
    proseRejected++
    continue
  }
  for (const f of FIELDS) {
    const r = check(l, p, f)
    if (!r) continue
    for (const [name, has] of SOURCES) {
      if (!has(l)) continue
      const s = stats.get(`${name}|${f}`) ?? { hits: 0, n: 0 }
      s.n++
      if (r.ok) s.hits++
      stats.set(`${name}|${f}`, s)
    }
    if (!r.ok) misses.push(`MISS ${key} [${f}]: want ${r.want}, got ${r.have}${p ? `  (title "${p.job_title}", location_raw "${p.location_raw ?? ''}")` : ''}`)
  }
}

if (showMisses) console.log(misses.join('\n'))
table.push(`\n${labels.length} labelled records: ${nonPostings} not postings (${nonPostingsLanded} landed), ${proseRejected} prose comments rejected (allowed)`)
table.push(`| field | ${SOURCES.map(([n]) => n).join(' | ')} |`, `|---|${SOURCES.map(() => '---|').join('')}`)
for (const f of FIELDS) {
  const cells = SOURCES.map(([n]) => {
    const s = stats.get(`${n}|${f}`)
    return s ? `${(s.hits / s.n).toFixed(2)} (${s.hits}/${s.n})` : '–'
  })
  table.push(`| ${f} | ${cells.join(' | ')} |`)
}
console.log(table.join('\n'))
