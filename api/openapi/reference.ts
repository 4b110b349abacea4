/** The reference lists in the OpenAPI document. */
import { subindustriesQuery } from '../schemas/reference.ts'
import { type RouteDoc } from './route-doc.ts'

export const referenceRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/v2/jobs/data/categories',
    summary: 'List job categories',
    description: 'Every job category, as `{"categories": string[]}`. Records may also carry `Other`, which is listed last.',
    tags: ['Reference data'],
    auth: 'none',
    ipLimited: true,
    response: 'Categories',
  },
  {
    method: 'get',
    path: '/v2/jobs/data/industries',
    summary: 'List industries',
    description: 'Every industry with its subindustries, as `{"industries": [{"name", "subindustries": string[]}]}`. Order is not significant.',
    tags: ['Reference data'],
    auth: 'none',
    ipLimited: true,
    response: 'Industries',
  },
  {
    method: 'get',
    path: '/v2/jobs/data/subindustries',
    summary: 'List subindustries',
    description:
      'Every subindustry with the industries it belongs to, as `{"subindustries": [{"name", "industries": string[]}]}`, sorted by name. ' +
      'The optional `industry` query narrows the list to one industry; a name not in `GET /v2/jobs/data/industries` is a 422 (`value_error`, with the allowed names in `ctx.allowed`).',
    tags: ['Reference data'],
    auth: 'none',
    ipLimited: true,
    query: subindustriesQuery,
    params: { industry: 'Optional. An industry name from GET /v2/jobs/data/industries, e.g. `Legal`' },
    response: 'Subindustries',
    errors: { 422: 'Unknown industry' },
  },
]
