/**
 * The metrics bench's scraper (test/bench/metrics.ts), a child process as Prometheus is:
 * on {url, token, everyMs} it scrapes `url` every `everyMs` on a kept-alive connection
 * until told 'stop', then answers with each scrape's time in milliseconds (from the
 * request's start to the body's end) and the last body's size and samples.
 */
export type ScrapeJob = { url: string; token: string; everyMs: number }
export type ScrapeResult = { times: number[]; bytes: number; samples: number; last: string }

let stop = false
process.on('message', async (m: ScrapeJob | 'stop') => {
  if (m === 'stop') return void (stop = true)
  stop = false
  const times: number[] = []
  let last = ''
  while (!stop) {
    const t0 = performance.now()
    const res = await fetch(m.url, { headers: { authorization: `Bearer ${m.token}` } })
    last = await res.text()
    times.push(performance.now() - t0)
    await new Promise((r) => setTimeout(r, m.everyMs))
  }
  process.send!({ times, bytes: last.length, samples: last.split('\n').filter((l) => l && !l.startsWith('#')).length, last } satisfies ScrapeResult)
})
