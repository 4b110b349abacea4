/**
 * Skills grouped by category. "Languages: Python, Go" -> {category: "Languages", details: ["Python", "Go"]};
 * a category alone on a line ("Frameworks:") heads the lines below it; items without a
 * category go to "Skills". Categories written twice are merged.
 */
import { readBullet } from '../entries.ts'
import type { SkillGroup } from '../types.ts'
import { splitList } from './lists.ts'

const CATEGORY_RE = /^([\p{L}][\p{L}\d &/+#.,'()-]{1,40}?)\s*[:：]\s*(.*)$/u
const UNCATEGORIZED = 'Skills'

/** Capitals with a long word, as group names have and acronyms ("SAP EWM", "MS OFFICE") do not. */
const isGroupName = (text: string) =>
  /^[\p{Lu} &/-]+$/u.test(text) && text.split(/\s+/).length <= 3 && text.split(/[\s&/-]+/).some((w) => w.length >= 7)

export function extractSkills(lines: string[]): SkillGroup[] {
  const groups = new Map<string, string[]>()
  const add = (category: string, items: string[]) => {
    const list = groups.get(category) ?? []
    for (const i of items) if (!list.includes(i)) list.push(i)
    groups.set(category, list)
  }
  let category: string | null = null
  for (let i = 0; i < lines.length; i++) {
    const { text, bullet } = readBullet(lines[i])
    const m = text.match(CATEGORY_RE)
    // a table row "Languages | Python, Go": the first cell is the category
    const cells = text.split(/\s*\|\s*/)
    if (m && !/^https?$/i.test(m[1])) {
      if (m[2]) add(m[1].trim(), splitList(m[2]))
      else category = m[1].trim()
      continue
    }
    // a group's name in capitals alone on its line ("PROGRAMMING"); short capitals ("SQL", "AWS") are skills
    if (!bullet && isGroupName(text) && i + 1 < lines.length && !isGroupName(readBullet(lines[i + 1]).text)) {
      category = text
      continue
    }
    if (cells.length === 2 && cells[0].split(/\s+/).length <= 4 && /[,;]/.test(cells[1])) {
      add(cells[0].trim(), splitList(cells[1]))
      continue
    }
    // a bullet resets the running category only when it is itself a list
    add(category && !(bullet && category === null) ? category : UNCATEGORIZED, splitList(text).filter((s) => s.length <= 60))
  }
  return [...groups.entries()].filter(([, d]) => d.length > 0).map(([category, details]) => ({ category, details }))
}
