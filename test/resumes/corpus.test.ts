import test from 'ava'
import mammoth from 'mammoth'
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs'
import { generateTruths, DEFAULT_COUNT } from './corpus/truth.ts'
import { corpusPlan, renderCorpus, renderOne, type RenderedResume } from './corpus/render.ts'
import { dateAlternatives, formatTable, normalizeText, phoneDigits, prf, rangeAlternatives, scoreResume, sumFields, type Expected } from '../eval/resume-score.ts'
import type { ParsedResume } from '../../ingest/resume/types.ts'

// The first 12 resumes cover every PDF, DOCX, HTML and text layout (cycles of 4, 3, 2 and 2)
// and one image PDF; rendering them takes a few seconds, the whole corpus some 20.
const SUBSET = 12
let subset: Promise<RenderedResume[]> | undefined
const renderSubset = () => (subset ??= renderCorpus(generateTruths(SUBSET)))

async function pdfText(bytes: Buffer): Promise<{ text: string; items: number; pages: number }> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise
  let text = ''
  let items = 0
  for (let i = 1; i <= pdf.numPages; i++) {
    const c = await (await pdf.getPage(i)).getTextContent()
    items += c.items.length
    text += c.items.map((x) => ('str' in x ? x.str : '')).join(' ') + '\n'
  }
  const pages = pdf.numPages
  await pdf.destroy()
  return { text: text.normalize('NFC'), items, pages }
}

test('the generator is deterministic and a prefix of a longer run', (t) => {
  const a = generateTruths()
  const b = generateTruths()
  t.true(a.length >= 60)
  t.is(a.length, DEFAULT_COUNT)
  t.deepEqual(a, b)
  t.deepEqual(generateTruths(5), a.slice(0, 5))
  t.notDeepEqual(generateTruths(5, 1), a.slice(0, 5))
})

test('the truths are varied: scripts, fields, phones that normalize, current jobs', (t) => {
  const all = generateTruths()
  t.true(new Set(all.map((r) => r.origin)).size >= 10)
  t.true(new Set(all.map((r) => r.field)).size >= 8)
  t.true(all.some((r) => /[ễặịđĐ]/.test(r.name)), 'a Vietnamese name with its diacritics')
  t.true(all.some((r) => /[łŁąęśżź]/.test(r.name)), 'a Polish name')
  for (const r of all) {
    t.regex(r.phone.e164, /^\+\d{8,15}$/, r.id)
    t.is(phoneDigits(r.phone.e164), r.phone.e164.slice(1))
    t.true(r.work.length >= 1 && r.work.length <= 4, r.id)
    t.true(r.education.length >= 1 && r.education.length <= 2, r.id)
    t.true(r.work.slice(1).every((w) => w.end !== null), 'only the first job can be current')
  }
  t.true(all.filter((r) => r.work[0].end === null).length > 20)
  t.true(new Set(all.map((r) => r.phone.display.replace(/\d/g, '9'))).size > 20, 'phones are written many ways')
})

test('the plan holds every format for every resume and at least 5 image-only PDFs', (t) => {
  const plan = corpusPlan(DEFAULT_COUNT)
  for (const format of ['pdf', 'docx', 'html', 'text'] as const) {
    t.is(new Set(plan.filter((p) => p.format === format).map((p) => p.truthIndex)).size, DEFAULT_COUNT, format)
  }
  t.true(plan.filter((p) => p.format === 'image-pdf').length >= 5)
  t.true(new Set(plan.map((p) => p.layout)).size >= 14)
})

test('rendering is deterministic', async (t) => {
  const [truth] = generateTruths(1)
  for (const format of ['pdf', 'html', 'text'] as const) {
    const item = corpusPlan(1).find((p) => p.format === format)!
    const [a, b] = [await renderOne(truth, item), await renderOne(truth, item)]
    t.true(a.bytes.equals(b.bytes), format)
  }
  // docx stamps the time into its core properties and zip entries: compare the text instead
  const item = corpusPlan(1).find((p) => p.format === 'docx')!
  const [a, b] = [await renderOne(truth, item), await renderOne(truth, item)]
  t.is((await mammoth.extractRawText({ buffer: a.bytes })).value, (await mammoth.extractRawText({ buffer: b.bytes })).value)
})

