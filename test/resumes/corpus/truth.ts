/**
 * Ground truth for the generated resume corpus: structured resumes drawn from a seeded PRNG,
 * so the same seed gives the same people, jobs and dates on every machine.
 *
 *   generateTruths(64)  ->  64 TruthResume, the first one e.g.
 *   { name: 'Małgorzata Wiśniewska', phone: { display: '+48 512 345 678', e164: '+48512345678' }, work: [...] }
 *
 * Names come from many languages and scripts written in Latin letters (with their diacritics),
 * phones are written in each country's usual formats, and occupations span software, nursing,
 * finance, sales, design, logistics, teaching, hospitality, HR, civil engineering and marketing.
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js'

export type YearMonth = { year: number; month: number }

export type TruthWork = {
  title: string
  company: string
  location: string
  start: YearMonth
  /** null: the current job ("Present") */
  end: YearMonth | null
  bullets: string[]
}

export type TruthEducation = {
  degree: string
  institution: string
  location: string
  start: YearMonth
  end: YearMonth
  gpa?: string
}

export type TruthResume = {
  id: string
  name: string
  /** the culture the name was drawn from: spanish, vietnamese, polish, ... */
  origin: string
  field: string
  email: string
  /** display: as written on the resume; e164: what libphonenumber-js makes of it */
  phone: { display: string; e164: string; country: CountryCode }
  city: string
  country: string
  links: string[]
  summary: string
  work: TruthWork[]
  education: TruthEducation[]
  skills: { category: string; items: string[] }[]
  projects?: { name: string; description: string; technologies: string[] }[]
  certifications?: { name: string; issuer: string; year: number }[]
  languages?: string[]
  hobbies?: string[]
}

/** mulberry32: small, fast and good enough for test data; the same seed gives the same stream. */
export function prng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1))
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]
  const chance = (p: number) => next() < p
  const sample = <T>(xs: readonly T[], n: number): T[] => {
    const copy = [...xs]
    const out: T[] = []
    while (out.length < n && copy.length) out.push(copy.splice(Math.floor(next() * copy.length), 1)[0])
    return out
  }
  return { next, int, pick, chance, sample }
}
export type Rng = ReturnType<typeof prng>

type Place = { city: string; country: string; cc: CountryCode }
type Origin = {
  key: string
  /** family name first (Vietnamese, written as in Vietnam) */
  familyFirst?: boolean
  given: string[]
  family: string[]
  places: Place[]
  institutions: { name: string; city: string }[]
  mother: string
}

