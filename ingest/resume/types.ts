/**
 * The spec's "Parsed resume" (version v1). Every field is optional and present only
 * when detected: a parser leaves out what it did not find rather than guessing.
 */

export type Address = { street?: string; city?: string; state?: string; zip_code?: string; country?: string }

export type PersonalInformation = {
  full_name?: string
  email?: string
  /** E.164 when the number parses (libphonenumber-js), otherwise as written */
  phone_number?: string
  address?: Address
  links?: string[]
}

export type WorkExperience = {
  title?: string
  company?: string
  location?: string
  /** YYYY-MM, or YYYY when the month is not given */
  start_date?: string
  /** YYYY-MM, YYYY, or "Present" */
  end_date?: string
  responsibilities?: string[]
  achievements?: string[]
}

export type Education = {
  degree?: string
  institution?: string
  location?: string
  start_date?: string
  end_date?: string
  GPA?: string
  relevant_courses?: string[]
  thesis_or_project?: string
}

export type Project = { name?: string; description?: string; technologies?: string[]; industry?: string; link?: string; images_or_links?: string[] }

export type SkillGroup = { category: string; details: string[] }

/** certifications, awards, volunteer_experience: the spec leaves their items' fields open */
export type SectionItem = Record<string, string | string[]>

export type ParsedResume = {
  personal_information?: { data: PersonalInformation }
  summary_or_objective?: string
  skills?: SkillGroup[]
  work_experience?: WorkExperience[]
  education?: Education[]
  projects?: Project[]
  certifications?: SectionItem[]
  awards?: SectionItem[]
  volunteer_experience?: SectionItem[]
  /** sections under headings the parser does not know: { title, content[] } */
  custom_sections?: { title: string; content: string[] }[]
  languages?: string[]
  hobbies_and_interests?: string[]
  other_fields?: Record<string, unknown>
  version: 'v1'
}

/** A resume file's text as read, in reading order, one line per visual line. */
export type ResumeText = {
  text: string
  /** what the client should know about the reading: "OCR used", "little text found", ... */
  warnings: string[]
  ocr: boolean
  pages: number
}

/**
 * A file that cannot be read as a resume: wrong type, content not matching its type,
 * corrupt, empty, encrypted, too large, or taking too long. The message is the 400's
 * detail, written for the client; it never quotes the file's content.
 */
export class ResumeFileError extends Error {}
