/**
 * GET /console and its files over HTTP: one page that loads only this origin's script
 * and style sheet under a strict Content-Security-Policy, no key needed, nothing from a
 * CDN, the script under 200 KB gzipped, and no other file served.
 */
import anyTest, { type TestFn } from 'ava'
import { gzipSync } from 'node:zlib'
import { startTestApp, type TestApp } from '../helpers/app.ts'

const test = anyTest as TestFn<TestApp>

test.before(async (t) => {
  Object.assign(t.context, await startTestApp({ embedder: null }))
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

test('/console is one page of this origin\'s files, under a strict CSP, without a key', async (t) => {
  for (const path of ['/console', '/console/']) {
    const res = await t.context.get(path, {})
    t.is(res.status, 200, path)
    t.regex(res.headers.get('content-type') ?? '', /^text\/html/)
    const csp = res.headers.get('content-security-policy') ?? ''
    t.regex(csp, /script-src 'self'/)
    t.regex(csp, /connect-src 'self'/)
    t.regex(csp, /frame-ancestors 'none'/)
    const html = await res.text()
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
    t.deepEqual(urls.map((u) => u.replace(/\?.*/, '')).sort(), ['/console/console.css', '/console/console.js'])
    t.false(/https?:\/\//.test(html), 'no absolute URL: nothing from a CDN')
  }
})

test('the script and style sheet are served with their types, the script under 200 KB gzipped, and it names no other origin', async (t) => {
  const js = await t.context.get('/console/console.js', {})
  t.is(js.status, 200)
  t.regex(js.headers.get('content-type') ?? '', /^text\/javascript/)
  const body = Buffer.from(await js.arrayBuffer())
  const gz = gzipSync(body).length
  t.log(`console.js: ${body.length} bytes, ${gz} gzipped`)
  t.true(gz < 200 * 1024)
  t.false(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/.test(body.toString()), 'no URL but the SVG namespace')
  t.false(/localStorage|document\.cookie/.test(body.toString()), 'the credential stays in sessionStorage')
  const etag = js.headers.get('etag')!
  t.is((await t.context.get('/console/console.js', { 'if-none-match': etag })).status, 304)
  const css = await t.context.get('/console/console.css', {})
  t.is(css.status, 200)
  t.regex(css.headers.get('content-type') ?? '', /^text\/css/)
})

test('no other file is served under /console', async (t) => {
  for (const name of ['index.html', 'build.ts', '..%2Fbuild.ts', 'src', 'main.ts', 'constructor', '__proto__', 'console.js.map']) {
    const res = await t.context.get(`/console/${name}`, {})
    t.is(res.status, 404, name)
    t.deepEqual(await res.json(), { detail: 'Not Found' }, name)
  }
})
