// createDesk: the TradingDesk facade the pane calls — read rows, preview, journal-then-send with bounded concurrency, fill polling, resume.
import { newIdempotencyKey } from "../api/client";
import { errorCode, isHedgingApiError } from "../api/errors";
import { buildPreview } from "./preview";
import { readTradeRows } from "./rows";
import { Journal } from "./journal";
import { intentFromRow, isFinal, rowStatusOf, submit, type Intent, type IntentPatch } from "./intent";
import { pollOnce } from "./fills";
import { sameAccount } from "./duplicates";
import { ConcurrencyLimit } from "../api/throttle";
import { LOG_SHEET_NAME } from "./hedge-log";
import {
  INTENT_STATUSES,
  type Action,
  type DeskOptions,
  type IntentStatus,
  type Preview,
  type Progress,
  type ResumeResult,
  type RowStatus,
  type SendOptions,
  type SendResult,
  type TradeRow,
  type TradingDesk,
} from "./types";

/** Resends of an intent still `submitting` after transient errors: waits between attempts, capped. */
const RESEND_BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 15_000];

/** Builds the desk over a client and a workbook. See TradingDesk in ./types for the calls and their order. */
export function createDesk(options: DeskOptions): TradingDesk {
  return new Desk(options);
}

interface Tracking {
  intent: Intent;
  /** Resend attempts made after the first send (for `submitting` intents). */
  resends: number;
  nextResendAt: number;
  sending: boolean;
}

class Desk implements TradingDesk {
  readonly environment;
  private readonly client;
  private readonly workbook;
  private readonly journal: Journal;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly now: () => Date;
  private readonly onProgress?: (p: Progress) => void;
  /** Intents of this session (sent or resumed) that are not final yet, plus finished ones for progress counts. */
  private readonly tracked = new Map<string, Tracking>();
  private loaded: Promise<void> | null = null;
  /** account_address of the key in use; undefined until known (options.account or GET /account). */
  private account: string | null | undefined;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private polling = false;
  private stopped = false;
  private tickRunning: Promise<void> | null = null;
  private readonly waiters = new Set<() => void>();
  /** Called on every state change (lane barriers wait on it). */
  private readonly changeWaiters = new Set<() => void>();
  private readonly limit: ConcurrencyLimit;

  constructor(options: DeskOptions) {
    this.client = options.client;
    this.workbook = options.workbook;
    this.environment = options.environment ?? options.client.environment;
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.pollIntervalMs = Math.max(250, options.pollIntervalMs ?? 500);
    this.now = options.now ?? (() => new Date());
    this.onProgress = options.onProgress;
    this.account = options.account;
    this.journal = new Journal(this.workbook, { onError: options.onError });
    this.limit = new ConcurrencyLimit(this.concurrency);
  }

  // ---- reading and previewing ----

  async readRows(action: Action): Promise<ReadResult> {
    const selection = await this.workbook.readSelection();
    if (selection.sheetName === LOG_SHEET_NAME) {
      throw new Error(`The selection is on the ${LOG_SHEET_NAME} sheet: select the rows of your exposure sheet instead.`);
    }
    return readTradeRows(action, selection);
  }

  async preview(action: Action, rows: TradeRow[]): Promise<Preview> {
    await this.ensureLoaded();
    return buildPreview(
      {
        client: this.client,
        environment: this.environment,
        account: this.accountNow(),
        log: this.journal.records(),
        concurrency: this.concurrency,
        now: this.now,
      },
      action,
      rows,
    );
  }

  // ---- sending ----

