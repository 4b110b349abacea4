/**
 * schema.org JobPosting, as career sites publish it for search engines: JSON-LD objects one per
 * line, in a JSON array or in a document's `@graph`, or HTML pages that embed them in
 * `<script type="application/ld+json">` blocks (one .html file, or a directory of saved pages).
 *
 * Each JobPosting becomes one RawPosting; the pipeline validates and normalizes it as it does the
 * project's own shape, so nothing here cleans titles, reads salary text or resolves places.
 * Nodes of other types (Organization, BreadcrumbList, WebPage …) are not postings, but a posting's
 * `{"@id": …}` references to them (a graph's Organization) are followed, within a page or file.
 *
 * The N of a ReadItem (reported as "line N") is the record a posting came from: the line for JSON
 * lines, the element for a JSON array, the document for top-level documents, and the page in
 * reading order (files sorted by path) for HTML. Postings of one @graph or page share it, and an
 * error for a page names its file.
 */
import fs from 'node:fs'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { Parser } from 'htmlparser2'
import type { ReadItem } from '../read.ts'
import { educationFromText, yoeFromText } from '../transform/experience.ts'
import type { RawCompany, RawPosting } from '../types.ts'
import { isObject, type Adapter, type ReadOptions, type Sample, type Source } from './adapter.ts'
import { boardFromUrl } from './board-name.ts'
import { jsonRecords } from './json-records.ts'

type Node = Record<string, unknown>
/** Nodes with an `@id`, so a posting's references to them can be followed. */
type Graph = { get: (id: string) => Node | undefined }

// Across a file's records, only this many nodes are kept for references from later records (a
// flattened array that lists the Organization before its postings); a record's own references
// always resolve. 100,000 records each with its own Organization would otherwise sit in memory.
const MAX_SHARED = 10_000

// ---------- JSON-LD values ----------

/** The local name of each `@type`: "JobPosting", "schema:JobPosting", "https://schema.org/JobPosting" -> "JobPosting" */
function typesOf(n: Node): string[] {
  return [n['@type']].flat().filter((t): t is string => typeof t === 'string').map((t) => t.replace(/^.*[/:#]/, ''))
}
const isType = (n: Node, type: string) => typesOf(n).includes(type)

/** A node a value refers to: `{"@id": "#org"}` is the graph's node of that id. */
function deref(v: unknown, graph: Graph): unknown {
  if (isObject(v) && typeof v['@id'] === 'string' && Object.keys(v).every((k) => k === '@id' || k === '@type')) return graph.get(v['@id']) ?? v
  return v
}

/** A text value: a string, a number, `{"@value": …}`, a thing's name, or the first of a list. */
function text(v: unknown): string | null {
  if (Array.isArray(v)) {
    for (const x of v) {
      const t = text(x)
      if (t) return t
    }
    return null
  }
  if (typeof v === 'string') return v.trim() || null
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  if (isObject(v)) return text(v['@value'] ?? v.name)
  return null
}

/** Every text value of a field that may be one value or a list. */
function texts(v: unknown): string[] {
  return [v].flat().map(text).filter((t): t is string => t !== null)
}

/** A URL value: a string, or an ImageObject's / a thing's url. */
function urlOf(v: unknown): string | null {
  if (Array.isArray(v)) return urlOf(v[0])
  if (isObject(v)) return text(v.url ?? v.contentUrl ?? v['@id'])
  return text(v)
}

/** An amount: a number or a plain numeric string ("85000", "85,000.50"); anything else is not one. */
function amount(v: unknown): number | null {
  if (isObject(v) && '@value' in v) return amount(v['@value'])
  if (typeof v === 'number') return Number.isFinite(v) ? v : null
  if (typeof v === 'string' && /^\s*(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*$/.test(v)) return Number(v.replace(/,/g, ''))
  return null
}

/** A latitude or longitude as given (number or numeric text); the pipeline checks the range. */
function coordinate(v: unknown): number | string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v
  if (typeof v === 'string' && /^\s*-?\d+(?:\.\d+)?\s*$/.test(v)) return v.trim()
  return undefined
}

/** Drops undefined, null and empty fields, so an absent value stays absent. */
function compact<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null && !(Array.isArray(v) && !v.length))) as T
}

// ---------- finding postings ----------

