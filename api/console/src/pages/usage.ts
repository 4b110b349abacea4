/** Usage: per meter included, used, remaining and overage, a daily chart, and the rate-limit state. One API call per load. */
import { api } from '../api.ts'
import { fmt, h, when } from '../dom.ts'
import type { PageContext } from '../page.ts'

type Meter = {
  event_name: string; display_name: string; used: number; included: number | null; remaining: number | null; overage_used: number
  overage_mode: string | null; estimated_overage_cents: number; period: string; daily: { date: string; used: number }[]
}
type Summary = { plan_lookup_keys: string[]; subscription_status: string | null; period_start: string | null; period_end: string | null; meters: Meter[] }

/** A bar per day, its value in a title for pointers and in the table beside it for everyone else. */
function chart(m: Meter) {
  const W = 600, H = 120, n = Math.max(1, m.daily.length)
  const max = Math.max(1, ...m.daily.map((d) => d.used))
  const bw = W / n
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg')
  svg.setAttribute('viewBox', `0 0 ${W} ${H + 16}`)
  svg.setAttribute('role', 'img')
  svg.setAttribute('aria-label', `${m.display_name}: units per day`)
  svg.classList.add('chart')
  m.daily.forEach((d, i) => {
    const bh = (d.used / max) * H
    const rect = document.createElementNS('http://www.w3.org/2000/svg', 'rect')
    rect.setAttribute('x', String(i * bw + 1))
    rect.setAttribute('y', String(H - bh))
    rect.setAttribute('width', String(Math.max(1, bw - 2)))
    rect.setAttribute('height', String(Math.max(d.used > 0 ? 1 : 0, bh)))
    const title = document.createElementNS('http://www.w3.org/2000/svg', 'title')
    title.textContent = `${d.date}: ${fmt(d.used)}`
    rect.append(title)
    svg.append(rect)
  })
  for (const [i, anchor] of [[0, 'start'], [n - 1, 'end']] as const) {
    if (!m.daily[i]) continue
    const t = document.createElementNS('http://www.w3.org/2000/svg', 'text')
    t.setAttribute('x', String(i === 0 ? 0 : W))
    t.setAttribute('y', String(H + 14))
    t.setAttribute('text-anchor', anchor)
    t.textContent = m.daily[i].date
    svg.append(t)
  }
  return svg
}

export async function usagePage(el: HTMLElement, { session }: PageContext) {
  el.append(h('p', { class: 'notice info', role: 'status' }, 'Loading…'))
  const t0 = performance.now()
  const { body: s, headers } = await api<Summary>(session, 'GET', '/v2/billing/usage/summary?daily=true')
  const period = s.period_start ? `${when(s.period_start)} to ${when(s.period_end)}` : 'this calendar month (UTC); allowances reset on the 1st'
  const limit = headers.get('x-ratelimit-limit')
  el.replaceChildren(
    h('p', null, `Plan: ${s.plan_lookup_keys.join(', ') || 'legacy'}. Period: ${period}.`),
    h('div', { class: 'scroll' },
      h('table', { class: 'usage' },
        h('caption', null, 'Usage per meter this period'),
        h('thead', null, h('tr', null, ['Meter', 'Included', 'Used', 'Remaining', 'Overage', 'Mode', 'Est. overage'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', null, s.meters.map((m) =>
          h('tr', { 'data-meter': m.event_name },
            h('th', { scope: 'row' }, m.display_name, h('br'), h('code', null, m.event_name)),
            h('td', { 'data-field': 'included' }, fmt(m.included)),
            h('td', { 'data-field': 'used' }, fmt(m.used)),
            h('td', { 'data-field': 'remaining' }, fmt(m.remaining)),
            h('td', { 'data-field': 'overage_used' }, fmt(m.overage_used)),
            h('td', null, m.overage_mode ?? '—'),
            h('td', null, `$${(m.estimated_overage_cents / 100).toFixed(2)}`),
          ))),
      ),
    ),
    h('h2', null, 'Rate limit'),
    limit
      ? h('p', { 'data-ratelimit': '' }, `${fmt(Number(headers.get('x-ratelimit-remaining')))} of ${fmt(Number(limit))} requests left in this window; it resets in ${headers.get('x-ratelimit-reset')} s.`)
      : h('p', null, 'No per-key window applies to this credential.'),
    h('h2', null, 'Daily usage'),
    h('div', { class: 'charts' }, s.meters.filter((m) => m.daily.some((d) => d.used !== 0) || m.event_name === 'm_jobs_api_calls').map((m) =>
      h('figure', null, h('figcaption', null, m.display_name), chart(m),
        h('details', null, h('summary', null, 'As a table'),
          h('table', null, h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Date'), h('th', { scope: 'col' }, 'Units'))),
            h('tbody', null, m.daily.map((d) => h('tr', null, h('td', null, d.date), h('td', null, fmt(d.used)))))))),
    )),
    h('p', { class: 'hint', id: 'usage-timing' }, `1 API call, ${Math.round(performance.now() - t0)} ms.`),
  )
  performance.mark('jds:usage-shown')
}
