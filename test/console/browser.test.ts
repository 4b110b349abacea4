/**
 * The console in a real browser (playwright-core driving the machine's Chromium) against
 * the real server, in order: sign in; search in all three modes; start an export and
 * download its file; upload a resume and see its matches; create a key, revoke it and see
 * a call with it refused; the usage page's numbers equal GET /v2/billing/usage/summary.
 * Also: 375 px wide without sideways scrolling, and first paint, time to interactive and
 * the usage page's API calls per load, measured in the browser.
 *
 * Skipped, saying why, where no Chromium is found (CHROMIUM_PATH, else chromium or
 * chromium-browser on PATH; `apt-get install -y chromium`). Screenshots of each page go
 * to CONSOLE_SCREENSHOTS (`make console-screenshots` sets docs/console), else a temporary
 * directory: test artefacts, not committed.
 */
import anyTest, { type TestFn } from 'ava'
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { ingest } from '../../ingest/pipeline.ts'
import { startTestApp, testEmbedder, type TestApp } from '../helpers/app.ts'
import { rawPosting, readItems } from '../helpers/factories.ts'
import { textFile } from '../helpers/resume-files.ts'

function findChromium(): string | null {
  if (process.env.CHROMIUM_PATH) return existsSync(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : null
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const found = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim()
      if (found) return found
    } catch {}
  }
  return null
}

const executablePath = findChromium()
type Ctx = TestApp & { browser: Browser; page: Page; shots: string; dir: string }
const test = anyTest as TestFn<Ctx>
const serial = executablePath ? test.serial : test.serial.skip
if (!executablePath) console.log('test/console/browser.test.ts: skipped: no Chromium found (set CHROMIUM_PATH, or apt-get install -y chromium)')

/** Download links name PUBLIC_URL; the browser is sent from it to the test server. */
const PUBLIC = 'http://downloads.jds.test'
const generous = { limit: 100_000, windowSeconds: 60 }

test.before(async (t) => {
  if (!executablePath) return
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-console-'))
  const app = await startTestApp({
    tasks: true,
    config: { publicUrl: PUBLIC, downloadsDir: path.join(dir, 'downloads'), rateLimits: { key: generous, search: generous, anonymous: generous }, resumes: { llm: null, readTimeoutMs: 120_000 } },
  })
  const postings = [
    rawPosting({ job_title: 'Senior Backend Engineer (Python, Go)', description: '<p>Payments platform: Python, Go, PostgreSQL, Kafka.</p>' }, 1),
    rawPosting({ job_title: 'Frontend Engineer', description: '<p>TypeScript and accessible interfaces.</p>' }, 2),
    rawPosting({ job_title: 'Data Engineer', description: '<p>Pipelines in Python and SQL.</p>' }, 3),
    rawPosting({ job_title: 'Registered Nurse, Intensive Care', description: '<p>Night shifts on the ICU ward.</p>' }, 4),
  ]
  await ingest(app.db.sql, readItems(postings), { source: 'console-test', now: new Date(), embedder: testEmbedder() })
  // a saved search with a failed delivery, for the saved-searches page (.invalid never resolves: no delivery leaves the machine)
  const [saved] = await app.db.sql<{ id: string }[]>`
    insert into saved_searches (account_id, name, kind, filters, compiled, events, webhook_url, secret)
    values (${app.accountId}, 'Backend roles', 'search', '{"job_titles": ["engineer"]}', '{"filters": {}}', '{job.new}', 'https://hooks.example.invalid/jobs', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') returning id::text`
  const [job] = await app.db.sql<{ id: string }[]>`select id::text from jobs limit 1`
  await app.db.sql`insert into webhook_events (saved_search_id, account_id, type, job_ids, status) values (${saved.id}, ${app.accountId}, 'job.new', ${[job.id]}::bigint[], 'failed')`
  const shots = process.env.CONSOLE_SCREENSHOTS ? path.resolve(process.env.CONSOLE_SCREENSHOTS) : path.join(dir, 'screenshots')
  await mkdir(shots, { recursive: true })
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
  await context.route(`${PUBLIC}/**`, async (route) => {
    const response = await route.fetch({ url: route.request().url().replace(PUBLIC, app.base) })
    await route.fulfill({ response })
  })
  const page = await context.newPage()
  Object.assign(t.context, app, { browser, page, shots, dir })
})
test.after.always(async (t) => {
  await t.context?.browser?.close()
  await t.context?.close?.()
  if (t.context?.dir) await rm(t.context.dir, { recursive: true, force: true })
})