const ORIGINS: Origin[] = [
  {
    key: 'spanish', given: ['José Luis', 'María', 'Lucía', 'Álvaro', 'Íñigo', 'Begoña', 'Martín', 'Ramón'],
    family: ['García Núñez', 'Fernández', 'Muñoz Peña', 'Ibáñez', 'Rodríguez', 'Sánchez Ortega', 'Gómez'],
    places: [{ city: 'Madrid', country: 'Spain', cc: 'ES' }, { city: 'Sevilla', country: 'Spain', cc: 'ES' }, { city: 'Ciudad de México', country: 'Mexico', cc: 'MX' }, { city: 'Bogotá', country: 'Colombia', cc: 'CO' }],
    institutions: [{ name: 'Universidad Complutense de Madrid', city: 'Madrid' }, { name: 'Universidad de Sevilla', city: 'Sevilla' }, { name: 'Universidad Nacional Autónoma de México', city: 'Ciudad de México' }],
    mother: 'Spanish',
  },
  {
    key: 'vietnamese', familyFirst: true, given: ['Thị Minh Anh', 'Văn Đức', 'Quỳnh Hương', 'Hoàng Nam', 'Thu Thảo', 'Quốc Bảo'],
    family: ['Nguyễn', 'Trần', 'Phạm', 'Lê', 'Đặng', 'Võ'],
    places: [{ city: 'Hà Nội', country: 'Vietnam', cc: 'VN' }, { city: 'Hồ Chí Minh City', country: 'Vietnam', cc: 'VN' }, { city: 'Đà Nẵng', country: 'Vietnam', cc: 'VN' }],
    institutions: [{ name: 'Hanoi University of Science and Technology', city: 'Hà Nội' }, { name: 'Vietnam National University, Ho Chi Minh City', city: 'Hồ Chí Minh City' }, { name: 'Foreign Trade University', city: 'Hà Nội' }],
    mother: 'Vietnamese',
  },
  {
    key: 'polish', given: ['Małgorzata', 'Łukasz', 'Wojciech', 'Agnieszka', 'Paweł', 'Zofia', 'Grzegorz'],
    family: ['Wiśniewska', 'Kowalczyk', 'Zieliński', 'Wróbel', 'Dąbrowska', 'Szczęsny', 'Król'],
    places: [{ city: 'Kraków', country: 'Poland', cc: 'PL' }, { city: 'Warszawa', country: 'Poland', cc: 'PL' }, { city: 'Wrocław', country: 'Poland', cc: 'PL' }, { city: 'Gdańsk', country: 'Poland', cc: 'PL' }],
    institutions: [{ name: 'Politechnika Warszawska', city: 'Warszawa' }, { name: 'Uniwersytet Jagielloński', city: 'Kraków' }, { name: 'Uniwersytet Wrocławski', city: 'Wrocław' }],
    mother: 'Polish',
  },
  {
    key: 'german', given: ['Jürgen', 'Björn', 'Käthe', 'Lena', 'Matthias', 'Sören', 'Anneliese'],
    family: ['Müller', 'Groß', 'Schäfer', 'Köhler', 'Weiß', 'Bäcker', 'von Löwenstein'],
    places: [{ city: 'München', country: 'Germany', cc: 'DE' }, { city: 'Köln', country: 'Germany', cc: 'DE' }, { city: 'Zürich', country: 'Switzerland', cc: 'CH' }, { city: 'Wien', country: 'Austria', cc: 'AT' }],
    institutions: [{ name: 'Technische Universität München', city: 'München' }, { name: 'Universität zu Köln', city: 'Köln' }, { name: 'ETH Zürich', city: 'Zürich' }],
    mother: 'German',
  },
  {
    key: 'irish', given: ['Siobhán', 'Seán', 'Niamh', 'Pádraig', 'Aoife', 'Caoimhe', 'Ciarán'],
    family: ["O'Sullivan", 'Ó Briain', 'Mac Giolla Phádraig', 'Ní Bhriain', 'McCarthy', 'Ó Súilleabháin', 'Ní Mhurchú'],
    places: [{ city: 'Dublin', country: 'Ireland', cc: 'IE' }, { city: 'Cork', country: 'Ireland', cc: 'IE' }, { city: 'Galway', country: 'Ireland', cc: 'IE' }, { city: 'Belfast', country: 'United Kingdom', cc: 'GB' }],
    institutions: [{ name: 'University College Dublin', city: 'Dublin' }, { name: 'Trinity College Dublin', city: 'Dublin' }, { name: 'University of Galway', city: 'Galway' }],
    mother: 'Irish',
  },
  {
    key: 'chinese', given: ['Wei', 'Xiaoming', 'Jing', 'Yutong', 'Haoran', 'Zhiwei', 'Měilíng'],
    family: ['Zhang', 'Li', 'Wang', 'Chen', 'Liu', 'Lü', 'Xú'],
    places: [{ city: 'Shanghai', country: 'China', cc: 'CN' }, { city: 'Shenzhen', country: 'China', cc: 'CN' }, { city: 'Singapore', country: 'Singapore', cc: 'SG' }, { city: 'Vancouver', country: 'Canada', cc: 'CA' }],
    institutions: [{ name: 'Tsinghua University', city: 'Beijing' }, { name: 'Fudan University', city: 'Shanghai' }, { name: 'National University of Singapore', city: 'Singapore' }],
    mother: 'Mandarin',
  },
  {
    key: 'indian', given: ['Priya', 'Arjun', 'Aishwarya', 'Venkatesh', 'Rohan', 'Sneha', 'Karthik'],
    family: ['Raghunathan', 'Sharma', 'Iyer', 'Chatterjee', 'Reddy', 'Venkataraman', 'Patel'],
    places: [{ city: 'Bengaluru', country: 'India', cc: 'IN' }, { city: 'Pune', country: 'India', cc: 'IN' }, { city: 'Chennai', country: 'India', cc: 'IN' }, { city: 'Hyderabad', country: 'India', cc: 'IN' }],
    institutions: [{ name: 'Indian Institute of Technology Bombay', city: 'Mumbai' }, { name: 'Anna University', city: 'Chennai' }, { name: 'University of Delhi', city: 'New Delhi' }],
    mother: 'Hindi',
  },
  {
    key: 'nigerian', given: ['Chukwuemeka', 'Adaeze', 'Oluwaseun', 'Ngozi', 'Babatunde', 'Ifeoma', 'Olúwáṣeun'],
    family: ['Okonkwo', 'Adeyemi', 'Obi', 'Nwosu', 'Balogun', 'Adébáyọ̀', 'Eze'],
    places: [{ city: 'Lagos', country: 'Nigeria', cc: 'NG' }, { city: 'Abuja', country: 'Nigeria', cc: 'NG' }, { city: 'Port Harcourt', country: 'Nigeria', cc: 'NG' }, { city: 'Accra', country: 'Ghana', cc: 'GH' }],
    institutions: [{ name: 'University of Lagos', city: 'Lagos' }, { name: 'Obafemi Awolowo University', city: 'Ile-Ife' }, { name: 'University of Nigeria, Nsukka', city: 'Nsukka' }],
    mother: 'Yoruba',
  },
  {
    key: 'arabic', given: ['Muhammad', 'Fatima', 'Abdul-Rahman', 'Layla', 'Yusuf', 'Nour', 'Khalid'],
    family: ['Al-Hashimi', 'El-Sayed', 'Abu Bakr', 'Al-Farsi', 'Haddad', 'bin Rashid', 'Al-Qahtani'],
    places: [{ city: 'Dubai', country: 'United Arab Emirates', cc: 'AE' }, { city: 'Riyadh', country: 'Saudi Arabia', cc: 'SA' }, { city: 'Cairo', country: 'Egypt', cc: 'EG' }, { city: 'Amman', country: 'Jordan', cc: 'JO' }],
    institutions: [{ name: 'American University of Beirut', city: 'Beirut' }, { name: 'Cairo University', city: 'Cairo' }, { name: 'King Saud University', city: 'Riyadh' }],
    mother: 'Arabic',
  },
  {
    key: 'french-turkish-portuguese', given: ['Zoë', 'Françoise', 'João', 'Çağla', 'Şükrü', 'Hélène', 'Gonçalo'],
    family: ['Lefèvre', 'Gonçalves', 'Yılmaz', 'Öztürk', 'Dupré', 'Conceição', 'Çelik'],
    places: [{ city: 'Lyon', country: 'France', cc: 'FR' }, { city: 'Lisboa', country: 'Portugal', cc: 'PT' }, { city: 'İstanbul', country: 'Turkey', cc: 'TR' }, { city: 'São Paulo', country: 'Brazil', cc: 'BR' }],
    institutions: [{ name: 'Université Claude Bernard Lyon 1', city: 'Lyon' }, { name: 'Universidade de Lisboa', city: 'Lisboa' }, { name: 'Boğaziçi Üniversitesi', city: 'İstanbul' }],
    mother: 'French',
  },
  {
    key: 'english', given: ['Emily', 'James', 'Olivia', 'Michael', 'Hannah', 'Daniel'],
    family: ['Carter', "O'Neill", 'Thompson', 'Richardson-Hughes', 'Walker', 'Bennett'],
    places: [{ city: 'Austin, TX', country: 'USA', cc: 'US' }, { city: 'Manchester', country: 'United Kingdom', cc: 'GB' }, { city: 'Toronto, ON', country: 'Canada', cc: 'CA' }, { city: 'Melbourne', country: 'Australia', cc: 'AU' }],
    institutions: [{ name: 'University of Texas at Austin', city: 'Austin, TX' }, { name: 'University of Manchester', city: 'Manchester' }, { name: 'University of Toronto', city: 'Toronto, ON' }, { name: 'Monash University', city: 'Melbourne' }],
    mother: 'English',
  },
  {
    key: 'japanese', given: ['Tarō', 'Shōta', 'Yūko', 'Haruka', 'Kenji'],
    family: ['Yamada', 'Itō', 'Satō', 'Ōtsuka', 'Kobayashi'],
    places: [{ city: 'Tokyo', country: 'Japan', cc: 'JP' }, { city: 'Osaka', country: 'Japan', cc: 'JP' }],
    institutions: [{ name: 'University of Tokyo', city: 'Tokyo' }, { name: 'Keio University', city: 'Tokyo' }, { name: 'Osaka University', city: 'Osaka' }],
    mother: 'Japanese',
  },
]