/** Every node with an `@id` in a JSON-LD value (a document, a graph, a page's blocks). */
function indexIds(v: unknown, into = new Map<string, Node>(), depth = 0): Map<string, Node> {
  if (depth > 8) return into
  if (Array.isArray(v)) for (const x of v) indexIds(x, into, depth + 1)
  else if (isObject(v)) {
    const id = v['@id']
    // a bare reference is not the node; postings are never referenced for their fields
    const bare = Object.keys(v).every((k) => k === '@id' || k === '@type')
    if (typeof id === 'string' && !bare && !isType(v, 'JobPosting')) into.set(id, v)
    for (const x of Object.values(v)) if (typeof x === 'object' && x !== null) indexIds(x, into, depth + 1)
  }
  return into
}

/**
 * The JobPosting nodes written out in a value: the value itself, a list's elements, a document's
 * `@graph`, a page's `mainEntity`, or an ItemList's items. References are not followed here, so a
 * posting named twice (in the graph and as a page's mainEntity) comes out once.
 */
function postingsIn(v: unknown, out: Node[], depth = 0) {
  if (depth > 6) return
  if (Array.isArray(v)) {
    for (const x of v) postingsIn(x, out, depth + 1)
    return
  }
  if (!isObject(v)) return
  if (isType(v, 'JobPosting')) {
    if (!out.includes(v)) out.push(v)
    return
  }
  postingsIn(v['@graph'], out, depth + 1)
  postingsIn(v.mainEntity, out, depth + 1)
  if (isType(v, 'ItemList')) for (const item of [v.itemListElement].flat()) postingsIn(isObject(item) && 'item' in item ? item.item : item, out, depth + 1)
}

/** What a record that holds no posting holds instead, for its error. */
function typesFound(v: unknown): string {
  const found = new Set<string>()
  for (const x of [v].flat()) if (isObject(x)) for (const t of [...typesOf(x), ...[x['@graph']].flat().filter(isObject).flatMap(typesOf)]) found.add(t)
  return found.size ? `found ${[...found].slice(0, 5).join(', ')}` : 'not JSON-LD'
}

// ---------- one posting ----------

type Context = { graph: Graph; options: ReadOptions; pageUrl?: string | null }

// UN/CEFACT unit codes that QuantitativeValue.unitCode uses for pay periods.
const UNIT_CODES: Record<string, string> = { ANN: 'YEAR', HUR: 'HOUR', DAY: 'DAY', WEE: 'WEEK', MON: 'MONTH' }

/**
 * baseSalary as stated: a MonetaryAmount whose value is a number or a QuantitativeValue
 * {value | minValue, maxValue, unitText}. Amounts that are not numbers ("Competitive") go to the
 * free-text `salary`, never into the range.
 * e.g. {"currency": "USD", "value": {"minValue": 120000, "maxValue": 150000, "unitText": "YEAR"}}
 *   -> salary_range {min: 120000, max: 150000, currency: "USD", period: "YEAR"}
 */
function salaryOf(node: Node, graph: Graph): Pick<RawPosting, 'salary_range' | 'salary'> {
  const base = deref([node.baseSalary].flat()[0], graph)
  const fallbackCurrency = text(node.salaryCurrency)
  if (base === undefined || base === null) return {}
  if (!isObject(base)) {
    const n = amount(base)
    return n !== null ? { salary_range: compact({ min: n, max: n, currency: fallbackCurrency }) } : { salary: text(base) ?? undefined }
  }
  const value = deref([base.value].flat()[0], graph)
  const q = isObject(value) && !('@value' in value) ? value : null
  const min = amount(q ? q.minValue ?? q.value : value) ?? amount(base.minValue)
  const max = amount(q ? q.maxValue ?? q.value : value) ?? amount(base.maxValue)
  const unitCode = text(q?.unitCode ?? base.unitCode)
  const period = text(q?.unitText ?? base.unitText) ?? (unitCode ? UNIT_CODES[unitCode.toUpperCase()] : null)
  const currency = text(base.currency) ?? fallbackCurrency
  if (min === null && max === null) {
    const stated = text(q ? q.value : value)
    return stated ? { salary: [currency, stated].filter(Boolean).join(' ') } : {}
  }
  return { salary_range: compact({ min, max, currency, period }) }
}

/**
 * jobLocation (a Place or a list of them) as location objects the pipeline resolves, and a line of
 * text for location_raw. A TELECOMMUTE posting's applicantLocationRequirements are its remote
 * scope: {city: "Remote", country: "United States"} reads as "Remote - United States".
 * e.g. {"address": {"addressLocality": "Austin", "addressRegion": "TX", "addressCountry": "US"}}
 *   -> {city: "Austin", region: "TX", country: "US"}, "Austin, TX, US"
 */