const shot = (t: { context: Ctx }, name: string) => t.context.page.screenshot({ path: path.join(t.context.shots, `${name}.png`), fullPage: true })

/** A fresh load of the console (never a same-document hash change) */
async function load(page: Page, url: string) {
  await page.goto('about:blank')
  await page.goto(url)
}

async function signIn(page: Page, base: string, secret: string) {
  await load(page, `${base}/console`)
  // signed out first, whatever an earlier step left
  await page.evaluate(() => sessionStorage.removeItem('jds.console.session'))
  await load(page, `${base}/console`)
  await page.getByLabel('API key or usage-summary token').fill(secret)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

serial('1. sign in with a key: the usage page shows, and the key is in sessionStorage only', async (t) => {
  const { page, base, key } = t.context
  await page.goto(`${base}/console`)
  await shot(t, 'sign-in')
  await signIn(page, base, key)
  await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor()
  await page.locator('tr[data-meter="m_jobs_api_calls"]').waitFor()
  t.is(await page.evaluate(() => localStorage.length), 0)
  t.is(await page.evaluate(() => document.cookie), '')
  t.regex((await page.evaluate(() => sessionStorage.getItem('jds.console.session'))) ?? '', new RegExp(key))
})

serial('2. a search in all three modes shows ranked results with scores and the units charged', async (t) => {
  const { page, base } = t.context
  await page.goto(`${base}/console#/search`)
  await page.getByLabel('Job titles (comma-separated)').fill('engineer')
  await page.getByRole('button', { name: 'Search all three' }).click()
  for (const mode of ['lexical', 'vsearch', 'neural']) {
    const section = page.locator(`section[data-mode="${mode}"][aria-busy="false"]`)
    await section.waitFor({ timeout: 60_000 })
    t.is(await section.locator('.notice.error').count(), 0, `${mode}: ${await section.innerText()}`)
    t.true((await section.locator('ol.jobs li').count()) > 0, mode)
    t.regex(await section.locator('.meta').innerText(), /charged \d+ units/, mode)
  }
  t.regex(await page.locator('section[data-mode="neural"] ol.jobs li').first().innerText(), /fused .* vector #.* text #/)
  t.regex(await page.locator('section[data-mode="lexical"] textarea').inputValue(), /^curl -s -H "x-api-key: \$JDS_API_KEY".*\/v2\/jobs\/search$/s)
  await shot(t, 'search')
})

serial('3. an export started from the playground finishes and its file downloads', async (t) => {
  const { page } = t.context
  await page.getByRole('button', { name: 'Export these filters as CSV' }).click()
  await page.getByRole('heading', { name: 'Tasks & downloads', level: 1 }).waitFor()
  const link = page.locator('section.task[data-state="finished"] a.download')
  await link.waitFor({ timeout: 120_000 })
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()])
  const file = await readFile((await download.path())!, 'utf8')
  t.regex(file.split('\n')[0], /job_title/)
  t.true(file.split('\n').filter(Boolean).length >= 2, 'a header and at least one job')
  await shot(t, 'tasks')
})

serial('4. a resume uploaded is parsed and matched to jobs', async (t) => {
  const { page, base } = t.context
  await page.goto(`${base}/console#/resumes`)
  await page.getByLabel(/Resume file/).setInputFiles({ name: 'maria.txt', mimeType: 'text/plain', buffer: textFile() })
  await page.getByRole('button', { name: 'Upload' }).click()
  const resume = page.locator('section.resume')
  await resume.locator('ol.matches li').first().waitFor({ timeout: 120_000 })
  t.regex(await resume.locator('h2').innerText(), /Maria Gonzalez/)
  t.regex(await resume.innerText(), /maria\.gonzalez@example\.com/)
  t.regex(await resume.locator('ol.matches li').first().innerText(), /Engineer/)
  await shot(t, 'resumes')
})

