/** Health, metrics, this documentation and the download links in the OpenAPI document. */
import { ref } from '../schemas/responses.ts'
import { json, type RouteDoc } from './route-doc.ts'

export const serviceRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/healthz',
    summary: 'Health check',
    description: '200 `{"status": "ok"}` once the service can serve; 503 `{"status": "starting", "stage": ...}` before. Answers while every other route is 503.',
    tags: ['Service'],
    auth: 'none',
    response: 'Healthz',
    responses: {
      503: { description: 'Starting: the schema or demo data is not ready yet', content: json(ref('Healthz'), { example: { status: 'starting', stage: 'demo data' } }) },
    },
  },
  {
    method: 'get',
    path: '/readyz',
    summary: 'Readiness check',
    description:
      'For a load balancer or a Kubernetes readinessProbe (docs/operations.md). 200 `{"status": "ready"}` only when the process has started and is not stopping, ' +
      'the database answers within 900 ms, and every migration this build ships is applied; otherwise 503 `{"status": "not ready", "reason": ...}`. ' +
      '`/healthz` is the liveness check: it does not ask the database.',
    tags: ['Service'],
    auth: 'none',
    response: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ready'] } } },
    responses: {
      503: {
        description: 'Not ready: starting, stopping, the database does not answer, or a migration is pending',
        content: json(
          { type: 'object', required: ['status', 'reason'], properties: { status: { type: 'string', enum: ['not ready'] }, reason: { type: 'string' } } },
          { example: { status: 'not ready', reason: 'stopping' } },
        ),
      },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics',
    description:
      'Served only with `METRICS=1` (otherwise 404). With `METRICS_TOKEN` set it needs `Authorization: Bearer <METRICS_TOKEN>` and answers 401 without it. ' +
      'The Prometheus text format (0.0.4): request durations by route and status, admissions by outcome, request queues, pg-boss jobs, open tasks, ' +
      'the embedding backlog, database sessions, and the process series; every one is listed in docs/operations.md.',
    tags: ['Service'],
    auth: 'none',
    response: { content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } } } },
  },
  {
    method: 'get',
    path: '/v2/openapi.json',
    summary: 'This OpenAPI document',
    tags: ['Service'],
    auth: 'none',
    response: { type: 'object', description: 'An OpenAPI 3.1.0 document' },
  },
  {
    method: 'get',
    path: '/docs',
    summary: 'API reference page',
    description: 'Swagger UI over `/v2/openapi.json`, served from this service (no CDN).',
    tags: ['Service'],
    auth: 'none',
    response: { content: { 'text/html': { schema: { type: 'string' } } } },
  },
  {
    method: 'get',
    path: '/docs/:file',
    summary: 'API reference page assets',
    description: 'The static files of the reference page (scripts, styles, icons). Only files of the bundled Swagger UI are served.',
    tags: ['Service'],
    auth: 'none',
    params: { file: 'A file name, e.g. `swagger-ui-bundle.js`' },
    response: {
      content: {
        'text/javascript': { schema: { type: 'string' } },
        'text/css': { schema: { type: 'string' } },
        'image/png': {},
      },
    },
    errors: { 404: 'No such file' },
  },
  {
    method: 'get',
    path: '/v2/downloads/:task_id/:expires/:signature/:filename',
    summary: 'Download an export file',
    description:
      "The link in a finished export task's `result.download_url`, used as given. It needs no API key: the link is signed " +
      '(HMAC-SHA256 over the task id, the expiry and the file name), so it works from a browser or curl, and changing any part of it makes it a 404. ' +
      'CSV exports are `text/csv; charset=utf-8`, JSON and expired-jobs exports newline-delimited JSON (`application/x-ndjson`), sent as an attachment. ' +
      'When files are kept in S3 the answer is a 302 to a presigned S3 URL that lasts minutes (S3_PRESIGN_SECONDS); the link itself stays valid until `result.expiry_time`.',
    tags: ['Tasks'],
    auth: 'none',
    params: {
      task_id: 'The task id',
      expires: 'When the link expires, in Unix seconds',
      signature: 'The link signature (base64url)',
      filename: 'The file name, e.g. `<task_id>.csv`',
    },
    response: { content: { 'text/csv': { schema: { type: 'string' } }, 'application/x-ndjson': { schema: { type: 'string' } } } },
    responseDescription: 'The file (files kept on local disk)',
    errors: {
      404: 'Download not found: the signature does not match, or the task has no finished file',
      410: 'The link or its file expired (the detail says when); export again for a new link',
    },
    responses: {
      302: {
        description: 'Files kept in S3: a redirect to a presigned URL, with Cache-Control: no-store',
        headers: { Location: { description: 'A presigned S3 URL, valid for S3_PRESIGN_SECONDS', schema: { type: 'string', format: 'uri' } } },
      },
    },
  },
]
