// `--state FILE`: the whole sandbox state as JSON, checked by a schema when loaded, written atomically (temp file, fsync, rename) before a change is answered (the lock file is state-lock.ts).
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
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

/** The state file's permissions: read and write for its owner, nothing for anyone else. */
export const STATE_FILE_MODE = 0o600;

/** Writes the file so that a reader (or a crash) sees either the old or the new content, never a mix. */
export function saveState(file: string, state: SavedState): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    // Readable by its owner only: the state holds every account's keys whole. A rename keeps these permissions.
    const fd = openSync(temp, "w", STATE_FILE_MODE);
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
