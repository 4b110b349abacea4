/**
 * Exports are background work beside the API's searches, on the same cores and the
 * same Postgres. A pacer lets a task keep only a share of the time busy: after each
 * step it rests in proportion to how long the step kept the machine busy, so that busy
 * time is at most `duty` of the whole (1: no rest). Postgres's cost-based vacuum delay
 * does the same for the same reason. A step that waited on the disk says how long, and
 * that wait earns no rest: it kept no core busy (a cold export would otherwise rest for
 * its reads too).
 *
 * The rests are for the API's sake, so with `othersActive` a step rests only if the API
 * was at work during it (sql/foreground.ts): an export on an idle service runs at full
 * speed, and one beside searches keeps to its share. If the check fails, the step rests.
 * docs/tasks.md has the default and what it costs an export.
 */
import { setTimeout as sleep } from 'node:timers/promises'

/** Whether anyone the rests are for was at work in the last `withinMs` milliseconds. */
export type OthersActive = (withinMs: number) => Promise<boolean>

export function pacer(duty: number, othersActive: OthersActive | null = null) {
  let stepStart = performance.now()
  const summary = { steps: 0, rested: 0, restedMs: 0 }
  const pace = async (waitedMs = 0) => {
    const stepMs = performance.now() - stepStart
    const busy = Math.max(0, stepMs - waitedMs)
    summary.steps++
    // without othersActive the rest's timer starts at once, in the same turn as the call
    if (duty < 1 && busy > 0 && (othersActive === null || (await othersActive(stepMs).catch(() => true)))) {
      const rest = busy * (1 / duty - 1)
      summary.rested++
      summary.restedMs += rest
      await sleep(rest)
    }
    stepStart = performance.now()
  }
  /** the steps so far, how many of them rested and for how long in all: the export's log says */
  return Object.assign(pace, { summary: () => ({ steps: summary.steps, steps_rested: summary.rested, rested_ms: Math.round(summary.restedMs) }) })
}
