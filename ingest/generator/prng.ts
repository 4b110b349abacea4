/**
 * Seeded PRNG for the demo-data generator. mulberry32: 32-bit state, fast, and good
 * enough for synthetic data (it is not for anything security-related). Every random
 * choice in the generator goes through an Rng so that the same seed gives the same output.
 */
export class Rng {
  private s: number
  constructor(seed: number) {
    // Scramble the seed once so that neighbouring seeds (1, 2, 3) start far apart.
    this.s = hash32(seed >>> 0)
  }

  /** Uniform float in [0, 1). */
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) | 0)
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** Integer in [min, max], both ends included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]
  }

  /** Pick by weight from [item, weight] pairs. */
  weighted<T>(pairs: readonly (readonly [T, number])[]): T {
    let total = 0
    for (const [, w] of pairs) total += w
    let r = this.next() * total
    for (const [item, w] of pairs) {
      r -= w
      if (r < 0) return item
    }
    return pairs[pairs.length - 1][0]
  }

  /** Up to n distinct items, in random order (partial Fisher-Yates on a copy). */
  sample<T>(items: readonly T[], n: number): T[] {
    const copy = items.slice()
    const k = Math.min(n, copy.length)
    for (let i = 0; i < k; i++) {
      const j = i + Math.floor(this.next() * (copy.length - i))
      const tmp = copy[i]
      copy[i] = copy[j]
      copy[j] = tmp
    }
    return copy.slice(0, k)
  }

  /** Lowercase hex string of the given length. */
  hex(len: number): string {
    let out = ''
    while (out.length < len) out += Math.floor(this.next() * 4294967296).toString(16).padStart(8, '0')
    return out.slice(0, len)
  }

  /** RFC 4122 v4-shaped id (as Lever and Ashby use in their URLs). */
  uuid(): string {
    const h = this.hex(32)
    const variant = '89ab'[Math.floor(this.next() * 4)]
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`
  }

  /** An independent stream derived from this one, so adding draws in one place does not shift another. */
  fork(salt: number): Rng {
    return new Rng(hash32((this.next() * 4294967296) ^ salt))
  }
}

/** Integer hash (lowbias32) used to scramble seeds. */
export function hash32(x: number): number {
  x = x >>> 0
  x ^= x >>> 16
  x = Math.imul(x, 0x7feb352d)
  x ^= x >>> 15
  x = Math.imul(x, 0x846ca68b)
  x ^= x >>> 16
  return x >>> 0
}

/** Cumulative weights for repeated weighted picks over a fixed list (binary search per pick). */
export class WeightedIndex {
  private readonly cum: Float64Array
  constructor(weights: readonly number[]) {
    this.cum = new Float64Array(weights.length)
    let acc = 0
    for (let i = 0; i < weights.length; i++) this.cum[i] = acc += weights[i]
  }

  pick(rng: Rng): number {
    const total = this.cum[this.cum.length - 1]
    const r = rng.next() * total
    let lo = 0
    let hi = this.cum.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.cum[mid] > r) hi = mid
      else lo = mid + 1
    }
    return lo
  }
}
