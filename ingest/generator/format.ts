/** Locale-free number and date formatting, so output never depends on the machine's ICU data. */

/** 120000 -> "120,000"; 1200000 with indian=true -> "12,00,000". */
export function groupDigits(n: number, indian = false): string {
  const [int, frac] = String(n).split('.')
  let head = int
  let tail = ''
  if (indian && int.length > 3) {
    tail = ',' + int.slice(-3)
    head = int.slice(0, -3)
    head = head.replace(/\B(?=(\d{2})+(?!\d))/g, ',')
  } else {
    head = head.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  }
  return head + tail + (frac ? '.' + frac : '')
}

/** Date -> "YYYY-MM-DD" (UTC). */
export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10)
}

export const DAY_MS = 86_400_000
