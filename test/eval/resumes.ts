/**
 * Field-level precision, recall and F1 of the resume reader + parser.
 *
 *   make eval-resumes                                  the generated corpus (test/resumes/corpus)
 *   make eval-resumes RESUMES=../shared/datasets/resumes   ... and real PDFs scored against DIR/truth.jsonl
 *   node --import tsx test/eval/resumes.ts [--real DIR [--real-only]] [--verbose] [--format pdf|image-pdf|docx|html|text] [--limit N] [--no-cache]
 *
 * The corpus is cached under os.tmpdir(), keyed by a hash of the generator's source, so an
 * edit to truth.ts or render.ts regenerates it and nothing else does. Progress goes to
 * stderr, the tables to stdout. --verbose prints, per file, what was missed.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync, renameSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { closeResumeReaders, readResume } from '../../ingest/resume/read.ts'
import { parseResume } from '../../ingest/resume/parse.ts'
import type { ParsedResume } from '../../ingest/resume/types.ts'
import { generateTruths, DEFAULT_COUNT, DEFAULT_SEED, type TruthResume } from '../resumes/corpus/truth.ts'
import { renderCorpus, UNICODE_FONT_FILE, type Format, type RenderedResume } from '../resumes/corpus/render.ts'
import { addCounts, emptyFieldCounts, formatTable, prf, rangeAlternatives, scoreResume, sumFields, type Expected, type FieldCounts, type FileScore, type Miss } from './resume-score.ts'

const CACHE_VERSION = 1
const here = path.dirname(fileURLToPath(import.meta.url))
const CONCURRENCY = 3

type Meta = Omit<RenderedResume, 'bytes' | 'truth'> & { truthId: string }

function cacheDir(): string {
  const h = createHash('sha256')
  h.update(`v${CACHE_VERSION} ${DEFAULT_COUNT} ${DEFAULT_SEED} ${UNICODE_FONT_FILE}`)
  for (const f of ['truth.ts', 'render.ts']) h.update(readFileSync(path.join(here, '../resumes/corpus', f)))
  return path.join(os.tmpdir(), `resume-corpus-${h.digest('hex').slice(0, 16)}`)
}

/** The generated corpus, from the cache when the generator has not changed. */
async function loadCorpus(useCache: boolean): Promise<RenderedResume[]> {
  const dir = cacheDir()
  const truths = generateTruths()
  const byId = new Map(truths.map((t) => [t.id, t]))
  if (useCache && existsSync(path.join(dir, 'index.json'))) {
    const metas: Meta[] = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8'))
    process.stderr.write(`corpus: ${metas.length} files from ${dir}\n`)
    return metas.map((m) => ({ ...m, truth: byId.get(m.truthId)!, bytes: readFileSync(path.join(dir, m.name)) }))
  }
  const t0 = Date.now()
  const files = await renderCorpus(truths, { onProgress: (d, n) => {
    if (process.stderr.isTTY) process.stderr.write(`\rgenerating corpus ${d}/${n}`)
    else if (d % 50 === 0 || d === n) process.stderr.write(`generating corpus ${d}/${n}\n`)
  } })
  process.stderr.write(` in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`)
  if (useCache) {
    // written to a scratch directory and renamed, so a run killed halfway leaves no half cache
    const tmp = `${dir}.tmp-${process.pid}`
    mkdirSync(tmp, { recursive: true })
    for (const f of files) writeFileSync(path.join(tmp, f.name), f.bytes)
    const metas: Meta[] = files.map(({ bytes: _b, truth, ...m }) => ({ ...m, truthId: truth.id }))
    writeFileSync(path.join(tmp, 'index.json'), JSON.stringify(metas))
    rmSync(dir, { recursive: true, force: true })
    renameSync(tmp, dir)
  }
  return files
}

type Item = { name: string; contentType: string; bytes: Buffer; expected: Expected; format: string; layout: string }
type Result = { item: Item; score: FileScore; error?: string; ocr?: boolean; ms: number; text?: string; parsed?: ParsedResume }

async function evaluate(items: Item[], label: string): Promise<Result[]> {
  const results: Result[] = new Array(items.length)
  let next = 0
  let done = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      const item = items[i]
      const t0 = Date.now()
      let parsed: ParsedResume = { version: 'v1' }
      let error: string | undefined
      let ocr: boolean | undefined
      let text: string | undefined
      try {
        const read = await readResume(item.bytes, item.contentType)
        ocr = read.ocr
        text = read.text
        parsed = parseResume(read.text)
      } catch (e) {
        error = e instanceof Error ? e.message : String(e)
      }
      const score = scoreResume(item.expected, parsed)
      results[i] = { item, score, error, ocr, ms: Date.now() - t0, text, parsed }
      done++
      const f1 = prf(sumFields(score.counts)).f1
      process.stderr.write(`${label} [${done}/${items.length}] ${item.name} F1 ${(100 * f1).toFixed(0)}%${error ? ` ERROR ${error}` : ''} (${Date.now() - t0} ms)\n`)
    }
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker))
  return results
}

function total(results: Result[]): FieldCounts {
  const c = emptyFieldCounts()
  for (const r of results) addCounts(c, r.score.counts)
  return c
}

