/**
 * Search playground: job search's filters as a form and as JSON, lexical, vector and
 * hybrid (neural) results side by side with rank and score, the units charged, "copy as
 * curl", and an export of the same filters.
 */
import { api, ApiError, type Answer } from '../api.ts'
import { copy, field, fmt, h, notice, render } from '../dom.ts'
import type { PageContext } from '../page.ts'

type Job = { _id: string; job_title: string; company_name?: string; company?: { name?: string }; location_raw?: string | null; score?: number; vector_score?: number; meta?: Record<string, unknown> }
type Page = { jobs: Job[]; total_count: number }

const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean)
const LOCATION_TYPES = ['Remote', 'Hybrid', 'In-Person', 'On-site']
const EXPERIENCE = ['Entry', 'Junior', 'Mid', 'Senior', 'Executive']
const JOB_TYPES = ['Full Time', 'Part Time', 'Contract', 'Contract / Temporary', 'Internship']
const COMPANY_SIZES = ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000', '5001-10000', '10000+']

/** A labelled group of checkboxes; its value is the list of those ticked. */
function checks(legend: string, options: string[]) {
  const boxes = options.map((o) => h('input', { type: 'checkbox', value: o }))
  const el = h('fieldset', { class: 'checks' }, h('legend', null, legend), boxes.map((b, i) => h('label', null, b, ` ${options[i]}`)))
  return { el, value: () => boxes.filter((b) => b.checked).map((b) => b.value) }
}

/** A range of two numbers, as job search takes it ({min, max}); undefined when both are empty. */
function range(min: HTMLInputElement, max: HTMLInputElement) {
  if (!min.value && !max.value) return undefined
  return { min: min.value ? Number(min.value) : null, max: max.value ? Number(max.value) : null }
}

type Mode = { key: 'lexical' | 'vsearch' | 'neural'; title: string; path: string; body: (f: Record<string, unknown>, query: string, limit: number) => Record<string, unknown> }
const modes: Mode[] = [
  { key: 'lexical', title: 'Lexical (search)', path: '/v2/jobs/search', body: (f, _q, limit) => ({ ...f, limit }) },
  { key: 'vsearch', title: 'Vector (vsearch)', path: '/v2/jobs/vsearch', body: (_f, query, limit) => ({ search_type: 'summary', query, limit }) },
  { key: 'neural', title: 'Hybrid (neural-search)', path: '/v2/jobs/neural-search', body: (f, query, limit) => ({ vector: { query }, lexical: f, limit }) },
]

const curlOf = (path: string, body: unknown) =>
  `curl -s -H "x-api-key: $JDS_API_KEY" -H 'content-type: application/json' \\\n  -d '${JSON.stringify(body).replace(/'/g, `'\\''`)}' ${location.origin}${path}`

function scoreOf(mode: Mode['key'], j: Job) {
  const m = (j.meta ?? {}) as Record<string, number | null>
  if (mode === 'lexical') return `score ${typeof m.score === 'number' ? m.score.toFixed(3) : '—'}`
  if (mode === 'vsearch') return `score ${j.score?.toFixed(3) ?? '—'}`
  return `fused ${m.fused_score?.toFixed(4) ?? '—'} · vector #${m.vector_rank ?? '—'} · text #${m.text_rank ?? '—'}`
}

