/**
 * Salary statistics, the one place the salary benchmark (jobs/salary-benchmark.ts) and
 * both insights routes (sql/insights.ts) compute them: a posting's pay as one annual
 * amount in a chosen currency, the outlier rule, and the percentiles. docs/market-data.md
 *
 * Pay. A posting's pay is the midpoint of its annual range (salary_annual_min/max, the
 * stated amounts times the period's factor, set at ingest), or its one bound when only
 * one is stated ("Up to £32,000" counts as £32,000). It is converted with the static
 * rate table seeds/usd-per-unit.json (sql/scores.ts USD_PER_UNIT): amount × USD per unit
 * of its currency ÷ USD per unit of the target. A posting without annual amounts (no pay
 * stated, or a pay whose period is unknown) or in a currency the table lacks has no pay.
 *
 * Outliers. Pay is compared on a log scale, where a month's pay filed as a year's is as
 * far off (×12) below as above: a salary is kept when |ln(pay) − median ln(pay)| ≤
 * OUTLIER_MADS × max(1.4826 × MAD, MIN_LOG_SPREAD), MAD being the median absolute
 * deviation of ln(pay). 1.4826 × MAD estimates a normal sample's standard deviation, so
 * this keeps what lies within three of them; the floor keeps a sample whose salaries are
 * mostly identical (MAD 0) from losing every salary that differs at all: within ±35%
 * (e^0.3) of the median nothing is ever removed. Below MIN_OUTLIER_SAMPLE salaries
 * nothing is removed at all: the deviation of a handful says little about the market
 * (a company's one Finance salary among five in Sales is not a typo).
 *
 * Percentiles are continuous (percentile_cont: linear between the two nearest salaries)
 * and need MIN_SALARIES; below that a group reports its count, its lowest and highest
 * salary, and nulls.
 */
import type { Fragment } from 'postgres'
import type { Db } from './db.ts'
import { USD_PER_UNIT } from './scores.ts'

/** Currencies with a rate: the only ones pay can be converted to or from. */
export const CURRENCIES = Object.keys(USD_PER_UNIT).sort()

/** Fewer salaries than this give no percentiles (the benchmark's grade F; insights' groups are left out). */
export const MIN_SALARIES = 5
export const OUTLIER_MADS = 3
/** 1.4826 × MAD is the standard deviation of a normal sample. */
export const MAD_TO_SD = 1.4826
/** The least spread (in ln units) the outlier rule assumes: e^(3 × 0.1) ≈ ±35% around the median is always kept. */
export const MIN_LOG_SPREAD = 0.1
/** The outlier rule needs this many salaries. */
export const MIN_OUTLIER_SAMPLE = 10

export const PERCENTILES = [10, 25, 50, 75, 90] as const

export type SalaryStats = {
  count: number
  min: number | null
  max: number | null
  p10: number | null
  p25: number | null
  p50: number | null
  p75: number | null
  p90: number | null
  mean: number | null
  currency: string
  period: 'yearly'
}

export type SalaryDistribution = {
  /** every salary kept */
  salary: SalaryStats
  /** per group column, per value: that group's salaries; only values with at least `minGroup` salaries */
  groups: Record<string, Record<string, SalaryStats>>
  /** salaries the outlier rule removed */
  outliers: number
  /** where `rankOf` stands among the kept salaries, 0 to 100; null without rankOf or with too few salaries */
  rank: number | null
}

/** An amount in `from` as `to`; null when either currency has no rate. */
export function convert(amount: number, from: string, to: string): number | null {
  const a = USD_PER_UNIT[from.toUpperCase()]
  const b = USD_PER_UNIT[to.toUpperCase()]
  return a === undefined || b === undefined ? null : (amount * a) / b
}

/**
 * The job `j`'s annual pay in `currency` as a float8, or null (see above). The factors
 * travel as one jsonb parameter, looked up per row: no join, no per-currency SQL.
 */
export function annualPay(db: Db, currency: string) {
  const target = USD_PER_UNIT[currency]
  if (target === undefined) throw new Error(`annualPay: no rate for ${currency}`)
  const factors = Object.fromEntries(Object.entries(USD_PER_UNIT).map(([c, usd]) => [c, usd / target]))
  return db`((coalesce(j.salary_annual_min, j.salary_annual_max) + coalesce(j.salary_annual_max, j.salary_annual_min))::float8 / 2
    * (${db.json(factors)}::jsonb ->> j.salary_currency)::float8)`
}