type Field = {
  key: string
  ladder: string[]
  companies: string[]
  bullets: string[]
  skills: { category: string; items: string[] }[]
  degrees: string[]
  summary: string
  projects?: { name: string; description: string; technologies: string[] }[]
  certifications?: { name: string; issuer: string }[]
}

const FIELDS: Field[] = [
  {
    key: 'software',
    ladder: ['Junior Software Developer', 'Software Engineer', 'Senior Software Engineer', 'Staff Engineer', 'Backend Developer', 'Full Stack Developer'],
    companies: ['Northwind Systems', 'Brightwave Labs', 'Kestrel Analytics GmbH', 'Orbital Payments Ltd.', 'Tidepool Software', 'Quantix Solutions Pvt. Ltd.'],
    bullets: ['Designed and shipped a payments API handling 2M requests per day', 'Cut CI build time from 25 to 8 minutes by caching dependencies', 'Mentored four junior developers through code review and pairing', 'Migrated a monolith to containerised services on Kubernetes', 'Reduced p95 latency by 40% by rewriting hot database queries'],
    skills: [{ category: 'Languages', items: ['TypeScript', 'Python', 'Go', 'SQL'] }, { category: 'Frameworks', items: ['React', 'Node.js', 'Django'] }, { category: 'Tools', items: ['Docker', 'Kubernetes', 'PostgreSQL', 'Git', 'AWS'] }],
    degrees: ['BSc Computer Science', 'Bachelor of Engineering in Software Engineering', 'MSc Distributed Systems'],
    summary: 'Backend-leaning engineer who enjoys turning slow, fragile systems into fast and boring ones.',
    projects: [{ name: 'Open Transit Planner', description: 'Route planner for regional buses using open GTFS feeds', technologies: ['TypeScript', 'PostGIS'] }, { name: 'tinyqueue', description: 'A priority queue library with 3k weekly downloads', technologies: ['Go'] }],
    certifications: [{ name: 'AWS Certified Solutions Architect – Associate', issuer: 'Amazon Web Services' }, { name: 'Certified Kubernetes Administrator', issuer: 'CNCF' }],
  },
  {
    key: 'nursing',
    ladder: ['Staff Nurse', 'Registered Nurse', 'Charge Nurse', 'Clinical Nurse Specialist', 'ICU Nurse'],
    companies: ["St. Brigid's Hospital", 'Mercy University Hospital', 'Klinikum Rechts der Isar', 'Apollo Hospitals', 'Lagos University Teaching Hospital', 'Royal Victoria Infirmary'],
    bullets: ['Provided care for up to 8 patients per shift on a 30-bed surgical ward', 'Administered medications and IV therapy following hospital protocols', 'Trained 12 newly qualified nurses in electronic charting', 'Led the ward falls-prevention audit, reducing falls by 18%', 'Coordinated discharge planning with physiotherapy and social work'],
    skills: [{ category: 'Clinical', items: ['Patient assessment', 'IV therapy', 'Wound care', 'Medication administration'] }, { category: 'Systems', items: ['Epic', 'Cerner'] }, { category: 'Certifications', items: ['BLS', 'ACLS'] }],
    degrees: ['Bachelor of Science in Nursing', 'BSc (Hons) Adult Nursing', 'Diploma in Nursing'],
    summary: 'Compassionate registered nurse with acute-care experience in surgical and intensive care units.',
    certifications: [{ name: 'Advanced Cardiovascular Life Support (ACLS)', issuer: 'American Heart Association' }, { name: 'Basic Life Support', issuer: 'Irish Heart Foundation' }],
  },
  {
    key: 'finance',
    ladder: ['Financial Analyst', 'Senior Accountant', 'Finance Manager', 'Credit Risk Analyst', 'Investment Associate'],
    companies: ['Meridian Capital Partners', 'Banco Atlántico', 'Allied Irish Banks', 'Emirates NBD', 'Kapitał Invest S.A.', 'Harbourview Asset Management'],
    bullets: ['Built the monthly forecasting model used by the CFO for a 40M EUR budget', 'Closed the books within 4 working days each month', 'Reduced reconciliation errors by 35% with automated checks', 'Prepared board reporting packs and variance analysis', 'Assessed credit risk for a 120-client SME loan portfolio'],
    skills: [{ category: 'Finance', items: ['Financial modelling', 'IFRS', 'Budgeting', 'Variance analysis'] }, { category: 'Software', items: ['Excel', 'SAP', 'Power BI'] }],
    degrees: ['Bachelor of Commerce', 'BA Accounting and Finance', 'MBA'],
    summary: 'Chartered accountant with a record of tightening month-end close and building forecasts people trust.',
    certifications: [{ name: 'ACCA', issuer: 'Association of Chartered Certified Accountants' }, { name: 'CFA Level II', issuer: 'CFA Institute' }],
  },
  {
    key: 'sales',
    ladder: ['Sales Representative', 'Account Executive', 'Senior Account Manager', 'Regional Sales Manager', 'Business Development Manager'],
    companies: ['Vantage Office Supplies', 'Helios Medical Devices', 'Nordlicht Vertrieb GmbH', 'Sunrise Telecom', 'Cedar & Stone Realty', 'Andes Beverages S.A.'],
    bullets: ['Exceeded annual quota by 127% in 2022', 'Grew the territory from 40 to 95 active accounts', 'Negotiated a 3-year supply contract worth 2.1M USD', 'Ran weekly pipeline reviews in Salesforce for a team of 6'],
    skills: [{ category: 'Sales', items: ['Negotiation', 'Pipeline management', 'Key account management', 'Cold calling'] }, { category: 'Tools', items: ['Salesforce', 'HubSpot', 'LinkedIn Sales Navigator'] }],
    degrees: ['BA Business Administration', 'Bachelor of Business Studies', 'Diploma in Marketing'],
    summary: 'Consultative B2B seller who builds long client relationships and steady, predictable pipeline.',
  },
  {
    key: 'design',
    ladder: ['Graphic Designer', 'UX Designer', 'Senior Product Designer', 'Art Director', 'UI Designer'],
    companies: ['Studio Papillon', 'Pixelfield Design', 'Lumen & Co.', 'Hoa Sen Creative', 'Blue Heron Agency', 'Kraków Design Works'],
    bullets: ['Redesigned the checkout flow, lifting conversion by 14%', 'Built and maintained a design system of 120 components', 'Ran 30 usability sessions and turned findings into roadmap items', 'Produced brand identities for 15 small businesses'],
    skills: [{ category: 'Design', items: ['User research', 'Prototyping', 'Typography', 'Design systems'] }, { category: 'Tools', items: ['Figma', 'Adobe Illustrator', 'Photoshop', 'After Effects'] }],
    degrees: ['BA Graphic Design', 'Bachelor of Fine Arts', 'MA Interaction Design'],
    summary: 'Product designer who works from research to pixels and cares about accessible, calm interfaces.',
    projects: [{ name: 'Accessible Forms Kit', description: 'Open-source Figma kit of WCAG AA form patterns', technologies: ['Figma'] }],
  },
  {
    key: 'logistics',
    ladder: ['Warehouse Supervisor', 'Logistics Coordinator', 'Supply Chain Analyst', 'Operations Manager', 'Transport Planner'],
    companies: ['Maersk Line', 'DHL Supply Chain', 'Rhenus Logistik', 'Gulf Freight Services', 'TransAndina Cargo', 'Shannon Distribution Ltd.'],
    bullets: ['Managed inbound and outbound flows for a 20,000 m² warehouse', 'Cut order picking errors by 22% after re-slotting fast movers', 'Planned daily routes for a fleet of 35 trucks', 'Introduced cycle counting and raised inventory accuracy to 99.6%'],
    skills: [{ category: 'Operations', items: ['Inventory control', 'Route planning', 'Lean', 'Health and safety'] }, { category: 'Systems', items: ['SAP EWM', 'Oracle WMS', 'Excel'] }],
    degrees: ['BSc Logistics and Supply Chain Management', 'Bachelor of Transport Economics', 'Diploma in Operations Management'],
    summary: 'Operations lead who keeps warehouses accurate, safe and on time.',
    certifications: [{ name: 'APICS Certified Supply Chain Professional', issuer: 'ASCM' }, { name: 'Forklift Operator Licence', issuer: 'RSA' }],
  },
  {
    key: 'teaching',
    ladder: ['Primary School Teacher', 'Secondary Mathematics Teacher', 'Head of Department', 'Teaching Assistant', 'Lecturer'],
    companies: ['Scoil Mhuire National School', 'Colegio San Ignacio', 'Gymnasium am Markt', 'British International School', 'Lycée Victor Hugo'],
    bullets: ['Taught mathematics to classes of 28 students across years 7 to 11', 'Raised the pass rate in state exams from 71% to 88%', 'Designed a blended-learning curriculum used by five colleagues', 'Coordinated the school science fair for three years'],
    skills: [{ category: 'Teaching', items: ['Curriculum design', 'Classroom management', 'Assessment', 'Differentiated instruction'] }, { category: 'Digital', items: ['Google Classroom', 'Moodle'] }],
    degrees: ['Bachelor of Education', 'BA Mathematics', 'Professional Master of Education'],
    summary: 'Teacher who makes mathematics approachable and measures progress carefully.',
  },
  {
    key: 'hospitality',
    ladder: ['Front Desk Agent', 'Sous Chef', 'Restaurant Manager', 'Guest Relations Manager', 'Head Chef'],
    companies: ['Hotel Alfonso XIII', 'The Shelbourne', 'Jumeirah Beach Hotel', 'Café Lumière', 'Sheraton Lagos'],
    bullets: ['Supervised a team of 14 across breakfast and dinner service', 'Kept food cost under 28% while introducing a seasonal menu', 'Raised guest satisfaction scores from 4.1 to 4.6', 'Trained staff in HACCP and allergen handling'],
    skills: [{ category: 'Hospitality', items: ['Guest relations', 'Menu planning', 'HACCP', 'Rostering'] }, { category: 'Systems', items: ['Opera PMS', 'Micros POS'] }],
    degrees: ['Diploma in Culinary Arts', 'BA International Hospitality Management', 'Certificate in Hotel Operations'],
    summary: 'Hospitality manager focused on warm service and tight kitchen costs.',
  },
  {
    key: 'hr',
    ladder: ['HR Assistant', 'Recruiter', 'HR Business Partner', 'Talent Acquisition Lead', 'People Operations Manager'],
    companies: ['Greenfield Foods', 'Atlas Engineering Group', 'Saigon Garment Co.', 'Pinewood Healthcare', 'Volta Energy'],
    bullets: ['Hired 85 people in 12 months across engineering and operations', 'Reduced time-to-hire from 52 to 31 days', 'Rolled out a new performance review process for 600 staff', 'Handled employee relations cases in line with labour law'],
    skills: [{ category: 'HR', items: ['Recruitment', 'Employee relations', 'Onboarding', 'Compensation and benefits'] }, { category: 'Systems', items: ['Workday', 'BambooHR', 'Greenhouse'] }],
    degrees: ['BA Human Resource Management', 'BSc Psychology', 'MSc Organisational Behaviour'],
    summary: 'People partner who makes hiring fast and fair and keeps managers out of trouble.',
    certifications: [{ name: 'CIPD Level 5', issuer: 'CIPD' }, { name: 'SHRM-CP', issuer: 'SHRM' }],
  },
  {
    key: 'civil',
    ladder: ['Graduate Civil Engineer', 'Site Engineer', 'Structural Engineer', 'Project Engineer', 'Senior Civil Engineer'],
    companies: ['Arup', 'Ferrovial Construcción', 'Julius Berger Nigeria', 'Budimex S.A.', 'Larsen & Toubro'],
    bullets: ['Supervised construction of a 1.2 km road bridge on schedule', 'Prepared structural calculations to Eurocode 2 for a 9-storey building', 'Managed subcontractors and daily site safety briefings', 'Produced quantity take-offs and cost estimates for tenders'],
    skills: [{ category: 'Engineering', items: ['Structural analysis', 'Eurocodes', 'Site supervision', 'Cost estimation'] }, { category: 'Software', items: ['AutoCAD', 'Revit', 'ETABS', 'Primavera P6'] }],
    degrees: ['BEng Civil Engineering', 'MSc Structural Engineering', 'Bachelor of Technology in Civil Engineering'],
    summary: 'Chartered civil engineer who has delivered bridges, roads and mid-rise buildings.',
  },
  {
    key: 'marketing',
    ladder: ['Marketing Coordinator', 'Digital Marketing Specialist', 'Content Marketing Manager', 'Brand Manager', 'Growth Marketer'],
    companies: ['Zest Consumer Brands', 'Aurora Cosmetics', 'Kiwi Media Group', 'Mango Fintech', 'Danube Travel'],
    bullets: ['Grew organic traffic by 180% in 18 months', 'Managed a paid media budget of 600k EUR across Google and Meta', 'Launched a loyalty campaign that reached 1.4M customers', 'Wrote and edited a weekly newsletter with a 41% open rate'],
    skills: [{ category: 'Marketing', items: ['SEO', 'Content strategy', 'Paid social', 'Email marketing'] }, { category: 'Tools', items: ['Google Analytics', 'HubSpot', 'Canva', 'Mailchimp'] }],
    degrees: ['BA Marketing', 'Bachelor of Communication', 'MSc Digital Marketing'],
    summary: 'Marketer who ties campaigns to revenue and writes copy people read.',
  },
]

