// `--state FILE`: the whole sandbox state as JSON, checked by a schema when loaded, written atomically (temp file, fsync, rename) before a change is answered, and held by one sandbox at a time (a lock file).
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { HEDGE_STATUSES, issuePath, SIDES, TENORS } from "../api/schemas";
import { accountConfigSchema } from "./accounts";
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
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`state file ${file} is not JSON (${(e as Error).message}); move it away to start fresh`, { cause: e });
  }
  if ((json as { version?: unknown } | null)?.version !== STATE_VERSION)
    throw new Error(`state file ${file} is not a version ${STATE_VERSION} sandbox state; move it away to start fresh`);
  const parsed = savedStateSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 3).map((i) => `${issuePath(i.path)}: ${i.message}`);
    const more = parsed.error.issues.length > 3 ? ` (and ${parsed.error.issues.length - 3} more)` : "";
    throw new Error(`state file ${file} is not a valid sandbox state: ${problems.join("; ")}${more}; move it away to start fresh`);
  }
  return parsed.data as unknown as SavedState;
}

// ---- the state file's schema (src/sandbox/state.ts): unknown extra fields are kept, so a newer engine field survives a load

const num = z.number().finite();
const int = z.number().int();
const nullableNum = num.nullable();
const text = z.string();

const pendingOrderSchema = z.looseObject({
  kind: z.enum(["open", "add", "decrease", "close"]),
  orderTx: text,
  submittedAt: num,
  dueAt: num,
  notional: num,
  margin: num,
  openFee: num,
  closeFee: num,
  full: z.boolean().optional(),
});

const hedgeStateSchema = z.looseObject({
  id: text,
  seq: int,
  owner: text,
  clientReference: text.nullable(),
  market: text,
  side: z.enum(SIDES),
  tenorDays: z.union(TENORS.map((t) => z.literal(t)) as [z.ZodLiteral<1>, z.ZodLiteral<3>, z.ZodLiteral<7>]),
  status: z.enum(HEDGE_STATUSES),
  notional: num,
  margin: num,
  openFee: num,
  closeFee: num,
  entry: nullableNum,
  orderTx: text.nullable(),
  fillTx: text.nullable(),
  orderKey: text,
  openedAt: num,
  filledAt: nullableNum,
  maturityAt: num,
  closedAt: nullableNum,
  carry: num,
  carryFrom: num,
  lastEventAt: num,
  orders: z.array(pendingOrderSchema),
});

const closedRecordSchema = z.looseObject({
  seq: int,
  hedgeId: text,
  clientReference: text.nullable(),
  market: text,
  side: z.enum(SIDES),
  size: num,
  collateral: num,
  entry: num,
  exit: num,
  openedAt: num,
  closedAt: num,
  exitType: z.enum(["close", "decrease", "maturity"]),
  gross: num,
  carry: num,
  fees: num,
  net: num,
});

const accountStateSchema = z.looseObject({
  config: accountConfigSchema.loose(),
  env: z.enum(["production", "sandbox"]),
  startingBalance: num,
  balance: num,
  hedges: z.array(hedgeStateSchema),
  history: z.array(closedRecordSchema),
});

export const savedStateSchema = z.looseObject({
  version: z.literal(STATE_VERSION),
  saved_at: text,
  engine: z.looseObject({
    seed: int,
    priceOriginMs: num,
    clockOffsetMs: num,
    rngState: num,
    seq: int,
    accounts: z.array(accountStateSchema),
  }),
  idempotency: z.array(
    z.looseObject({
      scope: text,
      key: text,
      fingerprint: text,
      createdAt: num,
      response: z.looseObject({ status: int, body: text }),
    }),
  ),
});

/** Writes the file so that a reader (or a crash) sees either the old or the new content, never a mix. */
export function saveState(file: string, state: SavedState): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    const fd = openSync(temp, "w");
    try {
      writeSync(fd, JSON.stringify(state));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (e) {
    rmSync(temp, { force: true }); // a failed write leaves the state file as it was, and nothing beside it
    throw e;
  }
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

  /** Writes what is pending now; false when the write failed (the change stays pending for the next write). */
  flush(): boolean {
    if (this.sealed) return true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.dirty) return true;
    this.dirty = false;
    try {
      saveState(this.file, this.collect());
      return true;
    } catch (e) {
      this.dirty = true;
      this.onError(e as Error);
      return false;
    }
  }
}

/** How long an unreadable lock file is taken for one being written by a sandbox that is starting, not a dead one's. */
const LOCK_WRITE_GRACE_MS = 2_000;

/** Lock files held by sandboxes of this process (a second one in the same process is refused too). */
const heldHere = new Set<string>();

interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
}

function readOwner(lock: string): LockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(lock, "utf8")) as LockOwner;
    return typeof owner?.pid === "number" ? owner : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // alive, but another user's
  }
}

export interface StateLock {
  /** The lock file, `<state file>.lock`. */
  path: string;
  release(): void;
}

/**
 * Takes `<file>.lock` for this process, so that two sandboxes never share one state file (each would overwrite the
 * other's changes). A lock left by a process that is gone (kill -9) is taken over; one of a live process is refused.
 */
export function lockStateFile(file: string): StateLock {
  const lock = `${resolve(file)}.lock`;
  const inUse = (by: string) =>
    new Error(`state file ${file} is in use by ${by} (lock file ${lock}); stop that sandbox, or give this one another --state file`);
  if (heldHere.has(lock)) throw inUse(`another sandbox in this process (pid ${process.pid})`);
  mkdirSync(dirname(lock), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lock, "wx");
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), started_at: new Date().toISOString() } satisfies LockOwner));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      heldHere.add(lock);
      return {
        path: lock,
        release: () => {
          if (!heldHere.delete(lock)) return;
          try {
            if (readOwner(lock)?.pid === process.pid) unlinkSync(lock);
          } catch {
            // Already gone.
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) {
        if ((e as NodeJS.ErrnoException).code === "EEXIST") throw inUse("another sandbox that started at the same moment");
        throw new Error(`cannot create the lock file ${lock}: ${(e as Error).message}`, { cause: e });
      }
      const owner = readOwner(lock);
      if (owner && owner.host !== hostname())
        throw inUse(`a sandbox on ${owner.host} (pid ${owner.pid}); if it is not running, delete the lock file`);
      if (owner && owner.pid !== process.pid && alive(owner.pid))
        throw inUse(`another sandbox (pid ${owner.pid}); if no sandbox runs as pid ${owner.pid} now, delete the lock file`);
      // Unreadable and fresh: another sandbox has just created it and is writing its pid.
      if (!owner && Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0) < LOCK_WRITE_GRACE_MS)
        throw inUse("another sandbox that is starting");
      // Left by a process that is gone (or unreadable, i.e. half-written by one killed while writing it): take it over.
      unlinkSync(lock);
    }
  }
}
