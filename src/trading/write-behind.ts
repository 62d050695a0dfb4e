// The journal's write-behind queue: status updates coalesced per row and written within a short delay (or at once on flush), this computer's journal first (the entries the journal queued), then the Hedge Log in one call; a failed write kept for the next flush, a row the log lost written again and reported.
import type { Workbook } from "./workbook";
import { LOG_SHEET_NAME, type LogUpdate } from "./log/hedge-log";
import type { Intent } from "./intent";
import type { IntentStore, StoredIntent } from "./intent-store";

/** What the queue writes with, and to whom it answers (the journal passes them in). */
export interface WriteBehindPorts {
  workbook: Pick<Workbook, "ensureLog" | "updateLog">;
  /** This computer's journal and its scope; none: the log alone. */
  store?: { put: IntentStore["put"]; scope: string };
  /** The row of a key as the journal holds it now (undefined: it holds it no more): a row the log lost is written again from it. */
  intent(idempotencyKey: string): Intent | undefined;
  /** Appends rows the log lost at its end (as links of its chain). */
  appendAgain(intents: Intent[]): Promise<void>;
  report(error: Error): void;
  /** Updates arriving within this window go to the workbook in one call. */
  delayMs: number;
}

export class WriteBehind {
  private readonly pendingLog = new Map<string, LogUpdate>();
  /** Entries for this computer's journal, by idempotency key: the newest queued for a row replaces the one before. */
  private readonly pendingStore = new Map<string, StoredIntent>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private logEnsured = false;

  constructor(private readonly ports: WriteBehindPorts) {}

  /** Queues fields of a row's log update (merged over what is queued for it). */
  log(intent: Intent, fields: Omit<LogUpdate, "idempotencyKey">): void {
    const queued = this.pendingLog.get(intent.idempotencyKey) ?? { idempotencyKey: intent.idempotencyKey };
    this.pendingLog.set(intent.idempotencyKey, { ...queued, ...fields });
  }

  /** Queues a row's entry in this computer's journal, as the journal made it when the row changed (the newest one is written). */
  store(entry: StoredIntent): void {
    this.pendingStore.set(entry.record.idempotencyKey, entry);
  }

  /**
   * The journal read its rows again: each queued entry is made again from the row it holds now (`entryOf`), and dropped
   * when it holds the row no more.
   */
  retake(entryOf: (idempotencyKey: string) => StoredIntent | undefined): void {
    for (const key of [...this.pendingStore.keys()]) {
      const entry = entryOf(key);
      if (entry) this.pendingStore.set(key, entry);
      else this.pendingStore.delete(key);
    }
  }

  /** Flushes within the delay (one timer for every update meanwhile; flush() clears it, so the next update arms a new one). */
  soon(): void {
    this.timer ??= setTimeout(() => void this.flush().catch(() => undefined), this.ports.delayMs);
  }

  /** Writes every queued update now: the store first, then the log (one call each). */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.flushing = this.flushing.catch(() => undefined).then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    const { store, report } = this.ports;
    const entries = [...this.pendingStore.values()];
    this.pendingStore.clear();
    if (store && entries.length > 0) {
      try {
        await store.put(store.scope, entries);
      } catch (e) {
        // Put them back under anything newer, to be written next time.
        for (const entry of entries) {
          const key = entry.record.idempotencyKey;
          if (!this.pendingStore.has(key)) this.pendingStore.set(key, entry);
        }
        report(e instanceof Error ? e : new Error(String(e)));
        throw e;
      }
    }
    if (this.pendingLog.size === 0) return;
    const batch = [...this.pendingLog.values()];
    this.pendingLog.clear();
    let back: Intent[];
    try {
      if (!this.logEnsured) {
        await this.ports.workbook.ensureLog(); // an older log gets the columns added since, before they are written
        this.logEnsured = true;
      }
      const { missing } = await this.ports.workbook.updateLog(batch);
      // A missing row of an intent this journal no longer holds is not written again: it is an orphan (see Journal.load()).
      back = missing.map((k) => this.ports.intent(k)).filter((i): i is Intent => i !== undefined);
      if (back.length > 0) await this.ports.appendAgain(back);
    } catch (e) {
      // Put them back under anything newer, to be written next time.
      for (const u of batch) this.pendingLog.set(u.idempotencyKey, { ...u, ...this.pendingLog.get(u.idempotencyKey) });
      report(e instanceof Error ? e : new Error(String(e)));
      throw e;
    }
    for (const intent of back) {
      const key = intent.idempotencyKey;
      report(
        new Error(
          `The ${LOG_SHEET_NAME} has no row with idempotency key ${key} (${intent.action} ${intent.market} ${intent.side}): it was deleted or its key edited. ` +
            `The row was written again at the end of the log with its current state.`,
        ),
      );
    }
  }

  /** Updates queued but not yet written. */
  unflushed(): number {
    return Math.max(this.pendingLog.size, this.pendingStore.size);
  }
}
