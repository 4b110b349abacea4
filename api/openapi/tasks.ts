/** Tasks in the OpenAPI document. */
import { taskListQuery } from '../schemas/tasks.ts'
import { ref } from '../schemas/responses.ts'
import { controlInPath, type RouteDoc } from './route-doc.ts'

export const taskRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/v2/tasks',
    summary: 'List tasks',
    description: 'The calling account\'s tasks (exports and salary benchmarks), newest first, optionally of one `type`. `limit` 1 to 100 (default 20); page × limit at most 10,000.',
    tags: ['Tasks'],
    auth: 'key',
    query: taskListQuery,
    params: { page: 'Page number, from 1', limit: 'Tasks per page, 1 to 100', type: 'Only tasks of this type' },
    response: {
      type: 'object',
      properties: { tasks: { type: 'array', items: ref('Task') }, total_count: { type: 'integer' }, page: { type: 'integer' }, limit: { type: 'integer' }, total_pages: { type: 'integer' } },
      required: ['tasks', 'total_count', 'page', 'limit', 'total_pages'],
      additionalProperties: false,
    },
  },
  {
    method: 'get',
    path: '/v2/tasks/:task_id',
    summary: 'Get a task',
    description: 'A task of the calling account. Another account\'s task, like an unknown or malformed id, is a 404. Poll until `state` is `finished` or `failed`.',
    tags: ['Tasks'],
    auth: 'key',
    params: { task_id: 'The task `id` (a UUID)' },
    response: 'Task',
    errors: { 404: 'No task with this id belongs to the calling account', 422: controlInPath },
  },
]
