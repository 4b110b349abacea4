/**
 * The salary_benchmark task (POST /v2/jobs/salary-benchmark): the distribution of the
 * salaries posted for a title, where a proposed range stands in it, and how far to
 * trust it. The route resolves the request (public_url, the window, the currency) into
 * params when the task is created; this runs the queries (sql/salary-benchmark.ts) and
 * grades the result. docs/market-data.md has the design and the thresholds.
 *
 * A sample with fewer than MIN_SALARIES salaries is a finished report with null
 * percentiles and grade F, not a failure: nothing would go better on a retry.
 */
import type { Logger } from 'pino'
import { ANNUAL_FACTOR } from '../ingest/transform/salary.ts'
import type { SalaryPeriod } from '../ingest/types.ts'
import type { Embedder } from '../ingest/embed/embedder.ts'
import type { Sql } from '../sql/db.ts'
import { modelId } from '../sql/embeddings.ts'
import { benchmarkSample, findSimilarTitles, type BenchmarkQuery, type BenchmarkSample } from '../sql/salary-benchmark.ts'
import { convert, MIN_SALARIES, type SalaryStats } from '../sql/salary-stats.ts'
import type { TaskType } from './tasks.ts'

export const TYPE = 'salary_benchmark'

/** A range to place in the distribution, as the request stated it. */
export type ProposedRange = { min: number | null; max: number | null; currency: string; period: SalaryPeriod }

/** What the route hands the worker. */
export type BenchmarkParams = {
  query: BenchmarkQuery
  /** the title embedded to find similar titles (the request's, or the public_url posting's) */
  title: string
  description: string | null
  currency: string
  proposed: ProposedRange | null
  window: { from: string; to: string }
  /** the posting public_url named, left out of its own sample */
  postingId: string | null
}

/**
 * Similar titles: from this many nearest postings, at this cosine similarity or more, at
 * most this many titles. A posting's vector is of its title and a short body
 * (ingest/embed/job-text.ts), so a title query's similarity to it stays below the
 * title's own. Set on the default model (USE lite) over the NHS file's 2020 nursing
 * titles: for "Healthcare Assistant", "Health Care Assistant" is at 0.87 and "Senior
 * Health Care Assistant" 0.83, but "Clinical Nurse" already 0.81.
 */
export const SIMILAR = { depth: 200, minSimilarity: 0.82, limit: 10 }

/**
 * Confidence: score = 0.5 × size + 0.25 × spread + 0.25 × exact, each 0 to 1.
 * - size: ln(salaries) / ln(SIZE_FULL), capped at 1: 5 salaries 0.30, 30 → 0.64, 100 → 0.87, 200 or more 1.
 * - spread: 1 at an interquartile range (p75 − p25) of at most SPREAD_TIGHT of the median, 0 at SPREAD_WIDE or more, linear between.
 * - exact: the share of the salaries from postings whose title is a requested title (case and blanks aside), rather than
 *   one that only has its words ("Senior Staff Nurse" for "Staff Nurse") or one similar by meaning.
 * Grade: A ≥ 0.8, B ≥ 0.65, C ≥ 0.5, D ≥ 0.35, else F; always F below MIN_SALARIES.
 */
export const CONFIDENCE = { sizeFull: 200, spreadTight: 0.2, spreadWide: 1.0, grades: [['A', 0.8], ['B', 0.65], ['C', 0.5], ['D', 0.35]] as const }

export type Confidence = { grade: 'A' | 'B' | 'C' | 'D' | 'F'; score: number; reasons: string[] }

const pct = (x: number) => `${Math.round(x * 100)}%`