const HOBBIES = ['Hiking', 'Chess', 'Photography', 'Marathon running', 'Cooking', 'Volunteering at a food bank', 'Piano', 'Football', 'Gardening', 'Reading science fiction']
const OTHER_LANGUAGES = ['English', 'French', 'German', 'Spanish', 'Portuguese', 'Arabic', 'Mandarin']
const LEVELS = ['native', 'fluent', 'professional working proficiency', 'B2', 'conversational', 'C1']

/** Plain ASCII for email local parts: "Małgorzata Wiśniewska" -> "malgorzata.wisniewska". */
export function asciiFold(s: string): string {
  return s
    .replace(/[łŁ]/g, (c) => (c === 'ł' ? 'l' : 'L'))
    .replace(/[đĐ]/g, (c) => (c === 'đ' ? 'd' : 'D'))
    .replace(/ı/g, 'i')
    .replace(/ß/g, 'ss')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
}

/** Mobile number shapes per country: leading digits and how many random digits follow. */
const PHONE_SHAPES: Partial<Record<CountryCode, { lead: string[]; rest: number }>> = {
  ES: { lead: ['6', '7'], rest: 8 }, MX: { lead: ['55', '33', '81'], rest: 8 }, CO: { lead: ['31', '30'], rest: 8 },
  VN: { lead: ['09', '03', '08'], rest: 8 }, PL: { lead: ['5', '6', '7'], rest: 8 }, DE: { lead: ['015', '016', '017'], rest: 8 },
  CH: { lead: ['07'], rest: 8 }, AT: { lead: ['0664'], rest: 7 }, IE: { lead: ['083', '085', '086', '087'], rest: 7 }, GB: { lead: ['07'], rest: 9 },
  CN: { lead: ['13', '15', '18'], rest: 9 }, SG: { lead: ['8', '9'], rest: 7 }, CA: { lead: ['416', '604'], rest: 7 },
  IN: { lead: ['9', '8', '7'], rest: 9 }, NG: { lead: ['080', '081', '070'], rest: 8 }, GH: { lead: ['024', '020'], rest: 7 },
  AE: { lead: ['050', '055'], rest: 7 }, SA: { lead: ['05'], rest: 8 }, EG: { lead: ['010', '011', '012'], rest: 8 }, JO: { lead: ['07'], rest: 8 },
  FR: { lead: ['06', '07'], rest: 8 }, PT: { lead: ['91', '93', '96'], rest: 7 }, TR: { lead: ['05'], rest: 9 }, BR: { lead: ['119', '219'], rest: 8 },
  US: { lead: ['512', '737'], rest: 7 }, AU: { lead: ['04'], rest: 8 }, JP: { lead: ['090', '080'], rest: 8 },
}

