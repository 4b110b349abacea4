/**
 * Tasks on pg-boss. A task type is a name and a handler (the route that creates it
 * validates its input); this module creates tasks and runs them, whatever they do.
 *
 * Creating a task writes its row and enqueues its pg-boss job in the caller's
 * transaction, the one that also charges for it, so a task exists, is charged and is
 * queued together or not at all. The job carries only the task id and, for exports,
 * the search as the worker runs it (`params`), fixed at creation.
 *
 * Running: each pickup claims the row for a new attempt (sql/tasks.ts). A handler
 * that throws leaves pg-boss to retry the job (TASK_RETRY_LIMIT, TASK_RETRY_DELAY_SECONDS);
 * a worker that dies leaves it active until its expiry (TASK_EXPIRE_SECONDS), when
 * pg-boss's maintenance fails the attempt and retries it. After the last attempt pg-boss
 * moves the job to the dead-letter queue, whose worker fails the task and refunds its
 * charge in one transaction. Finishing and failing are guarded by the task's state, so
 * a task ends exactly once whichever of these races happen.
 */
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import { bossDb } from '../sql/boss-db.ts'
import { redactDownloadLinks } from './files/signing.ts'
import type { Config } from '../sql/config.ts'
import type { Pacing } from './pace.ts'
import type { Db, Sql } from '../sql/db.ts'
import {
  claimTask, failTask, finishTask, insertTask, recordAttemptError, setProgress,
  type ClaimedTask, type Finish, type TaskCharge,
} from '../sql/tasks.ts'

export const TASK_QUEUE = 'tasks'
/** where pg-boss moves a task's job after its last attempt */
export const FAILED_QUEUE = 'tasks-failed'
/** notification emails, retried on their own so that a mail server's trouble never fails a task */
export const NOTIFY_QUEUE = 'task-notify'

export type TaskConfig = Config['tasks']

/** What a handler is given for one attempt. */
export type TaskRun = {
  task: ClaimedTask
  /** the job's `params`: what the creating route prepared for the worker */
  params: Record<string, unknown>
  /**
   * Records progress (0 to 1), at most every PROGRESS_MS; rejects with TaskTakenOver
   * when this attempt no longer holds the task, so the handler stops. `pacing` (an
   * export's, jobs/pace.ts) is written with it.
   */
  progress: (fraction: number, pacing?: Pacing) => Promise<void>
  log: Logger
}

export type TaskType = {
  name: string
  run: (run: TaskRun) => Promise<Finish>
  /** gives back what an attempt that lost its task left behind (the file it wrote) */
  discard?: (finish: Finish) => Promise<void>
}

export class TaskTakenOver extends Error {
  constructor(id: string) {
    super(`task ${id}: another attempt holds it`)
  }
}

/**
 * The process is stopping and its grace (SHUTDOWN_GRACE_SECONDS) is over: the attempt
 * stops at its next progress and gives its task back. pg-boss counts it as a failed
 * attempt and retries it after TASK_RETRY_DELAY_SECONDS, in whichever process takes it.
 */
export class TaskReleased extends Error {
  constructor(id: string) {
    super(`task ${id}: released by a stopping process`)
  }
}

/** How long the attempts released at the end of the grace get to reach their next progress and stop. */
const RELEASE_WAIT_MS = 5000

/** Resolves when every promise in `running` has settled, or at `deadline` (ms since the epoch), whichever is first. */
async function settle(running: Set<Promise<unknown>>, deadline: number) {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    Promise.allSettled([...running]),
    new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now())))),
  ])
  clearTimeout(timer)
}

const PROGRESS_MS = 500

type JobData = { task_id: string; params?: Record<string, unknown> }

/**
 * Creates a task inside `tx`: its row (with what creating it charged) and its job.
 * Call it in the transaction that charged for it.
 */
export async function createTask(
  tx: Db,
  boss: PgBoss,
  config: TaskConfig,
  t: { accountId: string; type: string; input: Record<string, unknown>; notify: boolean; params?: Record<string, unknown>; charge?: TaskCharge; priority?: number },
) {
  const task = await insertTask(tx, { account_id: t.accountId, type: t.type, input: t.input, notify: t.notify, charge: t.charge, priority: t.priority })
  const data: JobData = { task_id: task.id, params: t.params }
  await boss.send(TASK_QUEUE, data, {
    db: bossDb(tx),
    priority: t.priority ?? 0,
    retryLimit: config.retryLimit,
    retryDelay: config.retryDelay,
    expireInSeconds: config.expireSeconds,
  })
  return task
}

/**
 * The queues tasks use; every process that creates tasks needs them, workers or not.
 * The dead-letter queue comes first: the task queue names it.
 */
export const TASK_QUEUES: (PgBoss.Queue & { name: string })[] = [
  { name: FAILED_QUEUE, retryLimit: 5, retryDelay: 5, retryBackoff: true },
  { name: TASK_QUEUE, deadLetter: FAILED_QUEUE },
  { name: NOTIFY_QUEUE, retryLimit: 8, retryDelay: 30, retryBackoff: true },
]

export type TaskWorkerDeps = {
  boss: PgBoss
  sql: Sql
  log: Logger
  config: TaskConfig
  types: TaskType[]
  /** sends a task's notification email, at most once (jobs/notify.ts) */
  notify: (taskId: string) => Promise<void>
}

/** This process's name on the tasks it works on. */
export const workerId = () => `${hostname()}:${process.pid}`

