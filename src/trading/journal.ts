// The journal: the "Hedge Log" table as the durable record of every intent. Appends before sending; status updates are coalesced into few workbook calls and never skip the state machine.
import { type Workbook } from "./workbook";
import { LOG_SHEET_NAME, type LogRecord, type LogUpdate } from "./hedge-log";
import { applyPatch, intentFromLogRecord, intentToLogRecord, type Intent, type IntentPatch } from "./intent";

export interface JournalOptions {
  /** Status updates arriving within this window go to the workbook in one call. Default 100 ms. */
  flushDelayMs?: number;
  /**
   * Called when a workbook write failed (the update is kept and retried on the next flush), and once per log row that
   * could not be found (deleted, or its key edited): that row's updates are dropped, the others are written.
   */
  onError?: (error: Error) => void;
}

export class Journal {
  private readonly intents = new Map<string, Intent>();
  private foreign: LogRecord[] = [];
  private readonly pending = new Map<string, LogUpdate>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly flushDelayMs: number;
  /** Keys whose log row is gone (reported once; their updates are dropped). */
  private readonly lost = new Set<string>();

  constructor(
    private readonly workbook: Workbook,
    private readonly options: JournalOptions = {},
  ) {
    this.flushDelayMs = options.flushDelayMs ?? 100;
  }

  /** Reads the log sheet into memory. Rows this add-in cannot read back as intents are kept (for duplicate checks) but never touched. */
  async load(): Promise<Intent[]> {
    const records = await this.workbook.readLog();
    this.intents.clear();
    this.foreign = [];
    for (const record of records) {
      const intent = intentFromLogRecord(record);
      if (intent) this.intents.set(intent.idempotencyKey, intent);
      else this.foreign.push(record);
    }
    return [...this.intents.values()];
  }

  get(idempotencyKey: string): Intent | undefined {
    return this.intents.get(idempotencyKey);
  }

  all(): Intent[] {
    return [...this.intents.values()];
  }

  /** Every log row as last written or queued. */
  records(): LogRecord[] {
    return [...this.foreign, ...[...this.intents.values()].map(intentToLogRecord)];
  }

  /** Writes new intents (status submitting) to the log. Resolves only once the workbook holds them: send after this, never before. */
  async append(intents: Intent[]): Promise<void> {
    for (const intent of intents) {
      if (intent.status !== "submitting")
        throw new Error(`Intent ${intent.idempotencyKey} must be journalled as submitting, not ${intent.status}.`);
      if (this.intents.has(intent.idempotencyKey)) throw new Error(`Intent ${intent.idempotencyKey} is already in the log.`);
    }
    await this.workbook.appendLog(intents.map(intentToLogRecord));
    for (const intent of intents) this.intents.set(intent.idempotencyKey, intent);
  }

  /**
   * Moves an intent (state machine enforced at once, in memory) and queues the log update.
   * Returns the changed fields; the write happens within flushDelayMs (await flush() to be sure).
   */
  update(intent: Intent, patch: IntentPatch): IntentPatch {
    const changed = applyPatch(intent, patch);
    if (Object.keys(changed).length === 0) return changed;
    const queued = this.pending.get(intent.idempotencyKey) ?? { idempotencyKey: intent.idempotencyKey };
    this.pending.set(intent.idempotencyKey, { ...queued, ...changed });
    this.timer ??= setTimeout(() => {
      this.timer = null;
      void this.flush().catch(() => undefined);
    }, this.flushDelayMs);
    return changed;
  }

  /** Writes every queued update now (one workbook call). */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.flushing = this.flushing
      .catch(() => undefined)
      .then(async () => {
        if (this.pending.size === 0) return;
        const batch = [...this.pending.values()];
        this.pending.clear();
        let missing: string[];
        try {
          ({ missing } = await this.workbook.updateLog(batch));
        } catch (e) {
          // Put them back under anything newer, to be written next time.
          for (const u of batch) this.pending.set(u.idempotencyKey, { ...u, ...this.pending.get(u.idempotencyKey) });
          this.report(e instanceof Error ? e : new Error(String(e)));
          throw e;
        }
        for (const key of missing) {
          if (this.lost.has(key)) continue;
          this.lost.add(key);
          const intent = this.intents.get(key);
          const what = intent ? `${intent.action} ${intent.market} ${intent.side}` : "a row";
          this.report(
            new Error(
              `The ${LOG_SHEET_NAME} has no row with idempotency key ${key} (${what}): it was deleted or its key edited, so its status can no longer be written there. ` +
                `The trade itself is still tracked until the pane closes; check it on the service.`,
            ),
          );
        }
      });
    return this.flushing;
  }

  private report(error: Error): void {
    try {
      this.options.onError?.(error);
    } catch {
      // a failing listener must not stop the journal
    }
  }

  /** Updates queued but not yet written. */
  unflushed(): number {
    return this.pending.size;
  }
}
