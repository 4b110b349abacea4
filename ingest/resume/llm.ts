/**
 * Optional LLM pass over a heuristic parse: an OpenAI-compatible chat model is given the
 * resume text and the heuristic result and answers in the parsed-resume shape, enforced
 * by a strict JSON schema (response_format json_schema). The answer is checked against
 * the same schema, its dates normalized, and merged: the model's values fill gaps and
 * correct fields, the heuristic's stay where the model has nothing. Any failure
 * (network, refusal, truncated or invalid JSON, wrong shape) throws; the caller keeps
 * the heuristic result.
 */
import type OpenAI from 'openai'
import { normalizeDate } from './dates.ts'
import { prune } from './parse.ts'
import type { ParsedResume } from './types.ts'

type Schema = { type: string | string[]; properties?: Record<string, Schema>; items?: Schema; required?: string[]; additionalProperties?: false }

const str: Schema = { type: ['string', 'null'] }
const strs: Schema = { type: ['array', 'null'], items: { type: 'string' } }
const obj = (properties: Record<string, Schema>, nullable = true): Schema => ({
  type: nullable ? ['object', 'null'] : 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
})
const list = (item: Schema): Schema => ({ type: ['array', 'null'], items: { ...item, type: 'object' } })

/**
 * ParsedResume as a strict schema: strict mode wants every property required, so optional
 * fields are nullable and nulls are dropped after. The open item types (certifications,
 * awards, volunteer) get the fields the heuristic parser writes; other_fields is left out.
 */
export const PARSED_RESUME_SCHEMA: Schema = obj(
  {
    personal_information: obj({
      data: obj({
        full_name: str, email: str, phone_number: str,
        address: obj({ street: str, city: str, state: str, zip_code: str, country: str }),
        links: strs,
      }, false),
    }),
    summary_or_objective: str,
    skills: list(obj({ category: { type: 'string' }, details: { type: 'array', items: { type: 'string' } } })),
    work_experience: list(obj({ title: str, company: str, location: str, start_date: str, end_date: str, responsibilities: strs, achievements: strs })),
    education: list(obj({ degree: str, institution: str, location: str, start_date: str, end_date: str, GPA: str, relevant_courses: strs, thesis_or_project: str })),
    projects: list(obj({ name: str, description: str, technologies: strs, industry: str, link: str, images_or_links: strs })),
    certifications: list(obj({ name: str, issuer: str, date: str })),
    awards: list(obj({ title: str, issuer: str, date: str, description: str })),
    volunteer_experience: list(obj({ role: str, organization: str, location: str, start_date: str, end_date: str, description: strs })),
    custom_sections: list(obj({ title: { type: 'string' }, content: { type: 'array', items: { type: 'string' } } })),
    languages: strs,
    hobbies_and_interests: strs,
  },
  false,
)

/** Where a value breaks the schema ("$.work_experience[0].title: expected string or null"), or null. */
export function schemaError(value: unknown, schema: Schema, at = '$'): string | null {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value
  if (!types.includes(kind)) return `${at}: expected ${types.join(' or ')}, got ${kind}`
  if (kind === 'array') {
    const items = value as unknown[]
    for (let i = 0; i < items.length; i++) {
      const e = schemaError(items[i], schema.items!, `${at}[${i}]`)
      if (e) return e
    }
  }
  if (kind === 'object' && schema.properties) {
    const o = value as Record<string, unknown>
    for (const k of Object.keys(o)) if (!(k in schema.properties)) return `${at}.${k}: not in the schema`
    for (const k of schema.required ?? []) {
      if (!(k in o)) return `${at}.${k}: missing`
      const e = schemaError(o[k], schema.properties[k], `${at}.${k}`)
      if (e) return e
    }
  }
  return null
}

const SYSTEM = [
  'You extract structured data from resumes. Answer with the JSON schema given.',
  'Use only what the resume text says; use null for anything it does not state. Do not invent values.',
  'Dates are YYYY-MM, or YYYY when no month is written, or "Present" for a current role.',
  'Phone numbers in E.164 (+<country><number>) when the country is clear, else as written.',
  'A draft parse from a rule-based parser is given: keep what it got right, correct what it got wrong, fill what it missed.',
].join(' ')