export function searchPage(el: HTMLElement, { session, go }: PageContext) {
  const titles = h('input', { type: 'text', value: 'engineer', autocomplete: 'off' })
  const keywords = h('input', { type: 'text', autocomplete: 'off' })
  const places = h('input', { type: 'text', autocomplete: 'off' })
  const locTypes = checks('Location types', LOCATION_TYPES)
  const days = h('input', { type: 'number', min: 1, max: 3650, inputmode: 'numeric' })
  // the rest of job search's filters, under "More filters"
  const text = () => h('input', { type: 'text', autocomplete: 'off' })
  const num = (max: number) => h('input', { type: 'number', min: 0, max, inputmode: 'numeric' })
  const box = () => h('input', { type: 'checkbox' })
  const more = {
    companyKeywords: text(), companyName: text(), companySlug: text(), jobSlug: text(), categories: text(), industry: text(), subIndustry: text(),
    boards: text(), currency: h('input', { type: 'text', maxlength: 3, autocomplete: 'off' }), datePosted: h('input', { type: 'date' }),
    salaryMin: num(10_000_000), salaryMax: num(10_000_000), yoeMin: num(60), yoeMax: num(60),
    noSalary: box(), includeYoe: box(), visa: box(), hideAgencies: box(), raw: box(),
    sortBy: h('select', null, ['', 'relevance', 'date_posted', 'salary', 'company', 'yoe'].map((v) => h('option', { value: v }, v || 'default'))),
    sortOrder: h('select', null, ['', 'desc', 'asc'].map((v) => h('option', { value: v }, v || 'default'))),
    geoMode: h('select', null, ['', 'auto', 'weak', 'strict', 'box'].map((v) => h('option', { value: v }, v || 'default (auto)'))),
    geoRadius: num(20_000),
    geoUnit: h('select', null, ['', 'mi', 'km', 'degrees'].map((v) => h('option', { value: v }, v || 'default (mi)'))),
  }
  const experience = checks('Experience', EXPERIENCE)
  const jobTypes = checks('Job types', JOB_TYPES)
  const sizes = checks('Company sizes (employees)', COMPANY_SIZES)
  const limit = h('input', { type: 'number', min: 1, max: 100, value: 5, inputmode: 'numeric' })
  const query = h('input', { type: 'text', autocomplete: 'off', placeholder: 'defaults to the titles and keywords' })
  const json = h('textarea', { rows: 8, spellcheck: 'false', class: 'code' })
  const status = h('div', { 'aria-live': 'polite' })
  const results = h('div', { class: 'columns', 'aria-live': 'polite' })

  const fromForm = (): Record<string, unknown> => {
    const f: Record<string, unknown> = {}
    if (list(titles.value).length) f.job_titles = list(titles.value)
    if (list(keywords.value).length) f.keywords = list(keywords.value)
    if (places.value.trim()) f.geo_locations = places.value.split(';').map((p) => p.trim()).filter(Boolean).map((p) => {
      const [city, region, country] = p.split(',').map((x) => x.trim())
      return country ? { city, region, country } : region ? { city, country: region } : { country: city }
    })
    if (locTypes.value().length) f.location_types = locTypes.value()
    if (days.value) f.days_ago = Number(days.value)
    const m = more
    const lists: [string, HTMLInputElement][] = [['company_keywords', m.companyKeywords], ['job_category', m.categories], ['industry', m.industry], ['sub_industry', m.subIndustry], ['job_board', m.boards]]
    for (const [name, input] of lists) if (list(input.value).length) f[name] = list(input.value)
    const texts: [string, HTMLInputElement | HTMLSelectElement][] = [['company_name', m.companyName], ['company_slug', m.companySlug], ['job_slug', m.jobSlug], ['date_posted', m.datePosted], ['sort_by', m.sortBy], ['sort_order', m.sortOrder]]
    for (const [name, input] of texts) if (input.value.trim()) f[name] = input.value.trim()
    if (m.currency.value.trim()) f.currency = m.currency.value.trim().toUpperCase()
    // one geofilter_params object applies to every place
    const geo = { ...(m.geoMode.value ? { mode: m.geoMode.value } : {}), ...(m.geoRadius.value ? { radius: Number(m.geoRadius.value) } : {}), ...(m.geoUnit.value ? { unit: m.geoUnit.value } : {}) }
    if (Object.keys(geo).length) f.geofilter_params = geo
    const salary = range(m.salaryMin, m.salaryMax)
    if (salary) f.salary = salary
    const yoe = range(m.yoeMin, m.yoeMax)
    if (yoe) f.yoe = yoe
    if (experience.value().length) f.experience = experience.value()
    if (jobTypes.value().length) f.job_types = jobTypes.value()
    if (sizes.value().length) f.company_types = sizes.value()
    const flags: [string, HTMLInputElement][] = [['include_no_salary', m.noSalary], ['include_yoe', m.includeYoe], ['visa', m.visa], ['hide_recruiting_agencies', m.hideAgencies], ['return_raw_description', m.raw]]
    // job search takes its flags as the strings "true" and "false" (the spec's body)
    for (const [name, input] of flags) if (input.checked) f[name] = 'true'
    return f
  }
  const sync = () => (json.value = JSON.stringify(fromForm(), null, 2))
  const controls = [titles, keywords, places, days, ...Object.values(more), locTypes.el, experience.el, jobTypes.el, sizes.el]
  for (const c of controls) {
    c.addEventListener('input', sync)
    c.addEventListener('change', sync)
  }
  sync()

  const filters = (): Record<string, unknown> => {
    const parsed = JSON.parse(json.value || '{}')
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the filters JSON must be an object')
    return parsed
  }
  const vectorQuery = () => query.value.trim() || [...list(titles.value), ...list(keywords.value)].join(' ') || 'software engineer'

  async function run(e: Event) {
    e.preventDefault()
    let f: Record<string, unknown>
    try {
      f = filters()
    } catch (err) {
      return render(status, notice('error', `Filters JSON: ${(err as Error).message}`))
    }
    const n = Math.min(100, Math.max(1, Number(limit.value) || 5))
    render(status, notice('info', 'Searching in three modes…'))
    const columns = modes.map((m) => {
      const body = m.body(f, vectorQuery(), n)
      const out = h('section', { class: 'card result', 'data-mode': m.key, 'aria-busy': 'true' }, h('h2', null, m.title), h('p', { class: 'hint' }, 'Running…'))
      const done = api<Page>(session, 'POST', m.path, body).then(
        (a: Answer<Page>) => {
          const copyText = h('textarea', { readonly: true, rows: 4, class: 'code', 'aria-label': `${m.title} as curl` }, curlOf(m.path, body))
          const copied = h('span', { 'aria-live': 'polite' })
          render(out, h('h2', null, m.title),
            h('p', { class: 'meta' }, `${fmt(a.body.total_count)} matches · charged ${fmt(a.body.jobs.length)} units`,
              a.headers.get('platform-usage-total-used') ? ` · meter at ${fmt(Number(a.headers.get('platform-usage-total-used')))}` : ''),
            h('ol', { class: 'jobs' }, a.body.jobs.map((j, i) => h('li', { value: Number((j.meta as { position?: number })?.position ?? i + 1) },
              h('strong', null, j.job_title), ' — ', j.company?.name ?? j.company_name ?? '', h('br'),
              h('small', null, `#${(j.meta as { position?: number })?.position ?? i + 1} · ${scoreOf(m.key, j)}`)))),
            h('details', null, h('summary', null, 'Copy as curl'), copyText,
              h('button', { type: 'button', class: 'secondary', onclick: async () => (copied.textContent = (await copy(copyText.value, copyText)) ? 'Copied.' : 'Selected: press Ctrl+C.') }, 'Copy'), copied),
          )
          out.setAttribute('aria-busy', 'false')
        },
        (err) => {
          render(out, h('h2', null, m.title), notice('error', err instanceof ApiError ? err.message : String(err)))
          out.setAttribute('aria-busy', 'false')
        },
      )
      return { out, done }
    })
    render(results, columns.map((c) => c.out))
    await Promise.all(columns.map((c) => c.done))
    render(status, notice('ok', 'Done: lexical, vector and hybrid results below.'))
  }

  async function exportCsv() {
    try {
      await api<{ id: string }>(session, 'POST', '/v2/jobs/export', { search: { ...filters(), limit: Math.min(5000, Number(limit.value) || 5) }, format: 'csv' })
      go('#/tasks')
    } catch (err) {
      render(status, notice('error', err instanceof ApiError ? err.message : `Filters JSON: ${(err as Error).message}`))
    }
  }

  el.append(
    h('form', { class: 'card', onsubmit: run },
      h('div', { class: 'grid' },
        field('Job titles (comma-separated)', titles),
        field('Keywords (comma-separated)', keywords),
        field('Places (city, region, country; separate places with ;)', places),
        field('Posted within (days)', days),
        field('Results per mode', limit),
        field('Vector query (vsearch, neural-search)', query),
      ),
      locTypes.el,
      h('details', { class: 'more-filters' },
        h('summary', null, 'More filters'),
        h('div', { class: 'grid' },
          field('Company keywords (comma-separated)', more.companyKeywords),
          field('Company name', more.companyName),
          field('Company slug', more.companySlug),
          field('Job slug', more.jobSlug),
          field('Job categories (comma-separated)', more.categories, 'as GET /v2/jobs/data/categories names them'),
          field('Industries (comma-separated)', more.industry),
          field('Sub-industries (comma-separated)', more.subIndustry),
          field('Job boards (comma-separated)', more.boards),
          field('Posted on or after', more.datePosted),
          field('Salary from', more.salaryMin),
          field('Salary up to', more.salaryMax),
          field('Currency (3 letters)', more.currency),
          field('Years of experience from', more.yoeMin),
          field('Years of experience up to', more.yoeMax),
          field('Places: matching', more.geoMode),
          field('Places: radius', more.geoRadius),
          field('Places: radius unit', more.geoUnit),
          field('Sort by', more.sortBy),
          field('Sort order', more.sortOrder),
        ),
        experience.el, jobTypes.el, sizes.el,
        h('div', { class: 'grid' },
          field('Also jobs without a stated salary', more.noSalary),
          field('Also jobs without stated experience', more.includeYoe),
          field('Visa sponsorship only', more.visa),
          field('Hide recruiting agencies', more.hideAgencies),
          field('Raw descriptions', more.raw),
        ),
        h('p', { class: 'hint' }, 'One place setting applies to every place; a list of them, one a place, is set in the JSON below.'),
      ),
      field('Filters as JSON (POST /v2/jobs/search body; edit freely)', json),
      h('div', { class: 'row' },
        h('button', { type: 'submit' }, 'Search all three'),
        h('button', { type: 'button', class: 'secondary', onclick: exportCsv }, 'Export these filters as CSV'),
      ),
    ),
    status,
    results,
  )
}