/**
 * A valid mobile number for the country, written in one of the ways people write them:
 * international ("+48 512 345 678"), national ("0851 234 567"), "(+82) 10-9030-1843"-style,
 * dotted or run together. The E.164 form is what libphonenumber-js makes of the display
 * string given the country, so the truth matches what a careful parser can reach.
 */
function makePhone(r: Rng, cc: CountryCode) {
  const shape = PHONE_SHAPES[cc] ?? { lead: ['9'], rest: 8 }
  for (let attempt = 0; attempt < 200; attempt++) {
    let nat = r.pick(shape.lead)
    for (let i = 0; i < shape.rest; i++) nat += String(r.int(0, 9))
    const p = parsePhoneNumberFromString(nat, cc)
    if (!p || !p.isValid()) continue
    const intl = p.formatInternational()
    const national = p.formatNational()
    const digits = p.nationalNumber
    const style = r.int(0, 5)
    let display: string
    if (style === 0) display = intl
    else if (style === 1) display = national
    else if (style === 2) display = `(+${p.countryCallingCode}) ${intl.replace(/^\+\d+\s*/, '').replace(/\s+/g, '-')}`
    else if (style === 3) display = `+${p.countryCallingCode}.${digits.slice(0, 3)}.${digits.slice(3, 6)}.${digits.slice(6)}`
    else if (style === 4) display = p.number
    else display = `+${p.countryCallingCode} ${digits}`
    const check = parsePhoneNumberFromString(display, cc)
    if (!check || check.number !== p.number) continue
    return { display, e164: p.number as string, country: cc }
  }
  throw new Error(`no valid phone number for ${cc}`)
}