test('every rendered file holds the resume: the name, the email and each employer', async (t) => {
  const files = await renderSubset()
  t.true(new Set(files.map((f) => f.layout)).size >= 12)
  // the real shapes (flattened, builder) drop the email and punctuation on purpose: real-shapes.test.ts reads them
  for (const f of files.filter((x) => x.format !== 'image-pdf' && x.layout !== 'text-flattened' && x.layout !== 'text-builder')) {
    let text: string
    if (f.format === 'pdf') {
      t.is(f.bytes.subarray(0, 5).toString('latin1'), '%PDF-', f.name)
      text = (await pdfText(f.bytes)).text
    } else if (f.format === 'docx') {
      t.is(f.bytes.subarray(0, 2).toString('latin1'), 'PK', f.name)
      text = (await mammoth.extractRawText({ buffer: f.bytes })).value
    } else {
      text = f.bytes.toString('utf8').replace(/&amp;/g, '&').replace(/&#39;|&apos;/g, "'")
    }
    // pdfjs splits runs at font changes: compare without spaces
    const flat = text.normalize('NFC').replace(/\s+/g, '')
    t.true(flat.includes(f.expected.name!.replace(/\s+/g, '')), `${f.name}: name ${f.expected.name}`)
    t.true(flat.includes(f.truth.email), `${f.name}: email`)
    for (const w of f.truth.work) t.true(flat.includes(w.company.replace(/\s+/g, '')), `${f.name}: ${w.company}`)
  }
})

test('image-only PDFs have pages but no text layer', async (t) => {
  const images = (await renderSubset()).filter((f) => f.format === 'image-pdf')
  t.true(images.length >= 1)
  for (const f of images) {
    const { items, pages } = await pdfText(f.bytes)
    t.true(pages >= 1)
    t.is(items, 0, f.name)
    t.true(f.bytes.includes('/Subtype /Image'), f.name)
  }
})

// ---------------------------------------------------------------- scoring

const expected: Expected = {
  name: 'Siobhán Ó Súilleabháin',
  email: 'siobhan@example.ie',
  phone: '+353851234567',
  work: [
    { title: 'Charge Nurse', company: "St. Brigid's Hospital", start: ['2021-03'], end: ['present'] },
    { title: 'Staff Nurse', company: 'Mercy University Hospital', start: ['2019', '2019-06', '2019-07', '2019-08'], end: ['2021-02'] },
  ],
  degrees: ['Bachelor of Science in Nursing'],
  institutions: ['University College Dublin'],
  skills: ['IV therapy', 'Wound care', 'Epic'],
}

const perfect: ParsedResume = {
  version: 'v1',
  personal_information: { data: { full_name: 'Siobhán Ó Súilleabháin', email: 'siobhan@example.ie', phone_number: '+353851234567' } },
  work_experience: [
    // the other order: entries align by content, not by position
    { title: 'Staff Nurse', company: 'Mercy University Hospital', start_date: '2019-07', end_date: '2021-02' },
    { title: 'Charge Nurse', company: "St. Brigid's Hospital", start_date: '2021-03', end_date: 'Present' },
  ],
  education: [{ degree: 'Bachelor of Science in Nursing', institution: 'University College Dublin' }],
  skills: [{ category: 'Clinical', details: ['IV therapy', 'Wound care'] }, { category: 'Systems', details: ['Epic'] }],
}

test('a perfect parse scores 1 everywhere', (t) => {
  const { counts, misses } = scoreResume(expected, perfect)
  t.deepEqual(misses, [])
  for (const [field, c] of Object.entries(counts)) {
    t.is(c.fp + c.fn, 0, field)
    t.true(c.tp > 0, field)
    t.deepEqual(prf(c), { precision: 1, recall: 1, f1: 1 }, field)
  }
  t.deepEqual(sumFields(counts), { tp: 13, fp: 0, fn: 0, exact: 13 })
})

test('missing fields lower recall, not precision', (t) => {
  const parsed: ParsedResume = {
    version: 'v1',
    personal_information: { data: { full_name: 'Siobhán Ó Súilleabháin' } },
    work_experience: [{ title: 'Charge Nurse', company: "St. Brigid's Hospital", start_date: '2021-03', end_date: 'Present' }],
    skills: [{ category: 'Skills', details: ['IV therapy, Epic'] }],
  }
  const { counts, misses } = scoreResume(expected, parsed)
  t.deepEqual(counts.email, { tp: 0, fp: 0, fn: 1, exact: 0 })
  t.deepEqual(prf(counts.email), { precision: 1, recall: 0, f1: 0 })
  t.deepEqual(counts.work_title, { tp: 1, fp: 0, fn: 1, exact: 1 })
  t.deepEqual(prf(counts.work_title), { precision: 1, recall: 0.5, f1: 2 / 3 })
  t.deepEqual(counts.skills, { tp: 2, fp: 0, fn: 1, exact: 2 })
  t.deepEqual(counts.edu_degree, { tp: 0, fp: 0, fn: 1, exact: 0 })
  t.true(misses.some((m) => m.field === 'work_company' && m.expected === 'Mercy University Hospital' && m.got === undefined))
})

test('wrong values are both a false positive and a false negative', (t) => {
  const parsed: ParsedResume = {
    version: 'v1',
    personal_information: { data: { full_name: 'Curriculum Vitae', email: 'siobhan@example.ie', phone_number: '+353 85 123 4568' } },
    work_experience: [
      { title: 'Charge Nurse', company: 'Dublin, Ireland', start_date: '2021-04', end_date: 'Present' },
      { title: 'Staff Nurse', company: 'Mercy University Hospital', start_date: '2019-01', end_date: '2021' },
    ],
    education: [{ degree: 'University College Dublin', institution: 'Bachelor of Science in Nursing' }],
  }
  const { counts } = scoreResume(expected, parsed)
  t.deepEqual(counts.name, { tp: 0, fp: 1, fn: 1, exact: 0 })
  t.deepEqual(prf(counts.name), { precision: 0, recall: 0, f1: 0 })
  t.deepEqual(counts.phone, { tp: 0, fp: 1, fn: 1, exact: 0 })
  t.deepEqual(counts.work_company, { tp: 1, fp: 1, fn: 1, exact: 1 })
  t.deepEqual(prf(counts.work_company), { precision: 0.5, recall: 0.5, f1: 0.5 })
  t.deepEqual(counts.work_start, { tp: 0, fp: 2, fn: 2, exact: 0 }, '2019-01 is not a summer month; 2021-04 is not 2021-03')
  t.deepEqual(counts.work_end, { tp: 1, fp: 1, fn: 1, exact: 1 }, 'a bare year does not match a month')
  t.deepEqual(counts.edu_degree, { tp: 0, fp: 1, fn: 1, exact: 0 })
})

test('extra entries are false positives and unknown fields are not scored', (t) => {
  const parsed: ParsedResume = {
    ...perfect,
    work_experience: [...perfect.work_experience!, { title: 'Volunteer', company: 'Red Cross' }],
  }
  const { counts } = scoreResume({ name: expected.name, work: expected.work }, parsed)
  t.deepEqual(counts.work_title, { tp: 2, fp: 1, fn: 0, exact: 2 })
  t.deepEqual(counts.email, { tp: 0, fp: 0, fn: 0, exact: 0 })
  t.deepEqual(counts.skills, { tp: 0, fp: 0, fn: 0, exact: 0 })
})

test('matching ignores case, accents and punctuation; exact counts what also matched as written', (t) => {
  t.is(normalizeText('Ó Súilleabháin'), 'o suilleabhain')
  t.is(normalizeText('Łukasz  Dąbrowski-Król'), 'lukasz dabrowski krol')
  t.is(normalizeText('Cedar & Stone'), normalizeText('CEDAR AND STONE'))
  const { counts } = scoreResume({ name: 'Nguyễn Thị Minh Anh', titles: ['Sous Chef'] }, {
    version: 'v1',
    personal_information: { data: { full_name: 'NGUYEN THI MINH ANH' } },
    work_experience: [{ title: 'Sous Chef' }],
  })
  t.deepEqual(counts.name, { tp: 1, fp: 0, fn: 0, exact: 0 })
  t.deepEqual(counts.work_title, { tp: 1, fp: 0, fn: 0, exact: 1 })
})

test('dates and phones as written become comparable values', (t) => {
  t.deepEqual(dateAlternatives('Apr. 2019'), ['2019-04'])
  t.deepEqual(dateAlternatives('January 2020'), ['2020-01'])
  t.deepEqual(dateAlternatives('01/2020'), ['2020-01'])
  t.deepEqual(dateAlternatives('to date'), ['present'])
  t.deepEqual(dateAlternatives('Summer 2019'), ['2019', '2019-06', '2019-07', '2019-08'])
  t.deepEqual(rangeAlternatives('Feb 2017 - Present'), { start: ['2017-02'], end: ['present'] })
  t.deepEqual(rangeAlternatives('Summer 2015 and 2016'), {})
  t.is(phoneDigits('(+82) 10-2468-1357'), '821024681357')
  t.is(phoneDigits('+1-555-010-4477'), '15550104477')
})

test('the table has a row per scored field and an overall row', (t) => {
  const table = formatTable(scoreResume(expected, perfect).counts)
  t.regex(table, /^name\s+100\.0\s+100\.0\s+100\.0/m)
  t.regex(table, /^overall \(micro\)\s+100\.0/m)
  t.is(table.split('\n').length, 12)
})
