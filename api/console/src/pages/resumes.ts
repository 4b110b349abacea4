/** Resumes: upload one, wait for its parse, see the parsed fields and the top job matches, delete it. */
import { api, ApiError } from '../api.ts'
import { field, h, notice, render, when } from '../dom.ts'
import type { PageContext } from '../page.ts'

type Parsed = {
  personal_information?: { data?: { full_name?: string; email?: string; phone_number?: string } }
  skills?: { category: string; details: string[] }[]
  work_experience?: { title?: string; company?: string; start_date?: string; end_date?: string }[]
}
type Resume = { _id: string; status: 'uploaded' | 'parsed'; parse_error: string | null; file_name: string | null; created_at: string; parsed_data: Parsed | null }
type Job = { _id: string; job_title: string; company?: { name?: string }; score?: number }

export async function resumesPage(el: HTMLElement, { session, signal }: PageContext) {
  const status = h('div', { 'aria-live': 'polite' })
  const detail = h('div', { 'aria-live': 'polite' })
  const list = h('div')
  const file = h('input', { type: 'file', accept: '.pdf,.doc,.docx,.txt,.html,application/pdf,text/plain,text/html', required: true })
  const fail = (err: unknown) => render(status, notice('error', err instanceof ApiError ? err.message : String(err)))

  async function open(id: string) {
    render(detail, notice('info', 'Reading the resume…'))
    let r: Resume
    for (;;) {
      r = (await api<Resume>(session, 'GET', `/v2/resumes/${encodeURIComponent(id)}`)).body
      if (r.status === 'parsed' || r.parse_error || signal.aborted) break
      render(detail, h('p', { role: 'status' }, h('progress', { 'aria-label': 'Parsing' }), ' Parsing and embedding…'))
      await new Promise((ok) => setTimeout(ok, 1000))
    }
    if (signal.aborted) return
    const p = r.parsed_data
    const info = p?.personal_information?.data ?? {}
    const matches = h('div', null, notice('info', 'Finding matches…'))
    render(detail, h('section', { class: 'card resume', 'data-resume-id': r._id },
      h('h2', null, info.full_name || r.file_name || 'Resume'),
      r.parse_error ? notice('error', r.parse_error) : null,
      h('dl', null,
        h('dt', null, 'Email'), h('dd', null, info.email || '—'),
        h('dt', null, 'Phone'), h('dd', null, info.phone_number || '—'),
        h('dt', null, 'Skills'), h('dd', null, (p?.skills ?? []).flatMap((s) => s.details).slice(0, 20).join(', ') || '—'),
        h('dt', null, 'Experience'), h('dd', null, h('ul', null, (p?.work_experience ?? []).slice(0, 5).map((w) => h('li', null, `${w.title ?? ''} · ${w.company ?? ''} (${w.start_date ?? '?'}–${w.end_date ?? '?'})`)))),
      ),
      h('h3', null, 'Top job matches'),
      matches,
      h('button', { type: 'button', class: 'danger', onclick: async () => {
        if (!window.confirm('Delete this resume, its parsed data and its file?')) return
        try {
          await api(session, 'DELETE', `/v2/resumes/${encodeURIComponent(r._id)}`)
          render(detail, notice('ok', 'Resume deleted.'))
          await load()
        } catch (err) {
          fail(err)
        }
      } }, 'Delete resume'),
    ))
    if (r.status !== 'parsed') return render(matches, notice('info', 'Not parsed: no matches.'))
    try {
      const { body } = await api<{ jobs: Job[] }>(session, 'POST', '/v2/jobs/vsearch', { search_type: 'resume', artifact_id: r._id, limit: 10 })
      render(matches, body.jobs.length
        ? h('ol', { class: 'jobs matches' }, body.jobs.map((j) => h('li', null, h('strong', null, j.job_title), ` — ${j.company?.name ?? ''} · score ${j.score?.toFixed(3) ?? '—'}`)))
        : h('p', null, 'No matching jobs.'))
    } catch (err) {
      render(matches, notice('error', err instanceof ApiError ? err.message : String(err)))
    }
  }

  async function load() {
    const { body } = await api<{ resumes: Resume[] }>(session, 'GET', '/v2/resumes?limit=20')
    render(list, body.resumes.length
      ? h('ul', { class: 'plain' }, body.resumes.map((r) => h('li', null,
          h('button', { type: 'button', class: 'link', onclick: () => open(r._id).catch(fail) }, r.file_name ?? r._id), ` · ${r.status} · ${when(r.created_at)}`)))
      : h('p', null, 'No stored resumes.'))
  }

  el.append(
    h('form', { class: 'card inline', onsubmit: async (e: Event) => {
      e.preventDefault()
      if (!file.files?.[0]) return
      const form = new FormData()
      form.append('file', file.files[0])
      render(status, notice('info', 'Uploading…'))
      try {
        const { body } = await api<Resume>(session, 'POST', '/v2/resumes', form)
        render(status)
        file.value = ''
        await load()
        await open(body._id)
      } catch (err) {
        fail(err)
      }
    } }, field('Resume file (PDF, DOC, DOCX, text or HTML; up to 5 MB)', file), h('button', { type: 'submit' }, 'Upload')),
    status,
    detail,
    h('h2', null, 'Stored resumes'),
    list,
  )
  await load()
}
