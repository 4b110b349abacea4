/**
 * The console: a client of the public /v2 API (docs/console.md). Pages are hash routes
 * (#/usage, #/keys, …), so the server serves one page and two files. The credential
 * lives in this tab's sessionStorage only.
 */
import { api, ApiError, clearSession, kindOf, loadSession, saveSession, type Session } from './api.ts'
import { field, h, notice, render } from './dom.ts'
import { keysPage } from './pages/keys.ts'
import { resumesPage } from './pages/resumes.ts'
import { savedSearchesPage } from './pages/saved-searches.ts'
import { searchPage } from './pages/search.ts'
import { tasksPage } from './pages/tasks.ts'
import { usagePage } from './pages/usage.ts'
import type { PageContext } from './page.ts'

type Page = { hash: string; title: string; keyOnly: boolean; show: (main: HTMLElement, ctx: PageContext) => unknown }

const pages: Page[] = [
  { hash: '#/usage', title: 'Usage', keyOnly: false, show: usagePage },
  { hash: '#/keys', title: 'Keys', keyOnly: true, show: keysPage },
  { hash: '#/search', title: 'Search playground', keyOnly: true, show: searchPage },
  { hash: '#/tasks', title: 'Tasks & downloads', keyOnly: true, show: tasksPage },
  { hash: '#/saved-searches', title: 'Saved searches', keyOnly: true, show: savedSearchesPage },
  { hash: '#/resumes', title: 'Resumes', keyOnly: true, show: resumesPage },
]

const root = document.getElementById('app')!
let current: AbortController | null = null

function signIn() {
  const secret = h('textarea', { rows: 3, autocomplete: 'off', spellcheck: 'false', required: true, 'aria-describedby': 'signin-help' })
  const status = h('div', { 'aria-live': 'polite' })
  const button = h('button', { type: 'submit' }, 'Sign in')
  const form = h(
    'form',
    { class: 'card signin', onsubmit: async (e: Event) => {
      e.preventDefault()
      const value = secret.value.trim()
      if (!value) return
      const session: Session = { kind: kindOf(value), secret: value }
      button.disabled = true
      render(status, notice('info', 'Checking…'))
      try {
        // the usage summary accepts both kinds of credential and costs nothing
        await api(session, 'GET', '/v2/billing/usage/summary')
        saveSession(session)
        if (!location.hash || location.hash === '#/') location.hash = '#/usage'
        show()
      } catch (err) {
        render(status, notice('error', err instanceof ApiError ? err.message : String(err)))
      } finally {
        button.disabled = false
      }
    } },
    h('h1', null, 'Job Data Service console'),
    field('API key or usage-summary token', secret),
    h('p', { id: 'signin-help', class: 'hint' }, 'Kept in this browser tab only (sessionStorage) and sent only to this service. A token (JWT) shows usage only.'),
    button,
    status,
  )
  render(root, h('main', { id: 'main' }, form))
  secret.focus()
}

function show() {
  const session = loadSession()
  current?.abort()
  if (!session) return signIn()
  const page = pages.find((p) => p.hash === location.hash) ?? pages[0]
  const main = h('main', { id: 'main', tabindex: -1 })
  const nav = h(
    'nav',
    { 'aria-label': 'Console' },
    h('ul', null, pages.map((p) =>
      h('li', null, p.keyOnly && session.kind !== 'key'
        ? h('span', { class: 'disabled', title: 'Sign in with an API key for this page' }, p.title)
        : h('a', { href: p.hash, 'aria-current': p === page ? 'page' : undefined }, p.title)),
    )),
  )
  const signOut = h('button', { type: 'button', class: 'link', onclick: () => { clearSession(); location.hash = ''; show() } }, 'Sign out')
  render(root,
    h('a', { class: 'skip', href: '#main', onclick: (e: Event) => { e.preventDefault(); main.focus() } }, 'Skip to content'),
    h('header', null, h('span', { class: 'brand' }, 'Job Data Service'), h('span', { class: 'who' }, session.kind === 'key' ? `key ${session.secret.slice(0, 8)}…` : 'token'), signOut),
    nav,
    main,
  )
  document.title = `${page.title} · Job Data Service console`
  const controller = new AbortController()
  current = controller
  if (page.keyOnly && session.kind !== 'key') {
    render(main, notice('info', 'This page needs an API key: a usage-summary token can read usage only.'))
    return
  }
  render(main, h('h1', null, page.title))
  const body = h('div')
  main.append(body)
  Promise.resolve(page.show(body, { session, signal: controller.signal, go: (hash) => (location.hash = hash) })).catch((err) => {
    if (!controller.signal.aborted) body.prepend(notice('error', err instanceof ApiError ? err.message : String(err)))
  })
}

window.addEventListener('hashchange', show)
show()
