/**
 * Runs the matcher (saved-searches-match.ts) and the dispatcher (webhooks-deliver.ts) in
 * this process, beside the task workers: each polls for work and goes again at once while
 * it finds some. Any number of processes may run them; the inbox is claimed with SKIP
 * LOCKED and deliveries with leases. Events past their retention are purged hourly.
 */
import type { Logger } from 'pino'
import type { Config } from '../sql/config.ts'
import type { Sql } from '../sql/db.ts'
import { purgeOldEvents } from '../sql/saved-searches.ts'
import type { Mailer } from './notify.ts'
import { matchInbox } from './saved-searches-match.ts'
import { deliverDue } from './webhooks-deliver.ts'

const PURGE_EVERY_MS = 3_600_000

export function startWebhookWorkers({ sql, log, config, mailer, publicUrl }: { sql: Sql; log: Logger; config: Config['webhooks']; mailer: Mailer | null; publicUrl: string }) {
  let stopping = false
  const wakers = new Set<() => void>()
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer)
        wakers.delete(wake)
        resolve()
      }
      const timer = setTimeout(wake, ms)
      wakers.add(wake)
    })

  /** Runs `step` until stopped: again at once while it finds work, after pollMs when it finds none or fails. */
  const loop = async (name: string, step: () => Promise<boolean>) => {
    while (!stopping) {
      let busy = false
      try {
        busy = await step()
      } catch (e) {
        log.error({ err: { message: (e as Error).message, stack: (e as Error).stack } }, `${name} failed; retrying`)
      }
      if (!busy && !stopping) await pause(config.pollMs)
    }
  }

  let lastPurge = 0
  const matching = loop('saved-search matching', async () => (await matchInbox(sql, log)).taken > 0)
  const delivering = loop('webhook delivery', async () => {
    if (Date.now() - lastPurge > PURGE_EVERY_MS) {
      lastPurge = Date.now()
      const purged = await purgeOldEvents(sql)
      if (purged) log.info({ purged }, 'webhook events past their retention deleted')
    }
    return (await deliverDue({ sql, log, config, mailer, publicUrl }, config.concurrency)) > 0
  })
  return {
    /** Stops looking for work and waits for the deliveries in flight (each ends within the delivery timeout). */
    stop: async () => {
      stopping = true
      for (const wake of [...wakers]) wake()
      await Promise.all([matching, delivering])
    },
  }
}
