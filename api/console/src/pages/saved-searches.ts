/** Saved searches and webhooks: the list, status, recent deliveries with their attempts, pause/resume and replay. */
import { api, ApiError } from '../api.ts'
import { h, notice, render, when } from '../dom.ts'
import type { PageContext } from '../page.ts'

type Saved = { id: string; name: string; kind: string; status: string; webhook: { url: string }; created_at: string; last_delivery_at: string | null; failing_since: string | null; disabled_reason: string | null }
type Event = { id: string; type: string; status: string; job_count: number; created_at: string; attempts: { attempted_at: string; status_code: number | null; error: string | null }[] }

export async function savedSearchesPage(el: HTMLElement, { session }: PageContext) {
  const status = h('div', { 'aria-live': 'polite' })
  const list = h('div')
  const fail = (err: unknown) => render(status, notice('error', err instanceof ApiError ? err.message : String(err)))

  async function deliveries(s: Saved, into: HTMLElement) {
    const { body } = await api<{ events: Event[] }>(session, 'GET', `/v2/events?saved_search_id=${encodeURIComponent(s.id)}&limit=20`)
    if (!body.events.length) return render(into, h('p', { class: 'hint' }, 'No deliveries yet.'))
    render(into, h('div', { class: 'scroll' }, h('table', null,
      h('caption', null, 'Recent deliveries'),
      h('thead', null, h('tr', null, ['Event', 'Status', 'Jobs', 'Last attempt', ''].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', null, body.events.map((e) => {
        const last = e.attempts.at(-1)
        return h('tr', null,
          h('td', null, `${e.type} · ${when(e.created_at)}`),
          h('td', null, e.status),
          h('td', null, String(e.job_count)),
          h('td', null, last ? `${when(last.attempted_at)}: ${last.status_code ?? last.error ?? '—'}` : '—'),
          h('td', null, h('button', { type: 'button', class: 'secondary', onclick: async () => {
            try {
              await api(session, 'POST', `/v2/events/${encodeURIComponent(e.id)}/replay`)
              render(status, notice('ok', 'Queued for delivery again.'))
              await deliveries(s, into)
            } catch (err) {
              fail(err)
            }
          } }, 'Replay')),
        )
      })),
    )))
  }

  async function load() {
    const { body } = await api<{ saved_searches: Saved[]; total_count: number }>(session, 'GET', '/v2/saved-searches?limit=100')
    if (!body.saved_searches.length) return render(list, h('p', null, 'No saved searches. Create one with POST /v2/saved-searches (see /docs).'))
    render(list, body.saved_searches.map((s) => {
      const events = h('div')
      const next = s.status === 'active' ? 'paused' : 'active'
      return h('section', { class: 'card', 'data-saved-search-id': s.id },
        h('h2', null, s.name, ' ', h('span', { class: `state ${s.status}` }, s.status)),
        h('p', { class: 'hint' }, `${s.kind} · webhook ${s.webhook.url} · last delivery ${when(s.last_delivery_at)}`,
          s.failing_since ? ` · failing since ${when(s.failing_since)}` : '', s.disabled_reason ? ` · ${s.disabled_reason}` : ''),
        h('div', { class: 'row' },
          h('button', { type: 'button', class: 'secondary', onclick: () => deliveries(s, events).catch(fail) }, 'Show deliveries'),
          h('button', { type: 'button', class: 'secondary', onclick: async () => {
            try {
              await api(session, 'PATCH', `/v2/saved-searches/${encodeURIComponent(s.id)}`, { status: next })
              await load()
            } catch (err) {
              fail(err)
            }
          } }, next === 'paused' ? 'Pause' : 'Resume'),
        ),
        events,
      )
    }))
  }

  el.append(status, list)
  await load()
}
