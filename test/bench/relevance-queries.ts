/**
 * A judged set of short queries, the kind job seekers and recruiters type, for
 * measuring vsearch / neural-search relevance (issue 21) on real postings: the
 * remote boards, new-grad listings and NHS postings of the shared datasets.
 *
 * Each rule judges a result relevant from its job title alone, so judging needs no
 * human and no look at rankings: the rules were written before any ranking was run,
 * and must not be tuned to one. A rule says what a person who typed the query would
 * accept as a fair hit, not only the literal words: "backend engineer" accepts a
 * Django or full-stack developer, but not a "Software Engineer" whose title does not
 * say which side it works on (a title can't tell, so it counts against every model
 * alike). Seniority and level words in a query ("entry-level") are not judged: titles
 * say them too rarely for a rule to be fair.
 *
 * `place`, where given, judges the posting's location string (city, region, country,
 * remote countries, location type); a query's precision is reported on the title
 * alone and, for those queries, also on title and place.
 *
 * Only queries with at least about 10 relevant postings in the ~4,000 live postings
 * are kept, so that precision@10 can reach 1.
 */

export type JudgedQuery = {
  query: string
  /** the job title is relevant when it matches (case-insensitive) */
  relevant: RegExp
  /** the posting's location string must match as well, when judged with place */
  place?: RegExp
  note?: string
}

// Shared by several queries: a registered nurse's title. "Nursing assistant" and
// "nursing associate" are not nurses, so the bare stem "nurs" is not enough.
const NURSE = /nurse|\brgn\b|\brmn\b|\brnld\b|\brn\b|\brscn\b|\bsister\b|matron/i