function locationsOf(node: Node, graph: Graph) {
  const locations: unknown[] = []
  const labels: string[] = []
  for (const ref of [node.jobLocation].flat()) {
    const place = deref(ref, graph)
    if (typeof place === 'string' && place.trim()) {
      locations.push(place.trim())
      labels.push(place.trim())
      continue
    }
    if (!isObject(place)) continue
    const address = isType(place, 'PostalAddress') ? place : deref([place.address].flat()[0], graph)
    if (typeof address === 'string' && address.trim()) {
      locations.push(address.trim())
      labels.push(address.trim())
      continue
    }
    const a = isObject(address) ? address : {}
    const city = text(a.addressLocality)
    const region = text(a.addressRegion)
    const country = text(a.addressCountry)
    const geo = deref(place.geo, graph)
    if (city || region || country) {
      locations.push(compact({ city, region, country, lat: isObject(geo) ? coordinate(geo.latitude) : undefined, lng: isObject(geo) ? coordinate(geo.longitude) : undefined }))
      labels.push([city, region, country].filter(Boolean).join(', '))
    } else if (text(place.name)) {
      // a Place with only a name ("Austin, TX"): the pipeline reads it as text
      locations.push(text(place.name))
      labels.push(text(place.name)!)
    }
  }
  const remote = texts(node.jobLocationType).some((t) => /telecommute/i.test(t))
  if (remote) {
    const scope = [node.applicantLocationRequirements].flat().map((r) => deref(r, graph)).filter((r) => text(r))
    for (const r of scope) {
      const name = text(r)!
      locations.push(isObject(r) && !isType(r, 'Country') ? { city: 'Remote', region: name } : { city: 'Remote', country: name })
      labels.push(`Remote - ${name}`)
    }
    if (!scope.length) labels.push('Remote')
  }
  return { locations, location_raw: labels.length ? labels.join('; ') : undefined, location_type: remote ? 'Remote' : undefined }
}

const isSocial = (u: string) => /(?:^|\.)(?:linkedin|twitter|x|facebook|instagram|youtube|github|glassdoor|crunchbase|wikipedia)\.(?:com|org)\b/i.test(hostOf(u))
const hostOf = (u: string) => {
  try {
    return new URL(u).hostname
  } catch {
    return ''
  }
}

