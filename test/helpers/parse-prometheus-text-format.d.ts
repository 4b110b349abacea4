/** Types of parse-prometheus-text-format, which ships none: the parsed families, as its README shows them. */
declare module 'parse-prometheus-text-format' {
  type Labels = Record<string, string>
  export type Sample = { value?: string; labels?: Labels; buckets?: Record<string, string>; count?: string; sum?: string }
  export type Family = { name: string; help: string; type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'; metrics: Sample[] }
  export default function parsePrometheusTextFormat(text: string): Family[]
}
