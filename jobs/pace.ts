/**
 * How background work (exports, the background embedding) gives way to the API's
 * requests on the same cores and the same Postgres. docs/tasks.md, "Yielding to the
 * API", says when each part applies and what it costs.
 *
 * 1. CPU priority. A `npm run worker` process runs at nice 10 (lowerPriority), as the
 *    embedding model's threads do everywhere (ingest/embed/use-worker.ts): the kernel
 *    runs the API and Postgres first and gives the background what is left, which on an
 *    idle machine is everything.
 * 2. Rests under load. What the kernel cannot order is the work the background asks of
 *    Postgres (most of an export's CPU is its backend's) and, inside the API's process,
 *    of the event loop the requests share. So after each step (an export's batch, one
 *    model call of the embedding, one write of its vectors) the pacer asks whether
 *    requests are waiting on the service now (loadSignal): for a database slot, for an
 *    answer to a search, or, seen from a process without the API, for a core. Only then does the step rest, in proportion to how long it
 *    kept the machine busy, so that busy time is at most `duty` of the whole, as
 *    Postgres's cost-based vacuum delay does; otherwise the next step starts at once.
 *
 * The question is about this instant, not about the moments before it: a statement that
 * ran and ended (a task-status poll, a lookup, an admission) takes nothing from anyone
 * any more, and is over in a millisecond, so a step's check almost never finds one,
 * while a stream of searches is nearly always in flight when it looks.
 */
import { readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'

/** What the API has waiting on the service now, e.g. 'searches in flight'; null when nothing. */
export type UnderLoad = () => Promise<string | null>

/** A queue of the API's requests (api/middleware/queues.ts), read only. */
export type RequestCounts = { readonly active: number; readonly waiting: number }

/** What the API in this process has waiting on the service (api/middleware/queues.ts, searches.ts), read only. */
export type ApiLoad = { db?: RequestCounts; cpu?: RequestCounts; searches?: { readonly inFlight: number } }

/** How Linux says which threads are runnable; a parameter for tests. */
export type ProcFiles = { loadavg: () => string; ownTasks: () => string[]; taskStat: (tid: string) => string }

const PROC: ProcFiles = {
  loadavg: () => readFileSync('/proc/loadavg', 'utf8'),
  ownTasks: () => readdirSync('/proc/self/task'),
  taskStat: (tid) => readFileSync(`/proc/self/task/${tid}/stat`, 'utf8'),
}

/**
 * The machine's run queue as a process of background work sees it: how many threads of
 * other processes (the API's, Postgres's backends) would wait for a core if this process
 * ran one step more. /proc/loadavg's fourth field counts the machine's runnable threads
 * now; this process's own (its model threads, the thread asking) are taken out, since
 * they wait only behind each other. Positive when the others alone fill every core.
 * Null where /proc cannot be read (not Linux): no signal, rather than a rest after
 * every step.
 */
export function runQueue(cores = os.availableParallelism(), proc: ProcFiles = PROC): (() => number) | null {
  try {
    proc.loadavg()
  } catch {
    return null
  }
  return () => {
    const runnable = Number(proc.loadavg().split(' ')[3].split('/')[0])
    let own = 0
    for (const tid of proc.ownTasks()) {
      try {
        // "pid (comm) S …": the state follows the command, which may hold spaces and parentheses
        const stat = proc.taskStat(tid)
        if (stat[stat.lastIndexOf(')') + 2] === 'R') own++
      } catch {
        // a thread that ended meanwhile
      }
    }
    return runnable - own + 1 - cores
  }
}

/**
 * The signals a process can read:
 * - `api`, when the API runs in this process: a request waiting for a database slot, a
 *   CPU-heavy step (reading a resume, embedding a query) waiting or running, or a search
 *   in flight. A lookup or a task-status poll in flight is not load: it is over in a
 *   millisecond or two. The embedded database has no other signal: it serves every
 *   connection in one session, which pg_stat_activity cannot tell apart.
 * - `statements`: how many statements of the API's sessions a database server has been
 *   running for a few milliseconds or more now (sql/foreground.ts), which a worker in
 *   another process reads too.
 * - `runQueue`, in a process without the API (`npm run worker`): the machine's other
 *   threads fill every core (runQueue), so a step of this process makes one of them
 *   wait: the API's event loop, which no statement shows, or the embedded database,
 *   which runs inside the API's process.
 * A signal that cannot be read counts as load.
 */
export function loadSignal({ api = {}, statements, runQueue }: { api?: ApiLoad; statements?: () => Promise<number>; runQueue?: (() => number) | null }): UnderLoad {
  return async () => {
    const { db, cpu, searches } = api
    if ((db?.waiting ?? 0) > 0) return 'requests waiting for a database slot'
    if ((cpu?.waiting ?? 0) > 0 || (cpu?.active ?? 0) > 0) return 'requests on the CPU'
    if ((searches?.inFlight ?? 0) > 0) return 'searches in flight'
    if (statements) {
      const running = await statements().catch(() => -1)
      if (running < 0) return 'the load could not be read'
      if (running > 0) return 'API statements running'
    }
    if (runQueue) {
      let waiting = 1
      try {
        waiting = runQueue()
      } catch {
        return 'the load could not be read'
      }
      // NaN, a line that did not parse, counts as load like a read that failed
      if (!(waiting <= 0)) return "threads waiting for the machine's cores"
    }
    return null
  }
}

/** What a pacer has done so far; an export's task shows it as `pacing` (docs/tasks.md). */
export type Pacing = {
  /** whether the last step rested: the service was under load when it ended */
  resting: boolean
  /** what the last rest gave way to */
  load: string | null
  steps: number
  steps_rested: number
  rested_ms: number
}

/** Several pacers' pacing as one (the lanes of one queued batch of the embedding): counts summed, the last rest's load. */
export function combinePacing(list: Pacing[]): Pacing | null {
  if (list.length === 0) return null
  const sum = (k: 'steps' | 'steps_rested' | 'rested_ms') => list.reduce((n, p) => n + p[k], 0)
  return { resting: list.some((p) => p.resting), load: [...list].reverse().find((p) => p.load !== null)?.load ?? null, steps: sum('steps'), steps_rested: sum('steps_rested'), rested_ms: sum('rested_ms') }
}

/** Ends a step: `waitedMs` of it waited on the disk. Resolves when the next step may start. */
export type Pace = ((waitedMs?: number) => Promise<void>) & { summary: () => Pacing }

/**
 * A step that waited on the disk says how long, and that wait earns no rest: it kept no
 * core busy (a cold export would otherwise rest for its reads too). Without
 * `underLoad` every step rests (for tests of the proportion alone).
 */
export function pacer(duty: number, underLoad: UnderLoad | null = null): Pace {
  let stepStart = performance.now()
  const s: Pacing = { resting: false, load: null, steps: 0, steps_rested: 0, rested_ms: 0 }
  const pace = async (waitedMs = 0) => {
    const busy = Math.max(0, performance.now() - stepStart - waitedMs)
    s.steps++
    const load = duty < 1 && busy > 0 ? (underLoad === null ? 'always' : await underLoad().catch(() => 'the load could not be read')) : null
    s.resting = load !== null
    if (load !== null) {
      // without underLoad the rest's timer starts at once, in the same turn as the call
      const rest = busy * (1 / duty - 1)
      s.load = load
      s.steps_rested++
      s.rested_ms += rest
      await sleep(rest)
    }
    stepStart = performance.now()
  }
  return Object.assign(pace, { summary: () => ({ ...s, rested_ms: Math.round(s.rested_ms) }) })
}

/** The nice value of background processes: below every request, above nothing else. */
export const BACKGROUND_NICE = 10

/**
 * Lowers this process's CPU priority to BACKGROUND_NICE, for a process that runs only
 * background work (`npm run worker`). On Linux a nice value belongs to a thread
 * (setpriority(2), NOTES), so every thread running now is lowered; threads started later
 * take their creator's. Elsewhere, or when not allowed, the process keeps its priority.
 */
export function lowerPriority() {
  let threads: number[] = [0]
  try {
    threads = readdirSync('/proc/self/task').map(Number)
  } catch {
    // not Linux: os.setPriority(0) is the whole process there
  }
  let lowered = 0
  for (const tid of threads) {
    try {
      if (os.getPriority(tid) < BACKGROUND_NICE) os.setPriority(tid, BACKGROUND_NICE)
      lowered++
    } catch {
      // a thread that ended meanwhile, or no permission
    }
  }
  return lowered > 0
}
