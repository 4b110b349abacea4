/**
 * compensation_value_score: where a posting's pay stands among comparable live postings, which
 * no single posting can know, so it is computed here over the table after each ingest run (the
 * other scores are per posting, in ingest/transform/scores.ts; docs/scores.md has them all).
 *
 * The pay compared is the annual midpoint in US dollars: (annual min + annual max) / 2, one of
 * them when only one is stated, times the currency's USD_PER_UNIT. The score is its percentile
 * rank, (postings paid less + half the postings paid the same) / postings compared, among:
 * 1. live postings of the same first category and country, when there are at least MIN_GROUP of them;
 * 2. else live postings of the same country, when there are at least MIN_GROUP;
 * 3. else all live postings with a comparable salary.
 * e.g. five Software Engineer postings in Germany paying 60k, 70k, 80k, 90k and 100k EUR a year:
 *      the 80k one scores (2 + 0.5) / 5 = 0.5, the 100k one 0.9, the 60k one 0.1.
 * A posting with no comparable salary (none stated, a pay period never stated so no annual
 * figure, or a currency without a rate) scores 0, below every posting that states one, since
 * the lowest-paid of n scores 0.5 / n.
 */
import type { Db } from './db.ts'
import usdPerUnit from '../seeds/usd-per-unit.json' with { type: 'json' }

/** Fewer salaries than this in a category and country say too little; the country's are used. */
export const MIN_GROUP = 5

/**
 * A score is rewritten only when it has moved by this much. Every posting added to a group shifts
 * the percentile of each posting paid more by 1 / n, so with exact values a run of a few postings
 * would rewrite most of the table (and every rewritten row is indexed again). Stored scores are
 * therefore exact to within one percentile point.
 */
export const DRIFT = 0.01

/**
 * Rough US dollars per unit, to compare salaries across currencies (rounded 2024 averages;
 * seeds/usd-per-unit.json, which ingest's salary bounds read too).
 * Static on purpose: a score must not move because a rate did. Within one country, where most
 * comparisons happen, the rate cancels out; it matters for postings paid in another currency
 * than their neighbours' and for the fallback to all postings.
 */
export const USD_PER_UNIT: Record<string, number> = usdPerUnit

/**
 * Recomputes compensation_value_score, and coolness_score (the mean of the six part scores,
 * compensation among them), for live jobs: all of them, or only those in jobIds. Ranks are always
 * taken over every live job. A job is written when it has no score yet or its score moved by DRIFT
 * or more, so a run that moved no score that far writes nothing. Expired jobs keep the scores they
 * had when they expired. Returns how many jobs were written.
 */
export async function refreshCompensationPercentiles(db: Db, { jobIds }: { jobIds?: (string | number)[] } = {}): Promise<{ updated: number }> {
  if (jobIds && !jobIds.length) return { updated: 0 }
  const result = await percentileUpdate(db, jobIds?.map(String))
  return { updated: result.count }
}

/** The one statement of refreshCompensationPercentiles: rank, choose the group, write what moved. */
function percentileUpdate(db: Db, ids?: string[]) {
  const currencies = Object.keys(USD_PER_UNIT)
  const rates = currencies.map((c) => USD_PER_UNIT[c])
  return db`
    with rate as (
      select * from unnest(${currencies}::text[], ${rates}::float8[]) as r (currency, usd)
    ),
    paid as (
      select j.id,
        j.job_categories[1] as category,
        coalesce(l.country, j.remote_countries[1]) as country,
        (coalesce(j.salary_annual_min, j.salary_annual_max) + coalesce(j.salary_annual_max, j.salary_annual_min))::float8 / 2 * r.usd as usd
      from jobs j
      join rate r on r.currency = j.salary_currency
      -- the first location's country from job_locations, not jobs.locations, which is TOASTed
      left join job_locations l on l.job_id = j.id and l.position = 0
      where not j.expired and (j.salary_annual_min is not null or j.salary_annual_max is not null)
    ),
    -- count(*) over an ordered window counts the rows up to and including the current one's
    -- peers (paid less or the same); rank() - 1 counts those paid less. Their sum over 2n is
    -- (less + same / 2) / n.
    ranked as (
      select id, category, country,
        count(*) over in_category as n1, (rank() over in_category_by_pay - 1 + count(*) over in_category_by_pay)::float8 / (2 * count(*) over in_category) as p1,
        count(*) over in_country as n2, (rank() over in_country_by_pay - 1 + count(*) over in_country_by_pay)::float8 / (2 * count(*) over in_country) as p2,
        (rank() over by_pay - 1 + count(*) over by_pay)::float8 / (2 * count(*) over ()) as p3
      from paid
      window in_category as (partition by category, country),
        in_category_by_pay as (partition by category, country order by usd),
        in_country as (partition by country),
        in_country_by_pay as (partition by country order by usd),
        by_pay as (order by usd)
    ),
    score as (
      select j.id,
        round(coalesce(case
          when r.category is not null and r.country is not null and r.n1 >= ${MIN_GROUP} then r.p1
          when r.country is not null and r.n2 >= ${MIN_GROUP} then r.p2
          else r.p3
        end, 0)::numeric, 3)::real as compensation,
        j.compensation_value_score as was,
        coalesce(j.flexibility_score, 0) + coalesce(j.benefits_score, 0) + coalesce(j.impact_autonomy_score, 0)
          + coalesce(j.prestige_score, 0) + coalesce(j.growth_score, 0) as other_parts
      from jobs j left join ranked r on r.id = j.id
      where not j.expired ${ids ? db`and j.id = any(${ids}::bigint[])` : db``}
    )
    update jobs j
    set compensation_value_score = s.compensation,
      coolness_score = round(((s.compensation + s.other_parts) / 6)::numeric, 3)::real
    from score s
    where j.id = s.id and (s.was is null or abs(s.compensation - s.was) >= ${DRIFT})`
}
