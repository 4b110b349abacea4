/**
 * The email sent when a task with notify: true ends. Each task type describes its
 * message as facts (label, value, optional link) and notes; one renderer turns that
 * into the plain text, which stands on its own, and the HTML, where every value goes
 * through the escaper, since a task's error text can hold anything.
 */
/** The fields of a task row the message reads. */
export type NotifiedTask = {
  id: string
  type: string
  state: string
  result: Record<string, unknown> | null
  error: string | null
  /** what the failure gave back of the creation charge (tasks.refunded_units) */
  refunded_units?: number | null
}

export type MessageOptions = {
  /** the service's base URL (config.publicUrl), for the task's address */
  publicUrl: string
}

type Fact = { label: string; value: string; link?: boolean }
type Content = { subject: string; intro: string; facts: Fact[]; notes: string[] }
type Describe = (task: NotifiedTask, opts: MessageOptions) => Content

type TaskKind = { noun: string; ready: Describe; refundsOnFailure?: boolean; /** the failure note's word for what was charged; default export */ chargedFor?: string }

const kinds: Record<string, TaskKind> = {
  export_job_data: { noun: 'job export', ready: exportReady, refundsOnFailure: true },
  export_expired_jobs: { noun: 'expired-jobs export', ready: exportReady, refundsOnFailure: true },
  export_historical_jobs: { noun: 'historical export', ready: historicalExportReady },
  salary_benchmark: { noun: 'salary benchmark', ready: benchmarkReady, refundsOnFailure: true, chargedFor: 'benchmark' },
}

// a type added later still gets a message that points at its result
const unknownKind: TaskKind = { noun: 'task', ready: taskFinished }

export function taskMessage(task: NotifiedTask, to: string, opts: MessageOptions) {
  const kind = kinds[task.type] ?? unknownKind
  const content = task.state === 'failed' ? taskFailed(task, kind, opts) : kind.ready(task, opts)
  content.notes.push(`This email was sent to ${to} because the request that created task ${task.id} set "notify": true.`)
  return { subject: content.subject, text: renderText(content), html: renderHtml(content) }
}

function exportReady(task: NotifiedTask, opts: MessageOptions): Content {
  const r = task.result ?? {}
  const facts: Fact[] = []
  if (typeof r.record_count === 'number') facts.push({ label: 'Records', value: formatCount(r.record_count) })
  if (typeof r.file_size === 'number') facts.push({ label: 'File size', value: `${formatBytes(r.file_size)} (${formatCount(r.file_size)} bytes)` })
  if (typeof r.download_url === 'string') facts.push({ label: 'Download', value: r.download_url, link: true })
  if (typeof r.expiry_time === 'string') facts.push({ label: 'Link expires', value: formatUtc(r.expiry_time) })
  facts.push({ label: 'Task', value: task.id })
  return {
    subject: 'Your job export is ready',
    intro: task.type === 'export_expired_jobs' ? 'Your export of expired jobs is ready to download.' : 'Your job export is ready to download.',
    facts,
    notes: [
      'Download the file before the link expires; the file is deleted after that.',
      `The same details are in the task: GET ${taskUrl(task, opts)}`,
    ],
  }
}

/** An export's message, with the price quote of the records the file holds. */
function historicalExportReady(task: NotifiedTask, opts: MessageOptions): Content {
  const content = exportReady(task, opts)
  const quote = record(record(task.result).quote)
  if (typeof quote.price_usd === 'number') {
    // whole cents as cents (USD 120.03); a price past 100,000 records may end in a tenth of a cent (USD 1,290.001)
    const mills = Math.round(quote.price_usd * 1000)
    const price = (mills / 1000).toLocaleString('en-US', { minimumFractionDigits: mills % 10 === 0 ? 2 : 3, maximumFractionDigits: 3 })
    content.facts.splice(1, 0, { label: 'Quoted price', value: `USD ${price} (not charged)` })
  }
  return { ...content, subject: 'Your historical export is ready', intro: 'Your export of archived job postings is ready to download.' }
}