/** `sampled`: salaries before the outlier rule, `exact` of them from a requested title; `outliers`: removed. */
export function confidence(salary: SalaryStats, { sampled, exact: exactSalaries, outliers }: { sampled: number; exact: number; outliers: number }): Confidence {
  const n = salary.count
  const size = n > 0 ? Math.min(1, Math.log(n) / Math.log(CONFIDENCE.sizeFull)) : 0
  const exact = sampled > 0 ? exactSalaries / sampled : 0
  const reasons = [`${n} salar${n === 1 ? 'y' : 'ies'} in the sample${outliers ? ` after ${outliers} outlier${outliers === 1 ? '' : 's'} removed` : ''}`]
  if (n < MIN_SALARIES) {
    reasons.push(`fewer than ${MIN_SALARIES} salaries: too few for percentiles; widen the window, the places or the titles`)
    return { grade: 'F', score: round2(0.5 * size + 0.25 * exact), reasons }
  }
  const iqr = (salary.p75! - salary.p25!) / salary.p50!
  const spread = Math.max(0, Math.min(1, (CONFIDENCE.spreadWide - iqr) / (CONFIDENCE.spreadWide - CONFIDENCE.spreadTight)))
  reasons.push(`the middle half of the salaries spans ${pct(iqr)} of the median${spread >= 0.75 ? ' (tight)' : spread <= 0.25 ? ' (wide)' : ''}`)
  reasons.push(`${pct(exact)} of the salaries come from postings with exactly the requested title`)
  const score = round2(0.5 * size + 0.25 * spread + 0.25 * exact)
  const grade = CONFIDENCE.grades.find(([, min]) => score >= min)?.[0] ?? 'F'
  return { grade, score, reasons }
}

const round2 = (x: number) => Math.round(x * 100) / 100

/** The proposed range as annual amounts in the report's currency, and its midpoint (what is ranked). */
export function annualRange(p: ProposedRange, currency: string) {
  const annual = (v: number | null) => (v === null ? null : convert(v * ANNUAL_FACTOR[p.period], p.currency, currency))
  const min = annual(p.min)
  const max = annual(p.max)
  const mid = min !== null && max !== null ? (min + max) / 2 : (min ?? max)
  return { min, max, mid }
}

export function salaryBenchmark(deps: { sql: Sql; embedder: Embedder | null }): TaskType {
  return {
    name: TYPE,
    run: async ({ params, progress, log }) => {
      const p = params as BenchmarkParams
      const similar = await similarTitles(deps, p, log)
      await progress(0.5)
      const range = p.proposed ? annualRange(p.proposed, p.currency) : null
      const sample = await benchmarkSample(deps.sql, p.query, similar.titles.map((t) => t.title), p.currency, range?.mid ?? null)
      return { result: report(p, sample, similar, range) }
    },
  }
}

type Similar = { searched: boolean; titles: { title: string; similarity: number }[] }

/**
 * Titles near the requested one by meaning, when a model is configured and postings
 * have its vectors; without them, or if the model fails, the sample is the title
 * query's matches alone and the result says so (sample.similar_titles_searched).
 */
async function similarTitles({ sql, embedder }: { sql: Sql; embedder: Embedder | null }, p: BenchmarkParams, log: Logger): Promise<Similar> {
  if (!embedder) return { searched: false, titles: [] }
  try {
    const text = p.description ? `${p.title}. ${p.description}` : p.title
    const [[vector], model] = await Promise.all([embedder.embed([text]), modelId(sql, embedder.info)])
    return { searched: true, titles: await findSimilarTitles(sql, p.query, { vector, model }, SIMILAR) }
  } catch (err) {
    log.warn({ err: { message: (err as Error).message } }, 'similar titles not searched; the benchmark uses the title query alone')
    return { searched: false, titles: [] }
  }
}

function report(p: BenchmarkParams, s: BenchmarkSample, similar: Similar, range: ReturnType<typeof annualRange> | null) {
  const { salary, groups, outliers, rank } = s.distribution
  const whole = (v: number | null) => (v === null ? null : Math.round(v))
  return {
    market: {
      salary,
      by_experience_level: groups.experience_level ?? {},
      by_location_type: groups.location_type ?? {},
    },
    confidence: confidence(salary, { sampled: s.salaries, exact: s.exact_salaries, outliers }),
    proposed: range ? { min: whole(range.min), max: whole(range.max), percentile: rank } : null,
    matched_titles: s.titles,
    sample: {
      ...(p.postingId ? { posting_id: p.postingId } : {}),
      postings: s.postings,
      salaries: s.salaries,
      outliers_removed: outliers,
      exact_title_salaries: s.exact_salaries,
      similar_titles_searched: similar.searched,
      similar_titles: similar.titles.map((t) => ({ title: t.title, similarity: Math.round(t.similarity * 1000) / 1000 })),
      date_posted_from: p.window.from,
      date_posted_to: p.window.to,
      currency: p.currency,
    },
  }
}
