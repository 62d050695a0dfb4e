// `--state FILE`: the whole sandbox state as JSON, loaded at start and written atomically (temp file, fsync, rename) after changes.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { IdempotencyRecord } from "./idempotency";
import type { EngineSnapshot } from "./state";

export const STATE_VERSION = 1;

export interface SavedState {
  version: number;
  saved_at: string;
  engine: EngineSnapshot;
  idempotency: IdempotencyRecord[];
}

/** The saved state, or null when the file does not exist yet. */
export function loadState(file: string): SavedState | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Error(`cannot read state file ${file}: ${(e as Error).message}`, { cause: e });
  }
  let state: SavedState;
  try {
    state = JSON.parse(text) as SavedState;
  } catch (e) {
    throw new Error(`state file ${file} is not JSON (${(e as Error).message}); move it away to start fresh`, { cause: e });
  }
  if (state?.version !== STATE_VERSION || !state.engine)
    throw new Error(`state file ${file} is not a version ${STATE_VERSION} sandbox state; move it away to start fresh`);
  return state;
}

/** Writes the file so that a reader (or a crash) sees either the old or the new content, never a mix. */
export function saveState(file: string, state: SavedState): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  const fd = openSync(temp, "w");
  try {
    writeSync(fd, JSON.stringify(state));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
}

/** Coalesces bursts of changes into one write `delayMs` later; `flush` writes at once if anything is pending. */
export class StateWriter {
  private timer: NodeJS.Timeout | null = null;
  private dirty = false;
  private sealed = false;

  constructor(
    private readonly file: string,
    private readonly collect: () => SavedState,
    private readonly delayMs = 25,
    private readonly onError: (e: Error) => void = (e) => console.error(`sandbox: could not save state: ${e.message}`),
  ) {}

  markDirty(): void {
    if (this.sealed) return;
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.delayMs);
    this.timer.unref();
  }

  /** Writes what is pending, then never writes again (a closed sandbox must not overwrite its successor's file). */
  close(): void {
    this.flush();
    this.sealed = true;
  }

  flush(): void {
    if (this.sealed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.dirty) return;
    this.dirty = false;
    try {
      saveState(this.file, this.collect());
    } catch (e) {
      this.onError(e as Error);
    }
  }
}