  async send(preview: Preview, options: SendOptions = {}): Promise<SendResult> {
    if (preview.environment !== this.environment) {
      throw new Error(
        `This preview was made for ${preview.environment}, but the desk trades in ${this.environment}: preview again. Nothing was sent.`,
      );
    }
    if (preview.blockers.length > 0) throw new Error(`Nothing was sent: ${preview.blockers.join(" ")}`);
    await this.ensureLoaded();
    this.stopped = false;
    const skipped: SendResult["skipped"] = [];
    const rows: TradeRow[] = [];
    for (const line of preview.lines) {
      if (line.blockers.length > 0) skipped.push({ rowNumber: line.row.rowNumber, reason: line.blockers.join(" ") });
      else if (line.duplicateOf && !options.sendAgain) {
        skipped.push({
          rowNumber: line.row.rowNumber,
          reason: `Already in the log (${line.duplicateOf.status}, key ${line.duplicateOf.idempotencyKey}): tick "send again" to send it anyway.`,
        });
      } else rows.push(line.row);
    }
    if (rows.length === 0) return { rows: [], skipped };

    // Journal first: every row is in the log as `submitting` before any request leaves.
    for (const [key, t] of this.tracked) if (isFinal(t.intent.status)) this.tracked.delete(key);
    const loggedAt = this.now().toISOString();
    const intents = rows.map((row) => intentFromRow(row, newIdempotencyKey(), this.environment, loggedAt, this.accountNow()));
    await this.journal.append(intents);
    for (const intent of intents) {
      this.track(intent);
      this.emit(intent);
    }

    this.startFillPolling();
    await this.sendAll(intents, options.signal);
    await this.journal.flush().catch(() => undefined);
    return { rows: intents.map(rowStatusOf), skipped };
  }

  /**
   * Sends intents through the shared concurrency limit. On one market side, an intent first waits until every earlier
   * intent of a different action there is final (adds pipeline with adds, but a reduce never overtakes a pending add),
   * so that each fill can be judged from the hedge's notional alone.
   */
  private async sendAll(intents: Intent[], signal?: AbortSignal): Promise<void> {
    await Promise.all(
      intents.map(async (intent) => {
        await this.laneBarrier(intent);
        const t = this.tracked.get(intent.idempotencyKey);
        if (t && !this.stopped) await this.limit.run(() => this.attempt(t, signal));
      }),
    );
  }

  private laneBarrier(intent: Intent): Promise<void> {
    const blocked = () => {
      for (const t of this.tracked.values()) {
        if (t.intent === intent) return false;
        const other = t.intent;
        if (other.market === intent.market && other.side === intent.side && other.action !== intent.action && !isFinal(other.status))
          return true;
      }
      return false;
    };
    if (!blocked()) return Promise.resolve();
    this.move(intent, { message: `Waiting for the earlier ${intent.market} ${intent.side} rows to fill before sending.` });
    return new Promise<void>((resolve) => {
      const check = () => {
        if (this.stopped || !blocked()) {
          this.changeWaiters.delete(check);
          resolve();
        }
      };
      this.changeWaiters.add(check);
    });
  }

  /** One send of an intent with its own key. Transient trouble leaves it `submitting` for a resend with the same key. */
  private async attempt(t: Tracking, signal?: AbortSignal): Promise<void> {
    const { intent } = t;
    if (intent.status !== "submitting" || t.sending || this.stopped) return;
    t.sending = true;
    try {
      const submission = await submit(this.client, intent, signal);
      intent.expectedNotional = submission.newNotional;
      this.move(intent, {
        status: "submitted",
        hedgeId: submission.hedgeId ?? intent.hedgeId,
        orderTxHash: submission.orderTxHash,
        errorCode: null,
        message: submittedMessage(intent.action, submission.newNotional),
      });
    } catch (e) {
      const outcome = classifyFailure(e);
      if (outcome === "refused" && isHedgingApiError(e)) {
        this.move(intent, { status: "rejected", errorCode: e.code, message: `${e.message}${e.advice ? ` ${e.advice}` : ""}` });
      } else if (outcome === "transient") {
        const code = errorCode(e);
        const wait = RESEND_BACKOFF_MS[Math.min(t.resends, RESEND_BACKOFF_MS.length - 1)];
        t.resends++;
        t.nextResendAt = Date.now() + wait;
        this.move(intent, { errorCode: code, message: `Not confirmed yet (${code}); resending with the same idempotency key.` });
      } else {
        // The service may have acted (e.g. a 200 this add-in could not read): never call it rejected. Keep asking with the
        // same key at the slow cadence; the service replays the original answer once it is readable.
        const code = errorCode(e);
        t.resends = Math.max(t.resends + 1, RESEND_BACKOFF_MS.length);
        t.nextResendAt = Date.now() + RESEND_BACKOFF_MS[RESEND_BACKOFF_MS.length - 1];
        this.move(intent, { errorCode: code, message: unknownOutcomeMessage(code, e) });
      }
    } finally {
      t.sending = false;
    }
  }