function groupTable(results: Result[], key: (r: Result) => string, title: string): string {
  const groups = new Map<string, Result[]>()
  for (const r of results) groups.set(key(r), [...(groups.get(key(r)) ?? []), r])
  const rows = [`${title.padEnd(24)} ${'files'.padStart(5)} ${'P'.padStart(6)} ${'R'.padStart(6)} ${'F1'.padStart(6)} ${'errors'.padStart(6)}`]
  for (const [k, rs] of [...groups].sort((a, b) => a[0].localeCompare(b[0]))) {
    const s = prf(sumFields(total(rs)))
    const pct = (x: number) => (100 * x).toFixed(1).padStart(6)
    rows.push(`${k.padEnd(24)} ${String(rs.length).padStart(5)} ${pct(s.precision)} ${pct(s.recall)} ${pct(s.f1)} ${String(rs.filter((r) => r.error).length).padStart(6)}`)
  }
  return rows.join('\n')
}

function describeMiss(m: Miss): string {
  if (m.expected !== undefined && m.got !== undefined) return `${m.field}: expected "${m.expected}", got "${m.got}"`
  if (m.expected !== undefined) return `${m.field}: missed "${m.expected}"`
  return `${m.field}: extra "${m.got}"`
}

function printVerbose(results: Result[]) {
  for (const r of results) {
    if (!r.score.misses.length && !r.error) continue
    console.log(`\n${r.item.name} (${r.item.layout})${r.error ? ` ERROR: ${r.error}` : ''}`)
    for (const m of r.score.misses) console.log(`  ${describeMiss(m)}`)
  }
}

/** DIR/truth.jsonl: file, name, email, phone, titles[], companies[], degrees[], institutions[], skills[], experience[{title, company, location, dates}] */
function loadReal(dir: string): Item[] {
  const lines = readFileSync(path.join(dir, 'truth.jsonl'), 'utf8').split('\n').filter((l) => l.trim())
  return lines.map((l) => {
    const t = JSON.parse(l) as Record<string, unknown>
    const file = String(t.file)
    const list = (k: string) => (Array.isArray(t[k]) ? (t[k] as unknown[]).map(String) : undefined)
    const str = (k: string) => (typeof t[k] === 'string' ? (t[k] as string) : undefined)
    const experience = Array.isArray(t.experience) ? (t.experience as { title?: string; company?: string; dates?: string }[]) : undefined
    const expected: Expected = {
      name: str('name'),
      email: str('email'),
      phone: str('phone'),
      titles: list('titles'),
      companies: list('companies'),
      degrees: list('degrees'),
      institutions: list('institutions'),
      skills: list('skills'),
      work: experience?.map((e) => ({ title: e.title, company: e.company, ...(e.dates ? rangeAlternatives(e.dates) : {}) })),
    }
    const ext = path.extname(file).toLowerCase()
    const contentType = ext === '.pdf' ? 'application/pdf' : ext === '.docx' ? 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' : ext === '.html' || ext === '.htm' ? 'text/html' : ext === '.doc' ? 'application/msword' : 'text/plain'
    return { name: file, contentType, bytes: readFileSync(path.join(dir, file)), expected, format: ext.slice(1), layout: String(t.source ?? 'real') }
  })
}

async function main(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      real: { type: 'string' },
      verbose: { type: 'boolean', short: 'v' },
      format: { type: 'string' },
      limit: { type: 'string' },
      'no-cache': { type: 'boolean' },
      'real-only': { type: 'boolean' },
    },
    strict: true,
  })
  let files = values['real-only'] ? [] : await loadCorpus(!values['no-cache'])
  if (values.format) files = files.filter((f) => f.format === (values.format as Format))
  if (values.limit) files = files.slice(0, Number(values.limit))
  const items: Item[] = files.map((f) => ({ name: f.name, contentType: f.contentType, bytes: f.bytes, expected: f.expected, format: f.format, layout: f.layout }))
  const truths = new Set(files.map((f: { truth: TruthResume }) => f.truth.id))
  try {
    const t0 = Date.now()
    const results = await evaluate(items, 'generated')
    if (results.length) {
    console.log(`\nGenerated corpus: ${results.length} files from ${truths.size} resumes, ${((Date.now() - t0) / 1000).toFixed(1)} s, ${results.filter((r) => r.error).length} read errors`)
    console.log(formatTable(total(results)))
    console.log(`\n${groupTable(results, (r) => r.item.format, 'by format')}`)
    console.log(`\n${groupTable(results, (r) => r.item.layout, 'by layout')}`)
    if (values.verbose) printVerbose(results)
    }

    if (values.real) {
      const real = loadReal(values.real)
      const rr = await evaluate(real, 'real')
      console.log(`\nReal resumes (${values.real}): ${rr.length} files, ${rr.filter((r) => r.error).length} read errors`)
      console.log(formatTable(total(rr)))
      console.log(`\n${groupTable(rr, (r) => r.item.name, 'by file')}`)
      if (values.verbose) printVerbose(rr)
    }
  } finally {
    await closeResumeReaders()
  }
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e)
  process.exitCode = 1
})