serial('5. a key created in the console and revoked there is refused', async (t) => {
  const { page, base } = t.context
  await page.goto(`${base}/console#/keys`)
  await page.getByLabel('New key name').fill('browser test')
  await page.getByRole('button', { name: 'Create key' }).click()
  const newKey = await page.getByLabel('The new key').inputValue()
  t.regex(newKey, /^jds_/)
  t.is((await fetch(`${base}/v2/keys`, { headers: { 'x-api-key': newKey } })).status, 200, 'works at once')
  await page.getByRole('button', { name: 'Done' }).click()
  await shot(t, 'keys')
  page.once('dialog', (d) => d.accept())
  await page.getByRole('button', { name: 'Revoke browser test' }).click()
  await page.getByText(/revoked\./).waitFor()
  t.is(await page.getByRole('button', { name: 'Revoke browser test' }).count(), 0, 'the list no longer has it')
  const refused = await fetch(`${base}/v2/keys`, { headers: { 'x-api-key': newKey } })
  t.is(refused.status, 401)
  // and the console shows the API's detail when signing in with it
  await page.getByRole('button', { name: 'Sign out' }).click()
  await signIn(page, base, newKey)
  await page.getByRole('alert').filter({ hasText: '401: Invalid or revoked API key' }).waitFor()
  t.pass()
})

serial('saved searches: the list, its deliveries, and a replay', async (t) => {
  const { page, base, key } = t.context
  await signIn(page, base, key)
  await page.locator('tr[data-meter]').first().waitFor()
  await load(page, `${base}/console#/saved-searches`)
  await page.getByRole('heading', { name: /Backend roles/ }).waitFor()
  await page.getByRole('button', { name: 'Show deliveries' }).click()
  await page.getByRole('cell', { name: 'failed' }).waitFor()
  await page.getByRole('button', { name: 'Replay' }).click()
  await page.getByText('Queued for delivery again.').waitFor()
  await shot(t, 'saved-searches')
  t.pass()
})

serial('6. the usage page\'s numbers equal GET /v2/billing/usage/summary, in one API call', async (t) => {
  const { page, base, key } = t.context
  await signIn(page, base, key)
  await page.locator('tr[data-meter]').first().waitFor()
  const calls: string[] = []
  page.on('request', (r) => { if (new URL(r.url()).pathname.startsWith('/v2/')) calls.push(r.url()) })
  await page.reload()
  await page.locator('tr[data-meter]').first().waitFor()
  t.is(calls.length, 1, `one call per load: ${calls.join(', ')}`)
  const summary = await (await fetch(`${base}/v2/billing/usage/summary`, { headers: { 'x-api-key': key } })).json()
  const num = (s: string) => (s === '—' ? null : Number(s.replace(/,/g, '')))
  for (const m of summary.meters) {
    const row = page.locator(`tr[data-meter="${m.event_name}"]`)
    for (const f of ['included', 'used', 'remaining', 'overage_used']) t.is(num(await row.locator(`td[data-field="${f}"]`).innerText()), m[f], `${m.event_name} ${f}`)
  }
  t.true(summary.meters.find((m: { event_name: string }) => m.event_name === 'm_jobs_api_calls').used > 0, 'the searches above were charged')
  t.regex(await page.locator('[data-ratelimit]').innerText(), /requests left in this window/)
  await shot(t, 'usage')
})

serial('at 375 px wide every page fits without sideways scrolling', async (t) => {
  const { page, base } = t.context
  await page.setViewportSize({ width: 375, height: 800 })
  try {
    for (const hash of ['#/usage', '#/keys', '#/search', '#/tasks', '#/saved-searches', '#/resumes']) {
      await page.goto(`${base}/console${hash}`)
      await page.locator('main h1').waitFor()
      await page.waitForLoadState('networkidle')
      const width = await page.evaluate(() => document.documentElement.scrollWidth)
      t.true(width <= 375, `${hash}: ${width} px`)
    }
    await shot(t, 'usage-375px')
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 })
  }
})

