// Time for the feed hub: the system clock in the add-in, a manual clock that tests and benchmarks advance by hand.

export type TimerHandle = unknown;

export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Date.now and the global timers (which jest's fake timers replace). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

interface ManualTimer {
  id: number;
  at: number;
  callback: () => void;
}

/** Simulated time: nothing happens until `advance` moves the clock and fires the timers that fall due, in order. */
export class ManualClock implements Clock {
  private current: number;
  private nextId = 1;
  private readonly timers = new Map<number, ManualTimer>();

  constructor(start = Date.UTC(2025, 0, 6, 9, 0, 0)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { id, at: this.current + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as number);
  }

  /** Timers waiting to fire. */
  get pending(): number {
    return this.timers.size;
  }

  /** When the next timer is due, or null. */
  nextDue(): number | null {
    let next: number | null = null;
    for (const t of this.timers.values()) if (next === null || t.at < next) next = t.at;
    return next;
  }

  /**
   * Moves time forward by `ms`, firing each due timer at its own time. `settle` runs after every firing (e.g. to
   * wait for the HTTP a poll started), so timers set by a callback fire in the same advance when they fall due.
   */
  async advance(ms: number, settle: () => Promise<void> = () => Promise.resolve()): Promise<void> {
    const end = this.current + ms;
    for (;;) {
      const due = [...this.timers.values()].filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers.delete(due.id);
      this.current = Math.max(this.current, due.at);
      due.callback();
      await settle();
    }
    this.current = end;
    await settle();
  }
}
