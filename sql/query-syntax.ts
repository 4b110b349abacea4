/**
 * The search query syntax of job_titles, keywords and company_keywords.
 *
 * An array of expressions: the expressions that include something are OR-ed; an
 * exclusion applies to the whole result, so ["engineer", "-intern"] means titles with
 * engineer and none with intern, and an array of only exclusions filters those
 * matches out of everything. Inside one expression:
 *   "quoted phrase"    the words in this order, side by side
 *   word word          all must appear (anywhere)
 *   word AND word      the same, spelled out
 *   -word, -"phrase"   must not appear
 * An unbalanced quote is literal text. Words are stemmed with the english config, so
 * "engineer" matches "engineers"; case and punctuation do not matter.
 *
 * parse() is pure; toTsquery() turns the result into a tsquery built by Postgres
 * from plainto_tsquery/phraseto_tsquery, so user text never becomes tsquery syntax.
 */
import type { Db } from './db.ts'

export type Term = { phrase: boolean; text: string }
export type Expression = { include: Term[]; exclude: Term[] }
export type TextQuery = { expressions: Expression[]; exclude: Term[] }

const TOKEN = /(-?)"([^"]*)"|(\S+)/g

export function parseExpression(input: string): Expression {
  const expr: Expression = { include: [], exclude: [] }
  // an odd number of quotes: the unmatched one is text, not syntax
  const quotes = (input.match(/"/g) ?? []).length
  const text = quotes % 2 === 1 ? input.replace(/"(?=[^"]*$)/, ' ') : input
  for (const m of text.matchAll(TOKEN)) {
    if (m[2] !== undefined) {
      const term = { phrase: true, text: m[2].trim() }
      if (term.text) (m[1] ? expr.exclude : expr.include).push(term)
      continue
    }
    const word = m[3]
    if (word === 'AND') continue
    if (word.startsWith('-') && word.length > 1) expr.exclude.push({ phrase: false, text: word.slice(1) })
    else if (word !== '-') expr.include.push({ phrase: false, text: word })
  }
  return expr
}

export function parse(list: string[] | undefined | null): TextQuery | null {
  if (!list || list.length === 0) return null
  const parsed = list.map(parseExpression)
  const query: TextQuery = { expressions: [], exclude: [] }
  for (const e of parsed) {
    if (e.include.length === 0) query.exclude.push(...e.exclude)
    else query.expressions.push(e)
  }
  return query.expressions.length || query.exclude.length ? query : null
}

/** Whether an included term is a phrase, which only a text vector's positions can confirm. */
export const includesPhrase = (q: TextQuery) => q.expressions.some((e) => e.include.some((t) => t.phrase))

/** The query with each included phrase loosened to its words, anywhere; exclusions as they were. */
export function phrasesAsWords(q: TextQuery): TextQuery {
  return { ...q, expressions: q.expressions.map((e) => ({ ...e, include: e.include.map((t) => ({ ...t, phrase: false })) })) }
}

const term = (db: Db, t: Term) =>
  t.phrase ? db`phraseto_tsquery('english', ${t.text})` : db`plainto_tsquery('english', ${t.text})`

/**
 * The tsquery of what must match (null when the query is only exclusions) and the one
 * of what must not, each as a SQL expression.
 */
export function toTsquery(db: Db, q: TextQuery) {
  const all = (terms: Term[], op: '&&' | '||') =>
    terms.map((t) => term(db, t)).reduce((acc, t) => (op === '&&' ? db`(${acc} && ${t})` : db`(${acc} || ${t})`))
  const expression = (e: Expression) => {
    const inc = all(e.include, '&&')
    return e.exclude.length ? db`(${inc} && !!${all(e.exclude, '||')})` : inc
  }
  const include = q.expressions.length ? q.expressions.map(expression).reduce((acc, e) => db`(${acc} || ${e})`) : null
  const exclude = q.exclude.length ? all(q.exclude, '||') : null
  return { include, exclude }
}
