/**
 * Repairs the text-encoding damage resume builders and PDF tools leave behind (pure functions).
 *
 * 1. Mojibake: UTF-8 bytes read as Windows-1252 or Latin-1. "idÃ©es" -> "idées",
 *    "Â·" -> "·", "â€“" -> "–", "resultsÂ in" -> "results in". A run of characters is
 *    turned back into the bytes they stand for and decoded as UTF-8; the run is replaced only
 *    when that decoding is valid, so real "Â" or "ï" in a name stays. The byte values come
 *    from iconv-lite's windows-1252 codec (Node's TextDecoder reads windows-1252 as Latin-1),
 *    not from a table written here; the npm packages for mojibake, fix-utf8 and
 *    fix-latin1-to-utf8, are tables of two-byte Latin sequences and leave three-byte ones such
 *    as "ï¼Œ" alone. A lone "Â" before a space is a no-break space's first byte.
 *    A sequence that lost its last byte (a C1 control the reader dropped: "Company Name ï¼ City")
 *    cannot be decoded; it becomes U+FFFD, which resume parsing reads as a field separator.
 * 2. Compatibility characters: ligatures ("ﬁ" -> "fi") and full-width forms ("，" -> ",") are
 *    folded by NFKC, only within their blocks, so "²" or "™" are left as written.
 */

import iconv from 'iconv-lite'

/** character -> the byte windows-1252 (or, for its five holes, Latin-1) decodes to it */
const BYTE_OF = new Map<string, number>()
for (let b = 0; b < 256; b++) BYTE_OF.set(iconv.decode(Buffer.from([b]), 'win1252'), b)
for (let b = 0x80; b < 0xa0; b++) if (!BYTE_OF.has(String.fromCharCode(b))) BYTE_OF.set(String.fromCharCode(b), b)

const charsOf = (lo: number, hi: number) => [...BYTE_OF].filter(([, b]) => b >= lo && b <= hi).map(([c]) => c)
const escape = (cs: string[]) => cs.map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')
/** a UTF-8 lead byte (0xC2-0xF4) as its character, then continuation bytes (0x80-0xBF) as theirs */
const RUN_RE = new RegExp(`[${escape(charsOf(0xc2, 0xf4))}][${escape(charsOf(0x80, 0xbf))}]+`, 'g')
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Expected sequence length of a UTF-8 lead byte. */
const seqLength = (lead: number) => (lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2)

function fixRun(run: string): string {
  const bytes = Uint8Array.from([...run].map((c) => BYTE_OF.get(c)!))
  const out: string[] = []
  let i = 0
  while (i < bytes.length) {
    const n = seqLength(bytes[i])
    const seq = bytes.subarray(i, i + n)
    let cont = 1
    while (cont < seq.length && seq[cont] >= 0x80 && seq[cont] <= 0xbf) cont++
    if (cont === n) {
      try {
        out.push(utf8.decode(seq))
      } catch {
        return run
      }
      i += n
    } else if (cont >= 2 && i + cont === bytes.length) {
      // a three- or four-byte sequence cut short at the end of the run: its last byte was dropped.
      // "â€" lost 0x9D, the one byte of a common quote (”) that windows-1252 cannot show
      out.push(n === 3 && seq[0] === 0xe2 && seq[1] === 0x80 ? '\u201d' : '\ufffd')
      i += cont
    } else {
      return run
    }
  }
  return out.join('')
}

/** NFKC on ligatures (U+FB00-FB06) and full-width ASCII (U+FF01-FF5E) only. */
const COMPAT_RE = /[\ufb00-\ufb06\uff01-\uff5e]/g

export function repairText(text: string): string {
  let s = /[\u00c2-\u00f4]/.test(text) ? text.replace(RUN_RE, fixRun).replace(/\u00c2(?=[ \t]|$)/gm, '') : text
  s = s.replace(COMPAT_RE, (c) => c.normalize('NFKC'))
  // a no-break space the repair brought back is a space
  return s.replace(/\u00a0/g, ' ')
}