/** Characters of resume text sent: a long CV is cut rather than refused by the model's context. */
const MAX_TEXT = 30_000

export async function refineWithLlm(text: string, parsed: ParsedResume, client: OpenAI, model: string): Promise<ParsedResume> {
  const res = await client.chat.completions.create({
    model,
    temperature: 0,
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `Resume text:\n"""\n${text.slice(0, MAX_TEXT)}\n"""\n\nDraft parse:\n${JSON.stringify(parsed)}` },
    ],
    response_format: { type: 'json_schema', json_schema: { name: 'parsed_resume', strict: true, schema: PARSED_RESUME_SCHEMA as unknown as Record<string, unknown> } },
  })
  const choice = res.choices?.[0]
  if (!choice) throw new Error('llm: no choice in the answer')
  if (choice.message.refusal) throw new Error(`llm: refused: ${choice.message.refusal}`)
  if (choice.finish_reason === 'length') throw new Error('llm: answer cut at the token limit')
  const content = choice.message.content
  if (!content) throw new Error('llm: empty answer')
  let answer: unknown
  try {
    answer = JSON.parse(content)
  } catch (e) {
    throw new Error('llm: answer is not JSON', { cause: e })
  }
  const bad = schemaError(answer, PARSED_RESUME_SCHEMA)
  if (bad) throw new Error(`llm: answer does not match the schema: ${bad}`)
  const fromLlm = normalizeDates((prune(answer) ?? {}) as ParsedResume)
  return mergeParsed(parsed, fromLlm)
}

/** Dates the model wrote in another form ("Jan 2020") to YYYY-MM; ones that do not parse are dropped. */
function normalizeDates(p: ParsedResume): ParsedResume {
  const fix = (o: Record<string, unknown>) => {
    for (const k of ['start_date', 'end_date', 'date']) {
      if (typeof o[k] === 'string') {
        const d = normalizeDate(o[k] as string)
        if (d) o[k] = d
        else delete o[k]
      }
    }
  }
  for (const key of ['work_experience', 'education', 'certifications', 'awards', 'volunteer_experience'] as const) {
    for (const item of (p[key] ?? []) as Record<string, unknown>[]) fix(item)
  }
  return p
}

/**
 * The model's answer over the heuristic result: its scalars win, its non-empty lists replace
 * the heuristic's, and each of its list items borrows the fields it lacks from the heuristic
 * item of the same company, institution or name.
 */
export function mergeParsed(base: ParsedResume, llm: ParsedResume): ParsedResume {
  const out: ParsedResume = { ...base, version: 'v1' }
  const b = base.personal_information?.data ?? {}
  const l = llm.personal_information?.data ?? {}
  const data = { ...b, ...l }
  if (b.address || l.address) data.address = { ...b.address, ...l.address }
  if (Object.keys(data).length) out.personal_information = { data }
  if (llm.summary_or_objective) out.summary_or_objective = llm.summary_or_objective
  const keyOf = (item: Record<string, unknown>) =>
    String(item.company ?? item.institution ?? item.name ?? item.title ?? item.organization ?? item.category ?? '').toLowerCase().trim()
  for (const key of ['skills', 'work_experience', 'education', 'projects', 'certifications', 'awards', 'volunteer_experience', 'custom_sections'] as const) {
    const items = llm[key] as Record<string, unknown>[] | undefined
    if (!items?.length) continue
    const old = (base[key] ?? []) as Record<string, unknown>[]
    ;(out as Record<string, unknown>)[key] = items.map((item) => {
      const k = keyOf(item)
      const match = k ? old.find((o) => keyOf(o) === k) : undefined
      return match ? { ...match, ...item } : item
    })
  }
  if (llm.languages?.length) out.languages = llm.languages
  if (llm.hobbies_and_interests?.length) out.hobbies_and_interests = llm.hobbies_and_interests
  return out
}