  // ---- resume ----

  async resume(): Promise<ResumeResult> {
    this.loaded = null;
    await this.ensureLoaded();
    this.stopped = false;
    // Only this environment's and this account's rows: idempotency keys are per API key, so another account's unfinished
    // rows sent under this key would be executed again. Rows without an account (older logs) are taken up by any account.
    const account = this.accountNow();
    const unfinished = this.journal
      .all()
      .filter((i) => !isFinal(i.status) && i.environment === this.environment && sameAccount(i.account, account));
    for (const intent of unfinished) {
      this.track(intent);
      this.emit(intent);
    }
    // Rows still `submitting` may or may not have reached the service: resend with the same key (the service replays).
    for (const intent of unfinished) if (intent.status === "submitted") intent.expectedNotional ??= expectedFromMessage(intent.message);
    if (unfinished.length > 0) this.startFillPolling();
    await this.sendAll(unfinished.filter((i) => i.status === "submitting"));
    await this.journal.flush().catch(() => undefined);
    return { resumed: unfinished.map(rowStatusOf) };
  }

  // ---- polling ----

  startFillPolling(): void {
    this.stopped = false;
    if (this.polling) return;
    this.polling = true;
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    for (const w of [...this.changeWaiters]) w();
    this.polling = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    void this.journal.flush().catch(() => undefined);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.tickRunning = this.tick().finally(() => {
        this.tickRunning = null;
        if (this.pending().length > 0) this.schedule(this.pollIntervalMs);
        else this.polling = false;
      });
    }, delay);
  }

  private async tick(): Promise<void> {
    const open = [...this.tracked.values()].filter((t) => !isFinal(t.intent.status));
    // Resend `submitting` intents whose wait is over (same key).
    const due = open.filter((t) => t.intent.status === "submitting" && !t.sending && t.resends > 0 && t.nextResendAt <= Date.now());
    await Promise.all(due.map((t) => this.limit.run(() => this.attempt(t))));
    if (this.stopped) return;
    const round = await pollOnce(
      this.client,
      open.map((t) => t.intent),
    );
    for (const { intent, patch } of round.outcomes) if (!this.stopped) this.move(intent, patch);
    await this.journal.flush().catch(() => undefined);
  }

  // ---- state ----

  pending(): RowStatus[] {
    return [...this.tracked.values()].filter((t) => !isFinal(t.intent.status)).map((t) => rowStatusOf(t.intent));
  }

  settled(timeoutMs = 120_000): Promise<void> {
    if (this.pending().length === 0) return this.journal.flush();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(done);
        reject(
          new Error(
            `${this.pending().length} row(s) still not final after ${timeoutMs} ms; they stay in the log and are resumed next time.`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        this.journal.flush().then(resolve, reject);
      };
      this.waiters.add(done);
    });
  }

  async log() {
    await this.ensureLoaded();
    return this.journal.records();
  }

  private ensureLoaded(): Promise<void> {
    this.loaded ??= Promise.all([this.journal.load(), this.resolveAccount()])
      .then(() => undefined)
      .catch((e: unknown) => {
        this.loaded = null; // try again next time
        throw e;
      });
    return this.loaded;
  }

  /** GET /account once (transient errors, e.g. a burst of 429s, are waited out a few times before giving up). */
  private async resolveAccount(): Promise<void> {
    for (let attempt = 0; this.account === undefined; attempt++) {
      try {
        const { data } = await this.client.account();
        this.account = data.account_address ?? null;
      } catch (e) {
        if (classifyFailure(e) !== "transient" || attempt >= 4) throw e;
        await new Promise((r) => setTimeout(r, RESEND_BACKOFF_MS[attempt]));
      }
    }
  }

  private accountNow(): string | null {
    if (this.account === undefined) throw new Error("The account of this key is not known yet: connect again.");
    return this.account;
  }

  private track(intent: Intent): void {
    if (!this.tracked.has(intent.idempotencyKey))
      this.tracked.set(intent.idempotencyKey, { intent, resends: 0, nextResendAt: 0, sending: false });
  }

  private move(intent: Intent, patch: IntentPatch): void {
    const changed = this.journal.update(intent, patch);
    if (Object.keys(changed).length === 0) return;
    this.emit(intent);
    for (const w of [...this.changeWaiters]) w();
    if (this.pending().length === 0) for (const w of [...this.waiters]) w();
  }

  private emit(intent: Intent): void {
    if (!this.onProgress) return;
    const counts = Object.fromEntries(INTENT_STATUSES.map((s) => [s, 0])) as Record<IntentStatus, number>;
    for (const t of this.tracked.values()) counts[t.intent.status]++;
    const total = this.tracked.size;
    const done = [...this.tracked.values()].filter((t) => isFinal(t.intent.status)).length;
    try {
      this.onProgress({ row: rowStatusOf(intent), total, done, counts });
    } catch {
      // A failing progress listener must not stop trading.
    }
  }
}