/** hiringOrganization (an Organization or its name); `--company` stands in when the posting names none. */
function companyOf(node: Node, ctx: Context): RawCompany | undefined {
  const org = deref([node.hiringOrganization].flat()[0], ctx.graph)
  const name = (isObject(org) ? text(org.name ?? org.legalName) : text(org)) ?? ctx.options.company ?? null
  if (!name) return undefined
  const o = isObject(org) ? org : {}
  const sameAs = texts(o.sameAs)
  return compact({
    name,
    link: text(o.url) ?? sameAs.find((u) => !isSocial(u)) ?? undefined,
    linkedin_link: sameAs.find((u) => /linkedin\.com\/company\//i.test(u)),
    logo: urlOf(o.logo) ?? undefined,
    // the posting's industry is the closest the markup comes to the employer's; unknown ones are dropped
    industries: texts(node.industry),
  })
}

/**
 * An identifier: text, a number, or a PropertyValue whose `value` is the id (its `name` is usually
 * the company's). e.g. {"@type": "PropertyValue", "name": "Acme", "value": "R-10234"} -> "R-10234"
 */
function identifierOf(v: unknown): string | null {
  const first = [v].flat()[0]
  if (isObject(first)) return text(first.value ?? first['@value'] ?? first.propertyID)
  return text(first)
}

/**
 * A description whose markup is itself escaped ("&lt;p&gt;Build …&lt;/p&gt;", as some CMSs
 * write JSON-LD) has one layer of entities taken off, so the pipeline sees the HTML; a description
 * with real tags is left as it is.
 */
function descriptionOf(v: unknown): string | undefined {
  const d = text(v)
  if (!d) return typeof v === 'string' ? v : undefined
  if (/<[a-z!/]/i.test(d) || !/&lt;\/?[a-z][a-z0-9]*(?:\s[^&]*)?&gt;/i.test(d)) return d
  let out = ''
  const parser = new Parser({ ontext: (t) => (out += t) }, { decodeEntities: true })
  parser.end(d)
  return out
}

// schema.org's EducationalOccupationalCredential.credentialCategory values, in the pipeline's words.
const CREDENTIALS: Record<string, string> = {
  'high school': 'High School', 'associate degree': "Associate's Degree", 'bachelor degree': "Bachelor's Degree", 'postgraduate degree': "Master's Degree",
}

/** educationRequirements: a credential's category, or text such as "Bachelor's degree in Computer Science". */
function educationOf(v: unknown, graph: Graph): string | undefined {
  for (const ref of [v].flat()) {
    const e = deref(ref, graph)
    const words = isObject(e) ? text(e.credentialCategory) ?? text(e) : text(e)
    if (!words) continue
    const level = CREDENTIALS[words.toLowerCase()] ?? educationFromText(words)
    if (level) return level
  }
  return undefined
}

/**
 * experienceRequirements: OccupationalExperienceRequirements {monthsOfExperience}, or text
 * ("3+ years of experience with Go"). e.g. {monthsOfExperience: 36} -> {min: 3, max: null}
 */
function experienceOf(v: unknown, graph: Graph): { min: number | null; max: number | null } | undefined {
  for (const ref of [v].flat()) {
    const e = deref(ref, graph)
    const months = isObject(e) ? amount(e.monthsOfExperience) : null
    if (months !== null) return { min: Math.round((months / 12) * 10) / 10, max: null }
    const words = text(e)
    const years = words ? yoeFromText(words) : null
    if (years) return years
  }
  return undefined
}

/**
 * One JobPosting as a RawPosting. The board is the one the posting's link names (boardFromUrl),
 * or "<Company> Careers" for a link-less posting from a company's own pages.
 */
export function jobPostingToRaw(node: Node, ctx: Context): RawPosting {
  const { graph } = ctx
  const url = text(node.url) ?? ctx.pageUrl ?? null
  const company = companyOf(node, ctx)
  const direct = node.directApply === true || text(node.directApply)?.toLowerCase() === 'true'
  const where = locationsOf(node, graph)
  const skills = typeof node.skills === 'string' ? node.skills : texts(node.skills)
  return compact({
    // the board's own id; a posting without one is known by its link, so an edited posting updates in place
    source_id: identifierOf(node.identifier) ?? url,
    job_board: boardFromUrl(url) ?? (company?.name ? `${company.name} Careers` : undefined),
    job_board_link: url,
    application_link: direct ? url : undefined,
    job_title: text(node.title) ?? text(node.name),
    description: descriptionOf(node.description),
    company,
    location_raw: where.location_raw,
    locations: where.locations,
    location_type: where.location_type,
    job_type: texts(node.employmentType),
    ...salaryOf(node, graph),
    date_posted: text(node.datePosted),
    valid_through: text(node.validThrough),
    job_categories: texts(node.occupationalCategory),
    skills: skills.length ? skills : undefined,
    yoe_range: experienceOf(node.experienceRequirements, graph),
    education_level: educationOf(node.educationRequirements, graph),
    // not read by the pipeline today; kept so categorization can weigh the posting's industry
    industry: text(node.industry),
  }) as RawPosting
}

// ---------- JSON-LD files ----------

async function* readJsonLd(source: Source, options: ReadOptions): AsyncGenerator<ReadItem> {
  const shared = new Map<string, Node>()
  for await (const r of jsonRecords(source.open(), source.sample.layout ?? 'document')) {
    if ('error' in r) {
      yield { line: r.n, error: r.error }
      continue
    }
    const own = indexIds(r.value)
    for (const [id, node] of own) if (shared.size < MAX_SHARED || shared.has(id)) shared.set(id, node)
    const graph: Graph = { get: (id) => own.get(id) ?? shared.get(id) }
    const nodes: Node[] = []
    postingsIn(r.value, nodes)
    if (!nodes.length) yield { line: r.n, error: `no schema.org JobPosting in this record (${typesFound(r.value)})` }
    for (const node of nodes) yield { line: r.n, raw: jobPostingToRaw(node, { graph, options }) }
  }
}

// ---------- HTML pages ----------

const PAGE_RE = /\.(?:x?html?)(?:\.gz)?$/i

/** The HTML pages under a directory (any depth, hidden entries skipped), sorted by path. */
export function listPages(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isFile() && PAGE_RE.test(e.name)) out.push(p)
    }
  }
  walk(dir)
  return out.sort()
}

/** The JSON-LD blocks of a page, and its own URL (canonical link or og:url) for postings that omit theirs. */
export function scriptBlocks(html: string): { blocks: string[]; url: string | null } {
  const blocks: string[] = []
  let url: string | null = null
  let block: string | null = null
  const parser = new Parser({
    onopentag(name, attrs) {
      if (name === 'script' && /ld\+json/i.test(attrs.type ?? '')) block = ''
      else if (name === 'link' && /\bcanonical\b/i.test(attrs.rel ?? '') && /^https?:/i.test(attrs.href ?? '')) url ??= attrs.href
      else if (name === 'meta' && attrs.property === 'og:url' && /^https?:/i.test(attrs.content ?? '')) url ??= attrs.content
    },
    ontext(t) {
      if (block !== null) block += t
    },
    onclosetag(name) {
      if (name === 'script' && block !== null) {
        blocks.push(block)
        block = null
      }
    },
  })
  parser.end(html)
  return { blocks, url }
}

