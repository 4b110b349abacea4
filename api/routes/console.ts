/**
 * GET /console, the customer console (docs/console.md): one HTML page and the two files
 * of its build (api/console/dist, made by `npm ci`'s prepare script; built in memory on
 * first use where it is missing). No key is needed for the page: it signs in itself and
 * calls only /v2. A strict Content-Security-Policy keeps it to this origin's files.
 */
import Router from '@koa/router'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { buildConsole, distDir, srcDir } from '../console/build.ts'

const FILES = { 'console.js': 'text/javascript; charset=utf-8', 'console.css': 'text/css; charset=utf-8' } as const
type Name = keyof typeof FILES
type Asset = { bytes: Buffer; etag: string }

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/** dist holds every file, none older than a source file (a source edited since the build is built again, in memory). */
function distIsCurrent() {
  if (!Object.keys(FILES).every((n) => existsSync(join(distDir, n)))) return false
  const built = Math.min(...Object.keys(FILES).map((n) => statSync(join(distDir, n)).mtimeMs))
  const sources = readdirSync(srcDir, { recursive: true, encoding: 'utf8' }).map((f) => statSync(join(srcDir, f)).mtimeMs)
  return Math.max(...sources) <= built
}

let loading: Promise<Map<string, Asset>> | undefined
/** The built files, read once from dist, or built now if dist is missing or older than the sources. */
function assets() {
  loading ??= (async () => {
    const files = distIsCurrent() ? new Map(Object.keys(FILES).map((n) => [n, readFileSync(join(distDir, n))])) : await buildConsole()
    return new Map([...files].map(([n, bytes]) => [n, { bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"` }]))
  })()
  loading.catch(() => (loading = undefined))
  return loading
}

export function consoleRoutes() {
  const router = new Router()

  router.get('/console', async (ctx) => {
    const files = await assets()
    const v = (n: Name) => encodeURIComponent(files.get(n)!.etag.slice(1, 9))
    ctx.type = 'text/html; charset=utf-8'
    ctx.set('Content-Security-Policy', CSP)
    ctx.set('Cache-Control', 'no-store')
    ctx.set('Referrer-Policy', 'no-referrer')
    ctx.set('X-Content-Type-Options', 'nosniff')
    ctx.body = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Job Data Service console</title>
<link rel="stylesheet" href="/console/console.css?v=${v('console.css')}">
</head>
<body>
<div id="app"><noscript>The console needs JavaScript.</noscript></div>
<script src="/console/console.js?v=${v('console.js')}" defer></script>
</body>
</html>
`
  })

  router.get('/console/:console_file', async (ctx) => {
    const name = ctx.params.console_file
    if (!Object.hasOwn(FILES, name)) return // errorHandler turns the unset body into 404 {"detail": "Not Found"}
    const file = (await assets()).get(name)!
    ctx.set('ETag', file.etag)
    ctx.set('Cache-Control', 'public, max-age=300')
    ctx.set('X-Content-Type-Options', 'nosniff')
    if (ctx.get('if-none-match') === file.etag) {
      ctx.status = 304
      return
    }
    ctx.type = FILES[name as Name]
    ctx.body = file.bytes
  })

  return router
}
