// The world's one source of chance: the sandbox's seeded generator with the few draws the simulation makes (a seed replays every draw).
import { SeededRandom } from "../../../src/sandbox/random";

export class Rng extends SeededRandom {
  chance(p: number): boolean {
    return this.next() < p;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
}