function monthsBetween(a: YearMonth, b: YearMonth) {
  return (b.year - a.year) * 12 + (b.month - a.month)
}
function addMonths(a: YearMonth, n: number): YearMonth {
  const m = a.year * 12 + (a.month - 1) + n
  return { year: Math.floor(m / 12), month: (m % 12) + 1 }
}

/** The "today" the corpus is written at, fixed so that dates never drift. */
export const CORPUS_NOW: YearMonth = { year: 2025, month: 6 }

function makeResume(r: Rng, index: number): TruthResume {
  const origin = ORIGINS[index % ORIGINS.length]
  const field = FIELDS[(index * 7 + r.int(0, FIELDS.length - 1)) % FIELDS.length]
  const given = r.pick(origin.given)
  const family = r.pick(origin.family)
  const name = origin.familyFirst ? `${family} ${given}` : `${given} ${family}`
  const home = r.pick(origin.places)
  const fold = (s: string) => asciiFold(s).toLowerCase().replace(/[^a-z]+/g, '')
  const local = r.pick([
    `${fold(given.split(' ')[0])}.${fold(family)}`,
    `${fold(given)[0]}${fold(family)}`,
    `${fold(family)}.${fold(given.split(' ').pop()!)}${r.int(1, 99)}`,
    `${fold(given.split(' ')[0])}_${fold(family)}`,
  ])
  const email = `${local}@${r.pick(['gmail.com', 'outlook.com', 'proton.me', 'yahoo.com', 'mail.example.org', 'posteo.de'])}`
  const phone = makePhone(r, home.cc)
  const links: string[] = []
  if (r.chance(0.6)) links.push(`linkedin.com/in/${local.replace(/[._]/g, '-')}`)
  if (field.key === 'software' && r.chance(0.8)) links.push(`github.com/${local.replace(/[._]/g, '')}`)
  if (field.key === 'design' && r.chance(0.8)) links.push(`https://${fold(family)}.design`)

  // Work history backwards from now: the first entry is current with probability 0.7.
  const nWork = r.int(1, 4)
  const work: TruthWork[] = []
  let cursor: YearMonth = r.chance(0.7) ? CORPUS_NOW : addMonths(CORPUS_NOW, -r.int(2, 10))
  const titles = r.sample(field.ladder, field.ladder.length)
  const companies = r.sample(field.companies, field.companies.length)
  for (let i = 0; i < nWork; i++) {
    const end: YearMonth | null = i === 0 && cursor === CORPUS_NOW ? null : cursor
    const start = addMonths(cursor, -r.int(8, 48))
    const place = r.chance(0.75) ? home : r.pick(ORIGINS[r.int(0, ORIGINS.length - 1)].places)
    work.push({
      title: titles[i % titles.length],
      company: companies[i % companies.length],
      location: `${place.city}, ${place.country}`,
      start,
      end,
      bullets: r.sample(field.bullets, r.int(1, 3)),
    })
    cursor = addMonths(start, -r.int(0, 5))
  }
  // Education ends before the earliest job.
  const nEdu = r.int(1, 2)
  const education: TruthEducation[] = []
  let eduEnd: YearMonth = { year: cursor.year, month: r.pick([5, 6, 7]) }
  if (monthsBetween(cursor, eduEnd) > 0) eduEnd = { year: cursor.year - 1, month: eduEnd.month }
  const degrees = r.sample(field.degrees, 2)
  const schools = r.sample(origin.institutions, 2)
  for (let i = 0; i < nEdu; i++) {
    const years = i === 0 && nEdu === 2 ? r.int(1, 2) : r.int(3, 4)
    const start: YearMonth = { year: eduEnd.year - years, month: 9 }
    const gpa = r.chance(0.35) ? r.pick(['3.6/4.0', '3.85', '8.7/10', 'First Class Honours', '2:1', '3.2/4.0']) : undefined
    education.push({ degree: degrees[i], institution: schools[i].name, location: schools[i].city, start, end: eduEnd, ...(gpa ? { gpa } : {}) })
    eduEnd = { year: start.year, month: r.pick([5, 6, 7]) }
  }

  const skills = field.skills.map((g) => ({ category: g.category, items: r.sample(g.items, Math.max(2, g.items.length - r.int(0, 1))) }))
  const resume: TruthResume = {
    id: `r${String(index + 1).padStart(3, '0')}`,
    name,
    origin: origin.key,
    field: field.key,
    email,
    phone,
    city: home.city,
    country: home.country,
    links,
    summary: field.summary,
    work,
    education,
    skills,
  }
  if (field.projects && r.chance(0.6)) resume.projects = r.sample(field.projects, r.int(1, field.projects.length))
  if (field.certifications && r.chance(0.6)) {
    resume.certifications = r.sample(field.certifications, r.int(1, field.certifications.length)).map((c) => ({ ...c, year: r.int(2015, 2024) }))
  }
  if (r.chance(0.6)) {
    const langs = [`${origin.mother} (native)`]
    for (const l of r.sample(OTHER_LANGUAGES.filter((x) => x !== origin.mother), r.int(1, 2))) langs.push(`${l} (${r.pick(LEVELS.slice(1))})`)
    resume.languages = langs
  }
  if (r.chance(0.45)) resume.hobbies = r.sample(HOBBIES, r.int(2, 4))
  return resume
}

export const DEFAULT_SEED = 20250601
export const DEFAULT_COUNT = 64

/** `count` resumes from `seed`; resume i depends only on (seed, i), so a prefix is a prefix. */
export function generateTruths(count = DEFAULT_COUNT, seed = DEFAULT_SEED): TruthResume[] {
  const out: TruthResume[] = []
  for (let i = 0; i < count; i++) out.push(makeResume(prng(seed * 1000 + i), i))
  return out
}
