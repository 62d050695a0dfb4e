// Simulated time: the world's timers run one at a time in time order (a virtual clock), every job between them drains, and the checker looks after every step.
import FakeTimers, { type Clock } from "@sinonjs/fake-timers";
import { never, type Life } from "./faults";
import type { Rng } from "./rng";

export const START_MS = Date.UTC(2026, 10, 23, 8, 0, 0);

/** Installs the virtual clock over the process's timers and Date (uninstall it when the world ends). */
export function installClock(): Clock {
  return FakeTimers.withGlobal(globalThis).install({
    now: START_MS,
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
    loopLimit: 1_000_000,
  });
}

/** Drains every pending promise job and process tick (one turn of the real event loop). */
const drain = () => new Promise<void>((resolve) => setImmediate(resolve));

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class Scheduler {
  constructor(
    private readonly clock: Clock,
    private readonly rng: Rng,
    private readonly stats: Record<string, number>,
    private readonly afterStep: () => void,
  ) {}

  /** Runs the world until `until()` holds or `budgetMs` of simulated time passed; false when the budget ran out. */
  async run(until: () => boolean, budgetMs: number): Promise<boolean> {
    let over = false;
    const sentinel = setTimeout(() => (over = true), budgetMs);
    let still = 0;
    let at = Date.now();
    try {
      for (;;) {
        await drain();
        this.afterStep();
        if (until()) return true;
        if (over) return false;
        this.clock.next();
        this.stats.steps = (this.stats.steps ?? 0) + 1;
        if (Date.now() === at) {
          if (++still > 20_000) throw new Error(`livelock: 20,000 timers at ${new Date(at).toISOString()} without time moving`);
        } else {
          still = 0;
          at = Date.now();
        }
      }
    } finally {
      clearTimeout(sentinel);
    }
  }

  /** Runs the world until `work` ends (or the budget runs out); its result, or undefined. */
  async runUntilDone<T>(work: Promise<T>, budgetMs: number): Promise<T | undefined> {
    let done = false;
    let result: T | undefined;
    void work.then(
      (r) => {
        result = r;
        done = true;
      },
      () => (done = true),
    );
    await this.run(() => done, budgetMs);
    return result;
  }

  /** The user waits a while; a pane that died meanwhile takes its user's flow with it (nothing after runs). */
  async think(life: Life, min: number, max: number): Promise<void> {
    if (life.dead) return never();
    await sleep(this.rng.int(min, max));
    if (life.dead) return never();
  }
}
