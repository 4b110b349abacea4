/** Tasks as a client sees them: poll GET /v2/tasks/{id} until the task ends, then fetch its download. */
import { loadConfig } from '../../sql/config.ts'
import type { TestApp } from './app.ts'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Task = { id: string; state: string; progress: number; result: Record<string, any> | null; error: string | null; input: Record<string, any>; notify: boolean; type: string }

/** The task once finished or failed, polled every 100 ms with `key` (the app's own by default). */
export async function waitForTask(app: TestApp, id: string, key = app.key, timeoutMs = 60_000): Promise<Task> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const task = (await (await app.get(`/v2/tasks/${id}`, { 'x-api-key': key })).json()) as Task
    if (task.state === 'finished' || task.state === 'failed') return task
    if (Date.now() > until) throw new Error(`task ${id} still ${task.state} after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/**
 * The result's link, served by this app (download_url is under PUBLIC_URL, which names no test
 * port); `init` as fetch's, e.g. {redirect: 'manual'} to see an S3 download's redirect.
 */
export function download(app: TestApp, url: string, init?: RequestInit) {
  const u = new URL(url)
  if (u.origin !== loadConfig().publicUrl) throw new Error(`download_url ${url} is not under PUBLIC_URL`)
  return fetch(app.base + u.pathname, init)
}
