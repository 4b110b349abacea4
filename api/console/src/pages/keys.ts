/** Keys: the account's live keys, create one (shown once), revoke one after a confirmation. */
import { api, ApiError } from '../api.ts'
import { copy, field, h, notice, render, when } from '../dom.ts'
import type { PageContext } from '../page.ts'

type Key = { id: string; prefix: string; name: string | null; created_at: string; last_used_at: string | null }

export async function keysPage(el: HTMLElement, { session }: PageContext) {
  const status = h('div', { 'aria-live': 'polite' })
  const created = h('div')
  const list = h('div', { class: 'scroll' })
  const name = h('input', { type: 'text', maxlength: 100, required: true, autocomplete: 'off' })
  const form = h('form', { class: 'inline', onsubmit: async (e: Event) => {
    e.preventDefault()
    try {
      const { body } = await api<Key & { api_key: string }>(session, 'POST', '/v2/keys', { name: name.value })
      name.value = ''
      const shown = h('input', { type: 'text', readonly: true, value: body.api_key, class: 'secret', 'aria-label': 'The new key' })
      const copied = h('span', { 'aria-live': 'polite' })
      render(created, h('div', { class: 'card new-key' },
        h('p', null, h('strong', null, `Key “${body.name}” created.`), ' Copy it now: it is not shown again.'),
        shown,
        h('div', { class: 'row' },
          h('button', { type: 'button', onclick: async () => (copied.textContent = (await copy(body.api_key, shown)) ? 'Copied.' : 'Selected: press Ctrl+C.') }, 'Copy'),
          h('button', { type: 'button', class: 'secondary', onclick: () => created.replaceChildren() }, 'Done'),
          copied),
      ))
      shown.focus()
      shown.select()
      render(status)
      await load()
    } catch (err) {
      render(status, notice('error', err instanceof ApiError ? err.message : String(err)))
    }
  } }, field('New key name', name), h('button', { type: 'submit' }, 'Create key'))

  async function revoke(k: Key) {
    if (!window.confirm(`Revoke key “${k.name ?? k.prefix}” (${k.prefix}…)? Calls with it will be refused at once.`)) return
    try {
      await api(session, 'DELETE', `/v2/keys/${encodeURIComponent(k.id)}`)
      await load()
      render(status, notice('ok', `Key ${k.prefix}… revoked.`))
    } catch (err) {
      render(status, notice('error', err instanceof ApiError ? err.message : String(err)))
    }
  }

  async function load() {
    const { body } = await api<{ keys: Key[] }>(session, 'GET', '/v2/keys')
    render(list, h('table', { class: 'keys' },
      h('caption', null, `${body.keys.length} live ${body.keys.length === 1 ? 'key' : 'keys'}`),
      h('thead', null, h('tr', null, ['Name', 'Prefix', 'Created', 'Last used', ''].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', null, body.keys.map((k) => {
        const mine = session.secret.startsWith(k.prefix)
        return h('tr', { 'data-key-id': k.id },
          h('td', null, k.name ?? h('em', null, 'unnamed'), mine ? h('span', { class: 'badge' }, 'in use') : null),
          h('td', null, h('code', null, `${k.prefix}…`)),
          h('td', null, when(k.created_at)),
          h('td', null, when(k.last_used_at)),
          h('td', null, mine
            ? h('small', null, 'Revoke with another key')
            : h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke ${k.name ?? k.prefix}`, onclick: () => revoke(k) }, 'Revoke')),
        )
      })),
    ))
  }

  el.append(form, created, status, list)
  await load()
}