/**
 * A block's JSON. Pages wrap it in comments or CDATA, and hand-written blocks put raw line breaks
 * inside strings (invalid JSON that browsers' and Google's parsers accept), so those become spaces
 * on a second try.
 */
function parseBlock(block: string): unknown {
  const body = block.trim().replace(/^(?:<!--|(?:\/\/\s*)?<!\[CDATA\[)/, '').replace(/(?:-->|(?:\/\/\s*)?\]\]>)$/, '')
  try {
    return JSON.parse(body)
  } catch (e) {
    try {
      return JSON.parse(body.replace(/[\u0000-\u001f]+/g, ' '))
    } catch {
      throw e
    }
  }
}

/** The postings of one page, or why it has none. */
function pageItems(html: string, n: number, name: string, options: ReadOptions): ReadItem[] {
  const { blocks, url } = scriptBlocks(html)
  const values: unknown[] = []
  const items: ReadItem[] = []
  blocks.forEach((block, i) => {
    try {
      values.push(parseBlock(block))
    } catch (e) {
      items.push({ line: n, error: `${name}: JSON-LD block ${i + 1} of ${blocks.length}: invalid JSON: ${(e as Error).message}` })
    }
  })
  const graph: Graph = indexIds(values)
  const nodes: Node[] = []
  postingsIn(values, nodes)
  for (const node of nodes) items.push({ line: n, raw: jobPostingToRaw(node, { graph, options, pageUrl: url }) })
  if (!nodes.length && !items.length) items.push({ line: n, error: `${name}: no schema.org JobPosting (${blocks.length ? typesFound(values) : 'no JSON-LD blocks'})` })
  return items
}

async function* readPages(source: Source, options: ReadOptions): AsyncGenerator<ReadItem> {
  if (!fs.statSync(source.file).isDirectory()) {
    const chunks: Buffer[] = []
    for await (const chunk of source.open() as AsyncIterable<Buffer>) chunks.push(chunk)
    yield* pageItems(Buffer.concat(chunks).toString('utf8'), 1, path.basename(source.file), options)
    return
  }
  let n = 0
  for (const file of listPages(source.file)) {
    n++
    const name = path.relative(source.file, file)
    let html: string
    try {
      const bytes = fs.readFileSync(file)
      html = (file.toLowerCase().endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8')
    } catch (e) {
      yield { line: n, error: `${name}: cannot read: ${(e as Error).message}` }
      continue
    }
    yield* pageItems(html, n, name, options)
  }
}

// ---------- detection ----------

const isDirectory = (file: string) => {
  try {
    return fs.statSync(file).isDirectory()
  } catch {
    return false
  }
}
const looksHtml = (s: Sample) => PAGE_RE.test(s.file) || /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html)\b/i.test(s.text)
const hasPosting = (v: unknown) => {
  const out: Node[] = []
  postingsIn(v, out)
  return out.length > 0
}

/**
 * JSON records holding a JobPosting (in a graph too) score 1; a page or a directory of pages with
 * JobPosting JSON-LD in the sample 1, other pages 0.5 (their JSON-LD may lie past the sample, and
 * no other format reads HTML); a JSON document too large for the sample, by its text, 0.8.
 */
function detect(s: Sample): number {
  if (isDirectory(s.file)) return listPages(s.file).length ? (/JobPosting/.test(s.text) ? 1 : 0.9) : 0
  if (!s.layout && looksHtml(s)) return /application\/ld\+json/i.test(s.text) && /JobPosting/.test(s.text) ? 1 : 0.5
  if (s.records.length) return s.records.some(hasPosting) ? 1 : 0
  if (s.layout && /"@context"/.test(s.text) && /"@type"\s*:\s*(?:\[[^\]]*)?"(?:[^"]*[/:#])?JobPosting"/.test(s.text)) return 0.8
  return 0
}

export const schemaOrg: Adapter = {
  name: 'schema-org',
  summary: 'schema.org JobPosting JSON-LD (per line, an array or @graph), or HTML pages embedding it: one .html file or a directory of them',
  detect,
  read: (source, options) => (isDirectory(source.file) || (!source.sample.layout && looksHtml(source.sample)) ? readPages(source, options) : readJsonLd(source, options)),
}