function benchmarkReady(task: NotifiedTask, opts: MessageOptions): Content {
  const salary = record(record(task.result).market).salary
  const { p50, count, currency } = record(salary)
  const facts: Fact[] = []
  if (typeof p50 === 'number') facts.push({ label: 'Median salary (p50)', value: [formatCount(p50), typeof currency === 'string' ? currency : ''].join(' ').trim() })
  if (typeof count === 'number') facts.push({ label: 'Salaries sampled', value: formatCount(count) })
  facts.push({ label: 'Task', value: task.id })
  return {
    subject: 'Your salary benchmark report is ready',
    intro: 'Your salary benchmark report is ready.',
    facts,
    notes: [`Read the full report (percentiles, confidence and your proposed range) from GET ${taskUrl(task, opts)} with your API key; it is the task's result.`],
  }
}

function taskFinished(task: NotifiedTask, opts: MessageOptions): Content {
  return {
    subject: 'Your task has finished',
    intro: `Your ${task.type} task has finished.`,
    facts: [{ label: 'Task', value: task.id }],
    notes: [`Read its result from GET ${taskUrl(task, opts)} with your API key.`],
  }
}

function taskFailed(task: NotifiedTask, kind: TaskKind, opts: MessageOptions): Content {
  const notes: string[] = []
  if (kind.refundsOnFailure && task.refunded_units) {
    const one = task.refunded_units === 1
    notes.push(`The ${formatCount(task.refunded_units)} unit${one ? '' : 's'} charged for this ${kind.chargedFor ?? 'export'} ${one ? 'has' : 'have'} been refunded.`)
  }
  notes.push(`The task is at GET ${taskUrl(task, opts)}. You can send the request again to retry.`)
  return {
    subject: `Your ${kind.noun} failed`,
    intro: `Your ${kind.noun} could not be completed.`,
    facts: [
      { label: 'Error', value: task.error || 'unknown error' },
      { label: 'Task', value: task.id },
    ],
    notes,
  }
}

const taskUrl = (task: NotifiedTask, opts: MessageOptions) => `${opts.publicUrl}/v2/tasks/${encodeURIComponent(task.id)}`

function renderText(c: Content) {
  return [c.intro, '', ...c.facts.map((f) => `${f.label}: ${f.value}`), '', ...c.notes, ''].join('\n')
}

function renderHtml(c: Content) {
  const rows = c.facts.map((f) => {
    const value = f.link && isWebUrl(f.value) ? `<a href="${escapeHtml(f.value)}">${escapeHtml(f.value)}</a>` : escapeHtml(f.value)
    return `<tr><th align="left" style="padding-right:1em">${escapeHtml(f.label)}</th><td>${value}</td></tr>`
  })
  return [
    '<!doctype html><html><body>',
    `<p>${escapeHtml(c.intro)}</p>`,
    `<table>${rows.join('')}</table>`,
    ...c.notes.map((n) => `<p>${escapeHtml(n)}</p>`),
    '</body></html>',
  ].join('\n')
}

/** Text for HTML content and double-quoted attribute values. */
export function escapeHtml(s: string) {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)
}

// only http(s) becomes a link: an escaped javascript: URL is still a script link
function isWebUrl(s: string) {
  try {
    const u = new URL(s)
    return u.protocol === 'https:' || u.protocol === 'http:'
  } catch {
    return false
  }
}

/** Decimal units, as file managers and browsers' download bars show them. */
export function formatBytes(n: number) {
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB']
  let i = 0
  let v = n
  while (v >= 999.5 && i < units.length - 1) {
    v /= 1000
    i++
  }
  return i === 0 ? `${n} bytes` : `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`
}

/** "2026-12-20 10:11 UTC"; a value that is not a date is shown as it came. */
export function formatUtc(iso: string) {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

const formatCount = (n: number) => n.toLocaleString('en-US')

const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {})