serial('every control has a label, and the pages can be reached by keyboard', async (t) => {
  const { page, base } = t.context
  for (const hash of ['#/keys', '#/search', '#/tasks', '#/resumes']) {
    await page.goto(`${base}/console${hash}`)
    await page.locator('main h1').waitFor()
    await page.waitForLoadState('networkidle')
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll('input, select, textarea')].filter((c) => !(c as HTMLInputElement).labels?.length && !c.getAttribute('aria-label')).map((c) => c.outerHTML))
    t.deepEqual(unlabelled, [], hash)
  }
  await page.goto(`${base}/console#/usage`)
  await page.locator('main h1').waitFor()
  // Tab from the top reaches the navigation; Enter on "Keys" opens that page
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('Tab')
    if ((await page.evaluate(() => document.activeElement?.textContent)) === 'Keys') break
  }
  await page.keyboard.press('Enter')
  await page.getByRole('heading', { name: 'Keys', level: 1 }).waitFor()
  t.pass()
})

serial('measured: first paint and time to interactive on the local server', async (t) => {
  const { page, base } = t.context
  await load(page, `${base}/console#/usage`)
  await page.locator('tr[data-meter]').first().waitFor()
  const m = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming
    const paint = performance.getEntriesByName('first-contentful-paint')[0]
    return { fcp: paint?.startTime ?? null, interactive: nav.domInteractive, loaded: nav.loadEventEnd, dataShown: performance.getEntriesByName('jds:usage-shown').at(-1)?.startTime ?? null }
  })
  t.log(`first contentful paint ${Math.round(m.fcp ?? -1)} ms, DOM interactive ${Math.round(m.interactive)} ms, load ${Math.round(m.loaded)} ms, usage shown ${Math.round(m.dataShown ?? -1)} ms`)
  t.log(`usage page: ${await page.locator('#usage-timing').innerText()}`)
  t.truthy(m.fcp)
  t.truthy(m.dataShown)
})

serial("the playground's form holds job search's filters, and its JSON is the body search is sent", async (t) => {
  const { page, base } = t.context
  await page.goto(`${base}/console#/search`)
  await page.getByLabel('Job titles (comma-separated)').fill('engineer')
  await page.getByText('More filters').click()
  await page.getByLabel('Salary from').fill('1000')
  await page.getByLabel('Currency (3 letters)').fill('usd')
  await page.getByLabel('Company keywords (comma-separated)').fill('acme, globex')
  await page.getByLabel('Senior').check()
  await page.getByLabel('Full Time', { exact: true }).check()
  await page.getByLabel('Remote').check()
  await page.getByLabel('Also jobs without a stated salary').check()
  await page.getByLabel('Sort by').selectOption('date_posted')
  await page.getByLabel('Places (city, region, country; separate places with ;)').fill('Berlin, Germany')
  await page.getByLabel('Places: radius', { exact: true }).fill('40')
  await page.getByLabel('Places: radius unit').selectOption('km')
  const json = JSON.parse(await page.getByLabel('Filters as JSON (POST /v2/jobs/search body; edit freely)').inputValue())
  t.deepEqual(json, {
    job_titles: ['engineer'], geo_locations: [{ city: 'Berlin', country: 'Germany' }], location_types: ['Remote'], company_keywords: ['acme', 'globex'],
    sort_by: 'date_posted', currency: 'USD', geofilter_params: { radius: 40, unit: 'km' },
    salary: { min: 1000, max: null }, experience: ['Senior'], job_types: ['Full Time'], include_no_salary: 'true',
  })
  const sent = page.waitForRequest((r) => r.url().endsWith('/v2/jobs/search') && r.method() === 'POST')
  await page.getByRole('button', { name: 'Search all three' }).click()
  const { limit, ...body } = (await sent).postDataJSON()
  t.deepEqual(body, json)
  t.is(typeof limit, 'number')
  const lexical = page.locator('section[data-mode="lexical"][aria-busy="false"]')
  await lexical.waitFor({ timeout: 60_000 })
  t.is(await lexical.locator('.notice.error').count(), 0, await lexical.innerText())
})
