// Seeded randomness: a small PRNG with a persistable state, and a stateless hash-to-normal used by the price walk.

// Module-scope copies: a global lookup per call is slow in some hosts (jest's vm context makes `Math.x` ~100× slower).
const { imul, sqrt, log, cos, floor, PI } = Math;

/** mulberry32: a fast 32-bit PRNG whose whole state is one integer, so it can be saved and restored. */
export class SeededRandom {
  constructor(private s: number) {
    this.s = s >>> 0;
  }

  get state(): number {
    return this.s;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

/** A 32-bit integer mix (lowbias32) of its inputs. */
export function hash32(a: number, b: number, c: number): number {
  let h = (a ^ imul(b, 0x9e3779b1) ^ imul(c, 0x85ebca77)) >>> 0;
  h ^= h >>> 16;
  h = imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A standard normal draw that depends only on (seed, stream, index): the same inputs always give the same number. */
export function normalAt(seed: number, stream: number, index: number): number {
  const lo = index >>> 0;
  const hi = floor(index / 4294967296) >>> 0;
  const u1 = (hash32(seed, lo, stream ^ hi) + 0.5) / 4294967296;
  const u2 = (hash32(seed ^ 0x5bd1e995, lo, stream ^ hi ^ 0x27d4eb2f) + 0.5) / 4294967296;
  return sqrt(-2 * log(u1)) * cos(2 * PI * u2);
}

/** A stable 32-bit number for a string (market symbols select their own random stream). */
export function hashString(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}