export const RELEVANCE_QUERIES: JudgedQuery[] = [
  // --- software and data
  {
    query: 'backend engineer',
    // full-stack roles do backend work; a language usually meant server-side counts
    relevant: /back[- ]?end|server[- ]side|\bapi (engineer|developer)|full[- ]?stack|platform engineer|\b(python|java|golang|go|ruby|rails|django|php|scala|elixir|rust|node(\.?js)?|\.net|c#|kotlin)\b[^,;]{0,25}\b(engineer|developer|dev)\b/i,
  },
  { query: 'frontend react developer', relevant: /front[- ]?end|\breact\b|\bui (engineer|developer)|javascript|typescript|\bweb (developer|engineer)|\bvue|angular|next\.?js/i },
  { query: 'full stack developer', relevant: /full[- ]?stack/i },
  { query: 'devops engineer', relevant: /dev[- ]?(sec)?ops|site reliability|\bsre\b|platform engineer|infrastructure engineer|cloud (engineer|architect)|kubernetes|build (and|&) release|release engineer/i },
  { query: 'data engineer', relevant: /data (engineer|platform|infrastructure|pipeline)|\betl\b|analytics engineer|big data|data warehouse|databricks|\bspark\b/i },
  { query: 'data analyst', relevant: /data analy|analytics|\b(information|insights?|reporting|performance|bi|business intelligence|marketing|product|data quality) analyst/i },
  { query: 'entry-level data scientist', relevant: /data scien|applied scientist|decision scientist|machine learning scientist/i, note: 'level not judged' },
  { query: 'machine learning engineer', relevant: /machine learning|\bml\b|\bmlops\b|artificial intelligence|deep learning|computer vision|\bnlp\b|\bllms?\b|applied scientist|\bai\b[^,;(]{0,20}\b(engineer|engineering|scientist|research|developer|architect|platform)|(engineer|developer|scientist)[^,;]{0,15}\bai\b/i,
    note: 'AI in a sales, strategy or data-labelling ("AI trainer") title is not ML engineering' },
  { query: 'ios developer', relevant: /\bios\b|\bswift\b|iphone|\bmobile (app |software )?(engineer|developer|dev)\b|react native|flutter/i, note: 'cross-platform mobile roles ship to iOS' },
  {
    query: 'security engineer',
    // a hospital's security officer (a guard) is not what this searcher wants
    relevant: /cyber|appsec|infosec|devsecops|penetration|pentest|\biam\b|identity (and|&) access|red team|\b(security|secops)\b[^,;]{0,25}\b(engineer|architect|analyst|researcher|developer|specialist)|(engineer|architect|developer)[^,;]{0,15}\bsecurity/i,
  },
  {
    query: 'qa test engineer',
    // COVID-19 test-site roles (NHS, 2020) say "test" but are not software testing
    // a hospital's radiology or research QA is clinical governance, not software testing
    relevant: /^(?!.*(radiology|clinical|research quality)).*(\bqa\b|quality assurance|\bsdet\b|\btest(er|ers|ing)?\b[^,;]{0,20}\b(engineer|analyst|automation|lead|manager|developer|specialist)|software test|test automation|\btesters?\b|quality engineer)/i,
  },
  { query: 'product manager', relevant: /product (manager|owner|lead|management|director|ops)|head of product|\bvp,? (of )?product|chief product|\bcpo\b|produktmanager|product ?owner|\bpm\b|\btpm\b/i },
  { query: 'designer ux', relevant: /\bux\b|\bui\b(?! (engineer|developer))|user experience|user interface|product design|interaction design|user research|service design|web design|design (lead|director|manager|engineer)|head of design|visual designer/i },
  {
    query: 'new grad software engineer',
    relevant: /^(?=.*(new (college )?grad|graduate|entry[- ]level|junior|early career|university|campus|\b20(25|26)\b|\b(i|1)\s*$|associate software|apprentice|trainee)).*(software|developer|\bswe\b|engineer)/i,
  },
  { query: 'python developer', relevant: /python|django|flask|fastapi/i },
  { query: 'java developer', relevant: /\bjava\b|\bspring\b|kotlin|\bjvm\b/i },
  {
    query: 'Softwareentwickler',
    // German for software developer (Arbeitnow's postings are German)
    relevant: /entwickl|developer|software|programm|full[- ]?stack|back[- ]?end|front[- ]?end/i,
  },
  {
    query: 'software engineer in New York',
    relevant: /software|developer|\bswe\b|programm|full[- ]?stack|back[- ]?end|front[- ]?end|(data|ml|machine learning|platform|infrastructure|devops|site reliability|mobile|ios|android) engineer/i,
    place: /new york|\bnyc\b|brooklyn|manhattan/i,
  },

  // --- business
  { query: 'customer support', relevant: /customer (support|success|service|care|experience|operations)|\b(support|service) (specialist|agent|engineer|representative|associate|advisor|analyst|technician)|technical support|tech support|help ?desk|service desk|client support|kundenservice|kundenbetreuer|kundensupport/i },
  {
    query: 'account executive',
    // account managers sell to accounts too; SDR/BDR prospect for AEs and are not AEs
    relevant: /account executive|\bae\b|account manager|sales executive|sales (rep|representative)|business development (executive|representative|manager|rep)|key account|(enterprise|mid[- ]?market|smb|commercial) (sales|account)/i,
  },
  {
    query: 'sales manager in Berlin',
    relevant: /sales|vertrieb|account (manager|executive)|business development|key account|außendienst|head of revenue/i,
    place: /berlin/i,
  },
  { query: 'marketing manager', relevant: /marketing|marketer|growth (manager|lead|marketing)|head of growth|brand (manager|lead)|demand gen|\bseo\b|\bsem\b|\bppc\b/i },
  { query: 'project manager', relevant: /project (manager|lead|coordinator|officer|support|director|management)|programme (manager|lead|director)|program manager|\bpmo\b|delivery (manager|lead)|projektleiter|projektmanager/i },
  { query: 'finance manager', relevant: /financ|accountant|accounting|\baccounts\b|controller|payroll|treasur|buchhalt/i },
  { query: 'hr manager', relevant: /(?<!\/)\bhr\b|human resources|people (partner|operations|ops|manager|lead|business partner)|workforce|personnel|employee relations|\bhrbp\b|personalreferent/i },

  // --- health (NHS)
  { query: 'nurse in London', relevant: NURSE, place: /london/i },
  {
    query: 'paediatric nurse',
    relevant: /^(?=.*(nurs|\brn\b|\brsc?n\b|sister|charge|practitioner)).*(pa?ediatric|paeds?\b|child|neonat|\bnicu\b|\bpicu\b|\brscn\b|\bcamhs\b|school)/i,
    note: "children's, neonatal and school nurses; CAMHS nurses care for children",
  },
  {
    query: 'mental health nurse',
    // mental health practitioner posts are mostly open to RMNs; learning disability nursing is another register
    relevant: /\brmn\b|\bcpn\b|community psychiatric|^(?=.*(nurs|\brn\b|practitioner|sister|charge)).*(mental health|psychiatric|camhs|\bmh\b|psychosis|crisis|forensic)/i,
  },
  { query: 'nurse practitioner', relevant: /nurse practitioner|advanced (clinical |nurse )?practitioner|\banp\b|\bacp\b/i },
  { query: 'ward manager', relevant: /ward manager|ward sister|charge nurse|unit manager|matron|\bsister\b/i },
  { query: 'midwife', relevant: /midwi/i },
  { query: 'physiotherapist', relevant: /physio/i },
  { query: 'occupational therapist', relevant: /occupational therap|\bots?\b/i },
  { query: 'speech and language therapist', relevant: /speech|\bsalt\b|\bslt\b/i },
  { query: 'radiographer', relevant: /radiograph/i, note: 'sonographers are another profession' },
  { query: 'pharmacist', relevant: /pharmacist/i, note: 'pharmacy technicians are not pharmacists' },
  { query: 'pharmacy technician', relevant: /pharmacy (technician|assistant|support)|dispens|pharmacy tech/i },
  {
    query: 'healthcare assistant',
    relevant: /health ?care assistant|\bhcas?\b|nursing assistant|care assistant|(clinical|healthcare|health care|nursing|ward|theatre|maternity|mental health) support worker|support worker.*(ward|clinical|healthcare|nursing)/i,
  },
  {
    query: 'admin assistant nhs',
    // system, database and Salesforce administrators are IT roles
    relevant: /^(?!.*(system|database|salesforce|\bsql\b|\bit\b|asset)).*(\badmins?\b|administrat|clerical|clerk|secretar|receptionist|personal assistant|\bpa to\b|office (assistant|manager|coordinator)|booking|data entry|medical records|typist|(pathway|patient|appointments?) co-?ordinator)/i,
    note: '"nhs" is not judged: every NHS posting is one',
  },
  {
    query: 'consultant psychiatrist',
    relevant: /^(?!.*nurs).*(psychiatrist|(consultant|doctor|registrar|speciality|specialty|fellow)\b.*psychiatr|psychiatr.*(consultant|doctor|registrar))/i,
  },
  { query: 'psychologist', relevant: /psycholog(ist|y)/i },
  { query: 'biomedical scientist', relevant: /biomedical|\bbms\b|laboratory scientist|medical laboratory/i },
  { query: 'social worker', relevant: /social work/i },
  { query: 'paramedic', relevant: /paramedic/i },
  { query: 'dietitian', relevant: /dietitian|dietician|nutritionist/i },
  {
    query: 'junior doctor',
    relevant: /^(?!.*consultant).*(doctor|\bfy[12]\b|foundation (year|doctor)|clinical fellow|registrar|\bst[1-8]\b|\bct[1-3]\b|trust grade|senior house officer|\bsho\b)/i,
    note: 'specialty doctors (not in training) are accepted; consultants are not',
  },
  {
    query: 'consultant anaesthetist',
    // anaesthetic practitioners and nurses assist anaesthetists; they are not doctors
    relevant: /^(?!.*(practitioner|nurse|\bodp\b|assistant|technician)).*(anaesthetist|anesthesiologist|anaesthe.*(consultant|doctor|registrar|fellow|speciality|specialty)|(consultant|doctor|registrar|fellow|speciality|specialty).*an(a)?esth)/i,
  },
  { query: 'theatre practitioner', relevant: /theatre|scrub|anaesthetic practitioner|\bodp\b|recovery practitioner/i },
  { query: 'domestic cleaner', relevant: /domestic|cleaner|housekeep|hotel services/i },
]

/** The share of the first k titles the rule accepts; fewer than k results count as misses. */
export function precisionAt(k: number, titles: readonly string[], rule: RegExp): number {
  let hits = 0
  for (const t of titles.slice(0, k)) if (rule.test(t)) hits++
  return hits / k
}