type ReadResult = import("./types").ReadResult;

/** Codes that are 4xx but do not mean "the service did nothing": the key is busy, or the key was used for another body. */
const NOT_A_REFUSAL = new Set(["idempotency_key_reuse", "idempotency_in_flight"]);

/**
 * What a failed send means for the row:
 *  - transient: nothing known yet (network, timeout, 5xx, 429, in flight): resend soon with the same key;
 *  - refused: a 4xx the service sent that says it did nothing (e.g. hedge_exists, validation_error): final `rejected`;
 *  - unknown: anything else (invalid_response — a 200 we could not read —, idempotency_key_reuse, unexpected errors):
 *    the service may have acted, so the row stays unfinished and counts as done for the duplicate check.
 */
export function classifyFailure(e: unknown): "transient" | "refused" | "unknown" {
  if (!isHedgingApiError(e)) return "unknown";
  if (e.retryable) return "transient";
  if (e.status !== null && e.status >= 400 && e.status <= 499 && !NOT_A_REFUSAL.has(e.code)) return "refused";
  return "unknown";
}

function unknownOutcomeMessage(code: string, e: unknown): string {
  const detail = e instanceof Error && e.message ? ` ${e.message.replace(/\s+$/, "")}` : "";
  return (
    `Outcome unknown (${code}):${detail} The service may have acted on this row. Check the hedge on the service (positions or hedge list) ` +
    `before doing anything else; do not send this row again yourself. The add-in keeps asking with the same idempotency key every 15 s.`
  );
}

const EXPECTED_PREFIX = "once filled the hedge will be ";

/** The "submitted" message; for Add and Reduce it records the notional the service said the hedge will reach (read back on resume). */
export function submittedMessage(action: Action, newNotional: number | null): string {
  if ((action === "add" || action === "reduce") && newNotional !== null)
    return `Submitted: ${EXPECTED_PREFIX}${newNotional.toLocaleString("en-US", { maximumFractionDigits: 6 })} USD.`;
  return "Submitted: waiting for the fill.";
}

export function expectedFromMessage(message: string | null): number | null {
  const at = message?.indexOf(EXPECTED_PREFIX) ?? -1;
  if (!message || at < 0) return null;
  const n = Number.parseFloat(message.slice(at + EXPECTED_PREFIX.length).replace(/,/g, ""));
  return Number.isFinite(n) ? n : null;
}
