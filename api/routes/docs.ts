/**
 * GET /v2/openapi.json, the OpenAPI document, and GET /docs, Swagger UI over it. The
 * UI's files come from the swagger-ui-dist package, so the page works offline and
 * without a CDN. No key is needed for either.
 */
import Router from '@koa/router'
import { createReadStream, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, extname, join } from 'node:path'
import { buildOpenApi } from '../openapi/document.ts'

const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.map': 'application/json; charset=utf-8',
}

const distDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

/**
 * The files /docs/:file may serve: the names in swagger-ui-dist's own folder with a
 * type above, listed once. A request is looked up by exact name, so `..`, slashes and
 * anything outside that folder never reach the file system.
 */
const assets = new Set(
  readdirSync(distDir, { withFileTypes: true })
    .filter((f) => f.isFile() && contentTypes[extname(f.name)])
    .map((f) => f.name),
)

/** Replaces the package's initializer, which points at the petstore demo. */
const initializer = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/v2/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  })
}
`

// Absolute asset paths: the page answers at both /docs and /docs/.
const indexHtml = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Job Data Service API</title>
    <link rel="stylesheet" type="text/css" href="/docs/swagger-ui.css" />
    <link rel="stylesheet" type="text/css" href="/docs/index.css" />
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32" />
    <link rel="icon" type="image/png" href="/docs/favicon-16x16.png" sizes="16x16" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="/docs/swagger-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`

export function docsRoutes() {
  const router = new Router()
  let document: string | undefined // built on first request; the routes are fixed at startup

  router.get('/v2/openapi.json', (ctx) => {
    document ??= JSON.stringify(buildOpenApi())
    ctx.type = 'application/json; charset=utf-8'
    ctx.body = document
  })

  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8'
    ctx.body = indexHtml
  })

  router.get('/docs/:file', (ctx) => {
    const name = ctx.params.file
    if (name === 'swagger-initializer.js') {
      ctx.type = contentTypes['.js']
      ctx.body = initializer
      return
    }
    if (!assets.has(name)) return // errorHandler turns the unset body into 404 {"detail": "Not Found"}
    const path = join(distDir, name)
    ctx.type = contentTypes[extname(name)]
    ctx.length = statSync(path).size
    ctx.set('Cache-Control', 'public, max-age=3600')
    ctx.body = createReadStream(path)
  })

  return router
}
