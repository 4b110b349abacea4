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
import { createEmbedder } from '../../ingest/embed/create.ts'
import type { Embedder } from '../../ingest/embed/embedder.ts'
import { embedResume } from '../../ingest/resume/embed-resume.ts'
import { closeResumeReaders, readResume } from '../../ingest/resume/read.ts'
import { loadConfig } from '../../sql/config.ts'
import { parseResume } from '../../ingest/resume/parse.ts'
import type { ParsedResume } from '../../ingest/resume/types.ts'
import { generateTruths, DEFAULT_COUNT, DEFAULT_SEED, type TruthResume } from '../resumes/corpus/truth.ts'
import { renderCorpus, UNICODE_FONT_FILE, type Format, type RenderedResume } from '../resumes/corpus/render.ts'
import { addCounts, emptyFieldCounts, formatTable, prf, rangeAlternatives, scoreResume, sumFields, type Alternatives, type Expected, type FieldCounts, type FieldKey, type FileScore, type Miss } from './resume-score.ts'

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

type Item = { name: string; contentType: string; bytes: Buffer; expected: Expected; format: string; layout: string; category?: string }
type Result = { item: Item; score: FileScore; error?: string; ocr?: boolean; ms: number; text?: string; parsed?: ParsedResume; categories?: string[] }

/**
 * A listing category of the resume sites (LiveCareer's "ACCOUNTANT", "HR") -> the job category
 * that is its counterpart. Categories without one (AGRICULTURE, AVIATION, FITNESS) are not scored.
 */
const SITE_CATEGORIES: Record<string, string> = {
  ACCOUNTANT: 'Accounting, Payroll & Financial Planning Jobs', ADVOCATE: 'Legal Jobs', ARTS: 'Arts and Design Jobs',
  AUTOMOBILE: 'Skilled Trade Jobs', BANKING: 'Banking Jobs', 'BUSINESS-DEVELOPMENT': 'Business Development Jobs', CHEF: 'Culinary Jobs',
  CONSTRUCTION: 'Skilled Trade Jobs', CONSULTANT: 'Consulting Jobs', DESIGNER: 'Arts and Design Jobs', 'DIGITAL-MEDIA': 'Media and Communication Jobs',
  ENGINEERING: 'Engineering Jobs', FINANCE: 'Finance Jobs', HEALTHCARE: 'Healthcare Services Jobs', HR: 'Human Resources Jobs',
  'INFORMATION-TECHNOLOGY': 'Information Technology Jobs', 'PUBLIC-RELATIONS': 'Media and Communication Jobs', SALES: 'Sales Jobs', TEACHER: 'Education Jobs',
}

/** truth.jsonl's sources, grouped by the kind of document they are */
const SOURCE_KINDS: Record<string, string> = { 'awesome-cv': 'LaTeX', 'sb2nov-resume': 'LaTeX', 'resumescraper-livecareer': 'LiveCareer', 'resume-corpus-dataset': 'Indeed text' }

/** truth.jsonl's list names -> the scorer's fields, for `partial` */
const PARTIAL_FIELDS: Record<string, FieldKey> = { titles: 'work_title', companies: 'work_company', degrees: 'edu_degree', institutions: 'edu_institution', skills: 'skills' }