/** One row of distributionQuery: the whole sample (dim null) or one group's value. */
export type DistributionRow = { dim: string | null; value: string | null; n: number; p: number[] | null; mean: number | null; min: number | null; max: number | null; outliers: number; rank: number | null }

type DistributionOptions = { groups?: readonly string[]; minGroup?: number; rankOf?: number | null }

/**
 * The distribution of `sample`'s pay as a query of DistributionRows, to run alone
 * (salaryDistribution) or as a CTE of a larger statement (sql/insights.ts): `sample` is a
 * query selecting `pay` (float8, may be null) and the `groups` columns (text), one row
 * per posting. The outlier rule runs once over the whole sample; groups are then cut
 * from what it kept. `groups` are column names the caller writes, never input.
 */
export function distributionQuery(db: Db, sample: Fragment, { groups = [], minGroup = MIN_SALARIES, rankOf = null }: DistributionOptions = {}) {
  const fractions = PERCENTILES.map((p) => p / 100)
  const stats = db`count(*)::int as n,
    case when count(*) >= ${MIN_SALARIES} then percentile_cont(${fractions}::float8[]) within group (order by pay) end as p,
    case when count(*) >= ${MIN_SALARIES} then avg(pay) end as mean,
    min(pay) as min, max(pay) as max`
  const rank =
    rankOf === null
      ? db`null::float8`
      : db`case when count(*) >= ${MIN_SALARIES}
          then 100.0 * (count(*) filter (where pay < ${rankOf}) + 0.5 * count(*) filter (where pay = ${rankOf})) / count(*) end`
  const cols = groups.map((g) => db(g))
  return db`
    with s as materialized (
      select pay ${cols.map((c) => db`, ${c}::text as ${c}`)} from (${sample}) x where pay > 0
    ),
    center as (select percentile_cont(0.5) within group (order by ln(pay)) as m from s),
    spread as (select percentile_cont(0.5) within group (order by abs(ln(s.pay) - center.m)) as mad from s, center),
    kept as materialized (
      select s.* from s, center, spread
      where (select count(*) from s) < ${MIN_OUTLIER_SAMPLE}
        or abs(ln(s.pay) - center.m) <= ${OUTLIER_MADS} * greatest(${MAD_TO_SD} * spread.mad, ${MIN_LOG_SPREAD})
    )
    select null::text as dim, null::text as value, ${stats},
      ((select count(*) from s) - count(*))::int as outliers, ${rank}::float8 as rank
    from kept
    ${cols.map((c, i) => db`
      union all
      select ${groups[i]}::text, ${c}, ${stats}, 0, null from kept where ${c} is not null group by ${c} having count(*) >= ${minGroup}`)}`
}

/** distributionQuery's rows as the API shows them: whole units, nulls below MIN_SALARIES. */
export function toDistribution(rows: readonly DistributionRow[], currency: string, groups: readonly string[] = []): SalaryDistribution {
  const whole = (v: number | null | undefined) => (v === null || v === undefined ? null : Math.round(v))
  const toStats = (r: DistributionRow | undefined): SalaryStats => {
    const p = r?.p ?? null
    return {
      count: r?.n ?? 0,
      min: whole(r?.min),
      max: whole(r?.max),
      p10: whole(p?.[0]),
      p25: whole(p?.[1]),
      p50: whole(p?.[2]),
      p75: whole(p?.[3]),
      p90: whole(p?.[4]),
      mean: whole(r?.mean),
      currency,
      period: 'yearly',
    }
  }
  const overall = rows.find((r) => r.dim === null)
  const out: Record<string, Record<string, SalaryStats>> = Object.fromEntries(groups.map((g) => [g, {}]))
  for (const r of rows) if (r.dim !== null && r.value !== null) out[r.dim][r.value] = toStats(r)
  return {
    salary: toStats(overall),
    groups: out,
    outliers: overall?.outliers ?? 0,
    rank: overall?.rank === null || overall?.rank === undefined ? null : Math.round(overall.rank * 10) / 10,
  }
}

/** The distribution of `sample`'s pay (distributionQuery), in one statement of its own. */
export async function salaryDistribution(db: Db, sample: Fragment, currency: string, opts: DistributionOptions = {}): Promise<SalaryDistribution> {
  return toDistribution(await db<DistributionRow[]>`${distributionQuery(db, sample, opts)}`, currency, opts.groups)
}
