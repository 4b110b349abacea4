/**
 * Tasks & downloads: the account's exports and salary benchmarks (GET /v2/tasks), newest
 * first, and any task looked up by id, with state, progress, the download link and its
 * expiry; polled while any is running.
 */
import { api, ApiError, rememberedTasks, rememberTask } from '../api.ts'
import { field, fmt, h, notice, render, when } from '../dom.ts'
import type { PageContext } from '../page.ts'

type Task = {
  id: string; type: string; state: 'queued' | 'processing' | 'finished' | 'failed'; progress: number; error: string | null; created_at: string
  result: { download_url?: string; expiry_time?: string; record_count?: number; file_size?: number; market?: { salary?: Record<string, number | null> } } | null
}

export async function tasksPage(el: HTMLElement, { session, signal }: PageContext) {
  const status = h('div', { 'aria-live': 'polite' })
  const rows = h('div', { class: 'tasks' })
  const lookup = h('input', { type: 'text', autocomplete: 'off', pattern: '[0-9a-fA-F-]{36}' })
  const title = h('input', { type: 'text', autocomplete: 'off', value: 'Software Engineer' })

  const card = (t: Task) => {
    const salary = t.result?.market?.salary
    return h('section', { class: 'card task', 'data-task-id': t.id, 'data-state': t.state },
      h('h2', null, `${t.type.replace(/_/g, ' ')} · `, h('span', { class: `state ${t.state}` }, t.state)),
      h('p', { class: 'hint' }, h('code', null, t.id), ` · started ${when(t.created_at)}`),
      t.state === 'queued' || t.state === 'processing'
        ? h('p', null, h('label', { for: `p-${t.id}` }, 'Progress '), h('progress', { id: `p-${t.id}`, max: 1, value: t.progress }), ` ${Math.round(t.progress * 100)} %`)
        : null,
      t.error ? notice('error', t.error) : null,
      t.result?.download_url
        ? h('p', null, h('a', { href: t.result.download_url, class: 'download', download: '' }, 'Download the file'),
            ` · ${fmt(t.result.record_count)} records · link works until ${when(t.result.expiry_time)}`)
        : null,
      salary ? h('p', null, `Median salary ${fmt(salary.p50)} (${fmt(salary.count)} postings)`) : null,
    )
  }

  async function refresh() {
    // ids looked up by hand first (they may be older than the first page), then the account's latest
    const looked = rememberedTasks()
    const [{ body: page }, extra] = await Promise.all([
      api<{ tasks: Task[]; total_count: number }>(session, 'GET', '/v2/tasks?limit=20'),
      Promise.all(looked.map((id) => api<Task>(session, 'GET', `/v2/tasks/${encodeURIComponent(id)}`).then((a) => a.body, (err) => ({ id, err: err as ApiError })))),
    ])
    const listed = new Set(page.tasks.map((t) => t.id))
    const tasks: (Task | { id: string; err: ApiError })[] = [...extra.filter((t) => !listed.has(t.id)), ...page.tasks]
    if (!tasks.length) return render(rows, h('p', null, 'No tasks yet: start an export from the search playground or a salary benchmark above.'))
    render(rows,
      h('p', { class: 'hint' }, `${fmt(page.total_count)} tasks in all; the latest 20 are shown.`),
      tasks.map((t) => ('err' in t ? h('section', { class: 'card' }, h('code', null, t.id), notice('error', t.err.message)) : card(t))))
    if (tasks.some((t) => !('err' in t) && (t.state === 'queued' || t.state === 'processing')) && !signal.aborted) setTimeout(() => !signal.aborted && refresh().catch(() => {}), 1500)
  }

  el.append(
    h('div', { class: 'row wrap' },
      h('form', { class: 'card inline', onsubmit: async (e: Event) => {
        e.preventDefault()
        rememberTask(lookup.value.trim())
        lookup.value = ''
        await refresh()
      } }, field('Task id', lookup), h('button', { type: 'submit' }, 'Look up')),
      h('form', { class: 'card inline', onsubmit: async (e: Event) => {
        e.preventDefault()
        try {
          await api<Task>(session, 'POST', '/v2/jobs/salary-benchmark', { job_title: title.value })
          render(status)
          await refresh()
        } catch (err) {
          render(status, notice('error', err instanceof ApiError ? err.message : String(err)))
        }
      } }, field('Salary benchmark for a job title', title), h('button', { type: 'submit' }, 'Start')),
    ),
    status,
    rows,
  )
  await refresh()
}