async function evaluate(items: Item[], label: string, embedder?: Embedder | null): Promise<Result[]> {
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
      let categories: string[] | undefined
      try {
        const read = await readResume(item.bytes, item.contentType)
        ocr = read.ocr
        text = read.text
        parsed = parseResume(read.text)
        if (embedder && item.category) categories = (await embedResume(parsed, read, embedder)).additional_info.job_categories.map((c) => c.category)
      } catch (e) {
        error = e instanceof Error ? e.message : String(e)
      }
      const score = scoreResume(item.expected, parsed)
      results[i] = { item, score, error, ocr, ms: Date.now() - t0, text, parsed, categories }
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

/** Top-1 and top-3 accuracy of additional_info.job_categories against the files' listing categories, per source. */
function categoryTable(results: Result[]): string {
  const rows = [`${'category'.padEnd(28)} ${'files'.padStart(5)} ${'top-1'.padStart(7)} ${'top-3'.padStart(7)}`]
  const scored = results.filter((r) => r.item.category)
  const sources = [...new Set(scored.map((r) => r.item.layout))].sort()
  for (const src of sources) {
    const rs = scored.filter((r) => r.item.layout === src)
    const top1 = rs.filter((r) => r.categories?.[0] === r.item.category).length
    const top3 = rs.filter((r) => r.categories?.includes(r.item.category!)).length
    rows.push(`${src.padEnd(28)} ${String(rs.length).padStart(5)} ${`${top1}`.padStart(3)} ${(top1 / rs.length).toFixed(2)} ${`${top3}`.padStart(3)} ${(top3 / rs.length).toFixed(2)}`)
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
    const list = (k: string) => (Array.isArray(t[k]) ? (t[k] as unknown[]).map((x): Alternatives => (Array.isArray(x) ? x.map(String) : String(x))) : undefined)
    const flat = (k: string) => list(k)?.map((x) => (Array.isArray(x) ? x[0] : x))
    // skills count for recall only
    const partial = [...new Set([...(Array.isArray(t.partial) ? (t.partial as string[]) : []), 'skills'])].map((k) => PARTIAL_FIELDS[k]).filter(Boolean)
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
      skills: flat('skills'),
      partial,
      // truth.jsonl lists each title, company, degree and school once, however often the resume repeats it
      distinct: true,
      work: experience?.map((e) => ({ title: e.title, company: e.company, ...(e.dates ? rangeAlternatives(e.dates) : {}) })),
    }
    const ext = path.extname(file).toLowerCase()
    const contentType = ext === '.pdf' ? 'application/pdf' : ext === '.docx' ? 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' : ext === '.html' || ext === '.htm' ? 'text/html' : ext === '.doc' ? 'application/msword' : 'text/plain'
    const category = typeof t.category === 'string' ? SITE_CATEGORIES[t.category] : undefined
    return { name: file, contentType, bytes: readFileSync(path.join(dir, file)), expected, format: ext.slice(1), layout: SOURCE_KINDS[String(t.source)] ?? String(t.source ?? 'real'), category }
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
      'no-categories': { type: 'boolean' },
    },
    strict: true,
  })
  let files = values['real-only'] ? [] : await loadCorpus(!values['no-cache'])
  if (values.format) files = files.filter((f) => f.format === (values.format as Format))
  if (values.limit) files = files.slice(0, Number(values.limit))
  const items: Item[] = files.map((f) => ({ name: f.name, contentType: f.contentType, bytes: f.bytes, expected: f.expected, format: f.format, layout: f.layout }))
  const truths = new Set(files.map((f: { truth: TruthResume }) => f.truth.id))
  let embedder: Embedder | null = null
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
      // the job categories need the configured model (EMBEDDING_PROVIDER, `use` by default)
      embedder = values['no-categories'] ? null : createEmbedder(loadConfig().embedding)
      const rr = await evaluate(real, 'real', embedder)
      console.log(`\nReal resumes (${values.real}): ${rr.length} files, ${rr.filter((r) => r.error).length} read errors`)
      console.log(formatTable(total(rr)))
      console.log(`\n${groupTable(rr, (r) => r.item.layout, 'by source')}`)
      const sources = [...new Set(rr.map((r) => r.item.layout))].sort()
      for (const src of sources) console.log(`\n${src}\n${formatTable(total(rr.filter((r) => r.item.layout === src)))}`)
      if (embedder) console.log(`\n${categoryTable(rr)}`)
      if (values.verbose) console.log(`\n${groupTable(rr, (r) => r.item.name, 'by file')}`)
      if (values.verbose) printVerbose(rr)
    }
  } finally {
    await closeResumeReaders()
    await embedder?.close()
  }
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e)
  process.exitCode = 1
})

