/**
 * Company records rather than postings: remote-companies' profiles (title, slug,
 * website, careers_url, region, remote_policy, company_size, technologies, sections) or
 * the project's company shape (name, slug, link, size_range, …), as JSON lines or a JSON
 * array. `make ingest` hands them to ingest/companies.ts.
 */
import type { CompanyItem } from '../companies.ts'
import { isObject, keyScore, type Sample, type Source } from './adapter.ts'
import { jsonRecords } from './json-records.ts'

const PROFILE_KEYS = ['website', 'careers_url', 'company_size', 'remote_policy', 'technologies', 'sections', 'size_range', 'link']

export const companyProfiles = {
  name: 'companies',
  summary: 'company profiles (name or title, slug, website, careers_url, company_size words, technologies, remote_policy), JSON lines or a JSON array',
  detect(s: Sample) {
    if (s.layout !== 'lines' && s.layout !== 'array') return 0
    const scores = s.records.slice(0, 3).map((r) => (isObject(r) && !('job_title' in r) && ('title' in r || 'name' in r) ? keyScore(r, PROFILE_KEYS) : 0))
    return scores.length ? Math.min(1, 2 * Math.max(...scores)) : 0
  },
  async *read(source: Source): AsyncIterable<CompanyItem> {
    for await (const r of jsonRecords(source.open(), source.sample.layout)) {
      if ('error' in r) yield { line: r.n, error: r.error }
      else if (!isObject(r.value)) yield { line: r.n, error: 'not a JSON object' }
      else yield { line: r.n, company: r.value }
    }
  },
}