/**
 * Starts `config.concurrency` workers on the task queue, one on the dead-letter queue, one
 * for emails. stop(deadline) stops taking tasks, lets the attempts running finish until
 * `deadline` (ms since the epoch; default now), then releases those still running
 * (TaskReleased) and waits a little for them to stop.
 */
export async function startTaskWorkers(deps: TaskWorkerDeps) {
  const { boss, sql, log, config } = deps
  const types = new Map(deps.types.map((t) => [t.name, t]))
  const me = workerId()
  const options = { batchSize: 1, pollingIntervalSeconds: 1, includeMetadata: true } as const
  const ids: string[] = []
  const running = new Set<Promise<void>>()
  const release = { released: false }
  for (let i = 0; i < config.concurrency; i++) {
    ids.push(
      await boss.work<JobData>(TASK_QUEUE, options, async ([job]) => {
        const attempt = runAttempt(deps, types, me, job.data, release)
        running.add(attempt)
        try {
          await attempt
        } finally {
          running.delete(attempt)
        }
      }),
    )
  }
  ids.push(
    await boss.work<JobData>(FAILED_QUEUE, options, async ([job]) => {
      const output = (job as unknown as { output?: { message?: string; value?: { message?: string } } }).output
      const why = output?.message ?? output?.value?.message ?? 'the task stopped'
      // shown only when no attempt recorded an error of its own: its worker died or ran out of time
      const stopped = clientError('The task stopped before it finished')
      const failed = await sql.begin(async (tx) => {
        const ok = await failTask(tx, job.data.task_id, stopped.message)
        if (ok) await enqueueNotify(boss, tx, job.data.task_id)
        return ok
      })
      if (failed) log.warn({ task_id: job.data.task_id, why, error_ref: stopped.ref }, 'task failed; its charge was refunded')
    }),
  )
  ids.push(await boss.work<{ task_id: string }>(NOTIFY_QUEUE, { batchSize: 1, pollingIntervalSeconds: 2 }, async ([job]) => deps.notify(job.data.task_id)))
  return {
    stop: async (deadline = Date.now()) => {
      await Promise.all(ids.map((id) => boss.offWork({ id })))
      await settle(running, deadline)
      if (!running.size) return
      release.released = true
      log.warn({ tasks: running.size }, 'tasks released: the grace is over; they will be retried by another worker')
      await settle(running, Date.now() + RELEASE_WAIT_MS)
    },
  }
}

/**
 * What a client is told of a failure, in the task's `error` and its email: a plain
 * sentence and a reference. The cause (a Postgres error names tables and columns, a file
 * error names paths) goes only to the log, under the same `error_ref`, where the
 * operator finds it from the reference a client quotes.
 */
export function clientError(what: string) {
  const ref = randomBytes(6).toString('hex')
  return { ref, message: `${what} (reference ${ref}).` }
}

/** Enqueues the task's notification in `tx` when the task asked for one. */
async function enqueueNotify(boss: PgBoss, tx: Db, taskId: string) {
  const [row] = await tx<{ notify: boolean }[]>`select notify from tasks where id = ${taskId}`
  if (row?.notify) await boss.send(NOTIFY_QUEUE, { task_id: taskId }, { db: bossDb(tx) })
}

async function runAttempt(deps: TaskWorkerDeps, types: Map<string, TaskType>, me: string, data: JobData, release: { released: boolean }) {
  const { sql, log, boss } = deps
  const task = await claimTask(sql, data.task_id, me)
  if (!task) return // it ended before pg-boss heard: nothing to do
  const type = types.get(task.type)
  if (!type) throw new Error(`no worker handles tasks of type ${task.type}`)
  const taskLog = log.child({ task_id: task.id, type: task.type, attempt: task.attempt })
  taskLog.info('task started')

  let last = 0
  const progress = async (fraction: number, pacing?: Pacing) => {
    if (release.released) throw new TaskReleased(task.id)
    const now = Date.now()
    if (now - last < PROGRESS_MS && fraction < 1) return
    last = now
    if (!(await setProgress(sql, task.id, task.attempt, fraction, pacing))) throw new TaskTakenOver(task.id)
    if (release.released) throw new TaskReleased(task.id)
  }

  let finish: Finish
  try {
    finish = await type.run({ task, params: data.params ?? {}, progress, log: taskLog })
  } catch (err) {
    if (err instanceof TaskReleased) {
      // not the task's failure: nothing is recorded on it, and pg-boss retries the job
      taskLog.info('task released by a stopping process; another attempt will run it')
      throw err
    }
    const e = err instanceof Error ? err : new Error(String(err))
    const shown = clientError('The task failed because of an error on the server')
    taskLog.warn({ err: { message: e.message, stack: e.stack }, error_ref: shown.ref }, 'task attempt failed')
    await recordAttemptError(sql, task.id, task.attempt, shown.message).catch(() => {})
    throw err
  }
  const finished = await sql.begin(async (tx) => {
    const ok = await finishTask(tx, task.id, task.attempt, finish)
    if (ok) await enqueueNotify(boss, tx, task.id)
    return ok
  })
  if (!finished) {
    taskLog.warn('another attempt holds the task; this attempt\'s output is discarded')
    await type.discard?.(finish)
    return
  }
  // a download link is a credential: the log keeps it without its signature
  const link = finish.result.download_url
  taskLog.info({ result: typeof link === 'string' ? { ...finish.result, download_url: redactDownloadLinks(link) } : finish.result }, 'task finished')
}
