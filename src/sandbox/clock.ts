// The sandbox clock: real time plus an offset that only moves forward (POST /_sandbox/clock); fills, maturity and carry all read it.

export const DAY_MS = 86_400_000;

export class SandboxClock {
  private offset: number;
  private readonly listeners = new Set<() => void>();

  /** `realNow` is injectable so that tests can freeze real time and move only the offset. */
  constructor(
    private readonly realNow: () => number = Date.now,
    offsetMs = 0,
  ) {
    this.offset = offsetMs;
  }

  /** Milliseconds since the epoch, as the sandbox sees it. */
  now(): number {
    return this.realNow() + this.offset;
  }

  get offsetMs(): number {
    return this.offset;
  }

  /** Moves time forward; every listener (the fill and maturity scheduler) runs at once. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError("the sandbox clock only moves forward");
    this.offset += ms;
    for (const listener of this.listeners) listener();
  }

  /** Puts the offset back (reset), without notifying. */
  setOffset(ms: number): void {
    this.offset = ms;
  }

  onAdvance(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
