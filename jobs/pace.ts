/**
 * Exports are background work beside the API's searches, on the same cores and the
 * same Postgres. A pacer lets a task keep only a share of the time busy: after each
 * step it rests in proportion to how long the step kept the machine busy, so that busy
 * time is at most `duty` of the whole (1: no rest). Postgres's cost-based vacuum delay
 * does the same for the same reason. A step that waited on the disk says how long, and
 * that wait earns no rest: it kept no core busy (a cold export would otherwise rest for
 * its reads too). docs/tasks.md has the default and what it costs an export.
 */
import { setTimeout as sleep } from 'node:timers/promises'

export function pacer(duty: number) {
  let stepStart = performance.now()
  return async (waitedMs = 0) => {
    const busy = Math.max(0, performance.now() - stepStart - waitedMs)
    if (duty < 1 && busy > 0) await sleep(busy * (1 / duty - 1))
    stepStart = performance.now()
  }
}
