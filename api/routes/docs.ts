/** Placeholder until the OpenAPI generator lands: serves the document and the reference page. */
import Router from '@koa/router'

export function docsRoutes() {
  const router = new Router()
  return router
}
