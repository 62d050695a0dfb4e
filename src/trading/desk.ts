// createDesk: the TradingDesk facade the pane calls — read rows, preview, journal-then-send one row at a time per market side, ask the service before any re-send, follow fills by pages, resume and decisions on the user's word.
import { utcMs } from "../api/time";
import { newIdempotencyKey } from "../api/client";
import { errorCode, isHedgingApiError } from "../api/errors";
import { ConcurrencyLimit } from "../api/throttle";
import type { Hedge } from "../api/schemas";
import { buildPreview } from "./preview";
import { readTradeRows } from "./rows";
import { Journal } from "./journal";
import { intentFromRow, isFinal, rowStatusOf, submit, usableKey, type Intent, type IntentPatch } from "./intent";
import { check, laneOf, nextPollDelayMs, OPEN_LOOKUP_SCOPE, openHedges, pollOnce, type OpenedHedges } from "./fills";
import { sameAccount } from "./duplicates";
import { intentScope } from "./intent-store";
import { LOG_SHEET_NAME } from "./hedge-log";
import { usdText, type Judged } from "./verdict";
import {
  INTENT_STATUSES,
  type Action,
  type Decision,
  type DeskOptions,
  type IntentStatus,
  type LaneWait,
  type Preview,
  type PreviewOptions,
  type Progress,
  type ReadResult,
  type ResumeItem,
  type ResumeOptions,
  type ResumePlan,
  type ResumeResult,
  type ResumeStep,
  type RowStatus,
  type SendOptions,
  type SendResult,
  type TradeRow,
  type TradingDesk,
} from "./types";

/** Waits between attempts of a row in doubt (network trouble, 5xx, 429, an answer that could not be read). */
export const BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 15_000];
/**
 * A row is sent again with the same idempotency key only while this young (from its first send) and under the same API
 * key: well inside any plausible key retention (the sandbox keeps keys 24 h; the spec does not say). Older, the service
 * may have forgotten the key, and a re-send could act twice: such a row needs the user's decision.
 */
export const RESEND_WINDOW_MS = 15 * 60_000;
/** Unknown outcomes (an answer that could not be read, a key reused with another body) are re-asked this many times… */
export const DOUBT_MAX_ROUNDS = 6;
/** …within this long, then the row needs a decision. */
export const DOUBT_LIMIT_MS = 10 * 60_000;
/**
 * hedge_not_found, or a hedge that does not match its row: asked again at least MISMATCH_MAX_ROUNDS times over at least
 * MISMATCH_MIN_MS (a service may take a moment to show a new hedge), at most MISMATCH_LIMIT_MS, then a decision.
 */
export const MISMATCH_MAX_ROUNDS = 5;
export const MISMATCH_MIN_MS = 30_000;
export const MISMATCH_LIMIT_MS = 2 * 60_000;
/** On opening, the service is asked about this many unfinished rows (the newest); the others are asked on Resume. */
export const INSPECT_ASK_MAX = 100;

/** Builds the desk over a client and a workbook. See TradingDesk in ./types for the calls and their order. */
export function createDesk(options: DeskOptions): TradingDesk {
  return new Desk(options);
}

interface Tracking {
  intent: Intent;
  /** Order of the row on its market side (journal order). */
  seq: number;
  /** A step (send or check) is running. */
  busy: boolean;
  /** Not before this time (ms). */
  wakeAt: number;
  /** Journalled by this desk and never sent: its first send needs no question to the service. */
  fresh: boolean;
  /** Attempts in doubt so far (backoff index). */
  attempts: number;
  /** Unknown outcomes / mismatches being counted: since when and how many. */
  doubt: { since: number; rounds: number } | null;
  /** send() waits for this: the first request was answered, or the row stopped (final, waiting, decision). */
  answered: boolean;
  /** The send's abort signal (the pane closing): the row's requests stop with it. */
  signal?: AbortSignal;
  /** The desk's and the send's signal in one (made once per row and desk life). */
  both?: { life: AbortSignal; signal: AbortSignal };
}

type ReadResultT = ReadResult;

class Desk implements TradingDesk {
  readonly environment;
  private readonly client;
  private readonly workbook;
  private readonly journal: Journal;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  /** Requests the last poll round made (a round of many pages waits longer before the next). */
  private lastRoundRequests = 0;
  private readonly now: () => Date;
  private readonly newKey: () => string;
  private readonly onProgress?: (p: Progress) => void;
  private readonly options: DeskOptions;
  /** Rows of this session (sent, resumed or decided), by idempotency key. */
  private readonly tracked = new Map<string, Tracking>();
  private seq = 0;
  private loaded: Promise<void> | null = null;
  /** account_address of the key in use; undefined until known (options.account or GET /account). */
  private account: string | null | undefined;
  private journalReady: Journal | null = null;
  private pollTimer: ReturnType<typeof setTimeout> | null = null;
  private wakeTimer: ReturnType<typeof setTimeout> | null = null;
  private wakeAtMs = Infinity;
  private polling = false;
  private pollRunning = false;
  private readonly waiters = new Set<() => void>();
  private readonly changeWaiters = new Set<() => void>();
  private readonly limit: ConcurrencyLimit;
  /** Aborted by stop(): every request the desk has out stops with it (a stopped pane sends nothing more). */
  private life = new AbortController();
  /** Stopped: its life aborted; send, resume, a decision or fill polling start it again (restart()). */
  private get stopped(): boolean {
    return this.life.signal.aborted;
  }

  constructor(options: DeskOptions) {
    this.options = options;
    this.client = options.client;
    this.workbook = options.workbook;
    this.environment = options.environment ?? options.client.environment;
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.pollIntervalMs = Math.max(250, options.pollIntervalMs ?? 500);
    this.now = options.now ?? (() => new Date());
    this.newKey = options.newKey ?? newIdempotencyKey;
    this.onProgress = options.onProgress;
    this.account = options.account;
    // The journal needs the account (the store's scope): it is made once the account is known (ensureLoaded). Until then an
    // empty one stands in, which nothing writes to (every write waits for ensureLoaded).
    this.journal = new Journal(this.workbook);
    this.limit = new ConcurrencyLimit(this.concurrency);
  }

  private get j(): Journal {
    return this.journalReady ?? this.journal;
  }

  private nowMs(): number {
    return this.now().getTime();
  }

  // ---- reading and previewing ----

  async readRows(action: Action): Promise<ReadResultT> {
    let selection;
    try {
      selection = await this.workbook.readSelection();
    } catch (e) {
      throw selectionError(e);
    }
    if (selection.sheetName === LOG_SHEET_NAME) {
      throw selectionError(new Error(`The selection is on the ${LOG_SHEET_NAME} sheet: select the rows of your exposure sheet instead.`));
    }
    return readTradeRows(action, selection);
  }

  async preview(action: Action, rows: TradeRow[], options: PreviewOptions = {}): Promise<Preview> {
    await this.ensureLoaded();
    return buildPreview(
      {
        client: this.client,
        environment: this.environment,
        account: this.accountNow(),
        readLog: (query) => this.workbook.readLog(query),
        known: () => this.j.records(),
        busySides: () => this.busySides(),
        concurrency: this.concurrency,
        now: this.now,
      },
      action,
      rows,
      options,
    );
  }

  /**
   * Market sides with an unfinished row: blocking (a row needing a decision, or one not taken up: nothing is sent behind
   * it) or not (a row this session is working on: a new row waits its turn), each with the sentence to show.
   */
  private busySides(): Map<string, { reason: string; blocking: boolean }> {
    const out = new Map<string, { reason: string; blocking: boolean }>();
    const rows = [...this.j.all(), ...[...this.tracked.values()].map((t) => t.intent)];
    for (const intent of rows) {
      if (isFinal(intent.status) || intent.environment !== this.environment) continue;
      if (!sameAccount(intent.account, this.account ?? null)) continue;
      const lane = laneOf(intent);
      const tracked = this.tracked.has(intent.idempotencyKey);
      const blocking = intent.status === "needs_decision" || !tracked;
      if (out.get(lane)?.blocking) continue;
      if (out.has(lane) && !blocking) continue;
      const what = `the ${intent.action} logged ${when(intent.loggedAt)}`;
      out.set(lane, {
        blocking,
        reason:
          intent.status === "needs_decision"
            ? `${intent.market} ${intent.side} waits for your decision on ${what}: decide it under Unfinished rows first.`
            : !tracked
              ? `${intent.market} ${intent.side} has an unfinished row, ${what}: resume it under Unfinished rows first.`
              : `${intent.market} ${intent.side} is busy with ${what}: this row goes once that one is final.`,
      });
    }
    return out;
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
    this.restart();
    const skipped: SendResult["skipped"] = [];
    const rows: TradeRow[] = [];
    const busy = this.busySides();
    for (const line of preview.lines) {
      const waiting = busy.get(laneOf(line.row));
      if (line.blockers.length > 0) skipped.push({ rowNumber: line.row.rowNumber, reason: line.blockers.join(" ") });
      else if (waiting?.blocking) skipped.push({ rowNumber: line.row.rowNumber, reason: waiting.reason });
      else if (line.duplicateOf && !options.sendAgain) {
        skipped.push({
          rowNumber: line.row.rowNumber,
          reason: `Already in the log (${line.duplicateOf.status}, logged ${when(line.duplicateOf.loggedAt)}, key ${line.duplicateOf.idempotencyKey}): tick "send again" to send it anyway.`,
        });
      } else rows.push(line.row);
    }
    if (rows.length === 0) return { rows: [], skipped };

    // Journal first: every row is in the per-user journal and the log as `submitting` before any request leaves.
    const loggedAt = this.now().toISOString();
    const intents = rows.map((row) => intentFromRow(row, this.newKey(), this.environment, loggedAt, this.accountNow()));
    for (const i of intents) i.keyId = this.client.keyId;
    await this.j.append(intents);
    const signal = options.signal;
    for (const intent of intents) {
      this.track(intent, true).signal = signal;
      this.emit(intent);
    }
    this.startFillPolling();
    this.kick();
    await this.until(() => signal?.aborted === true || this.stopped || intents.every((i) => this.tracked.get(i.idempotencyKey)?.answered));
    await this.j.flush().catch(() => undefined);
    return { rows: intents.map(rowStatusOf), skipped };
  }

  private track(intent: Intent, fresh: boolean): Tracking {
    let t = this.tracked.get(intent.idempotencyKey);
    if (!t) {
      t = { intent, seq: ++this.seq, busy: false, wakeAt: 0, fresh, attempts: 0, doubt: null, answered: isFinal(intent.status) };
      this.tracked.set(intent.idempotencyKey, t);
    }
    return t;
  }

  /** The first unfinished row of each market side (journal order); only it may act. */
  private heads(): Tracking[] {
    const heads = new Map<string, Tracking>();
    for (const t of this.tracked.values()) {
      if (isFinal(t.intent.status)) continue;
      const lane = laneOf(t.intent);
      // `tracked` is in seq order (a row's seq is given as it is added, and a Map keeps that order): the first is the head.
      if (!heads.has(lane)) heads.set(lane, t);
    }
    return [...heads.values()];
  }

  /** A stopped desk starts again (send, resume, a decision): new requests get a fresh abort signal. */
  private restart(): void {
    if (this.stopped) this.life = new AbortController();
  }

  /** The signal a row's requests carry: the desk's, and its send's when it has one. */
  private signalOf(t?: Tracking): AbortSignal {
    if (!t?.signal) return this.life.signal;
    if (t.both?.life !== this.life.signal) t.both = { life: this.life.signal, signal: anySignal([this.life.signal, t.signal]) };
    return t.both.signal;
  }

  /** Runs every market side's head that can act now; arms a timer for the next one that waits. */
  private kick(): void {
    if (this.stopped) return;
    const now = this.nowMs();
    let next = Infinity;
    for (const t of this.heads()) {
      const status = t.intent.status;
      if (t.signal?.aborted) continue;
      // Waiting for the user's word (a row of a send parks itself: park() answers it), or followed by the poller.
      if (status === "needs_decision" || status === "submitted") continue;
      if (t.busy) continue;
      if (t.wakeAt > now) {
        next = Math.min(next, t.wakeAt);
        continue;
      }
      t.busy = true;
      void this.limit
        .run(() => (this.stopped ? Promise.resolve() : this.step(t)))
        .catch((e: unknown) => this.report(e))
        .finally(() => {
          t.busy = false;
          this.changed();
          this.kick();
        });
    }
    // Rows behind a row that waits for a decision are parked: send() does not wait for them (and is told at once).
    const parked = [...this.tracked.values()].filter((t) => !t.answered && this.blockedByDecision(t));
    for (const t of parked) t.answered = true;
    if (parked.length > 0) this.changed();
    if (next < this.wakeAtMs) {
      if (this.wakeTimer) clearTimeout(this.wakeTimer);
      this.wakeAtMs = next;
      this.wakeTimer = setTimeout(
        () => {
          this.wakeTimer = null;
          this.wakeAtMs = Infinity;
          this.kick();
        },
        Math.max(0, next - now),
      );
    }
  }

  /** An earlier row of its side waits for a decision (seq is unique: a row is never earlier than itself). */
  private blockedByDecision(t: Tracking): boolean {
    const lane = laneOf(t.intent);
    for (const o of this.tracked.values())
      if (o.seq < t.seq && laneOf(o.intent) === lane && o.intent.status === "needs_decision") return true;
    return false;
  }

  /** One step of a `submitting` head: its first send, or (after any doubt) a question to the service and what follows. */
  private async step(t: Tracking): Promise<void> {
    const intent = t.intent;
    if (intent.status !== "submitting") return;
    // The previous row of this side is final in the journal (log and per-user store) before this one leaves.
    try {
      await this.j.flush();
    } catch {
      this.backoff(t);
      return;
    }
    if (neverSent(intent)) await this.firstSend(t);
    else await this.recheck(t);
  }

  /** A row never sent: (resumed ones: asks the service first for an Open) records the side's hedge and notional, then sends. */
  private async firstSend(t: Tracking): Promise<void> {
    const intent = t.intent;
    try {
      if (!t.fresh && intent.action === "open") {
        // Never sent by the log's account; another computer may still have sent it: the service says.
        const { verdict } = await check(this.client, intent, this.signalOf(t), this.openedHedges);
        if (verdict.kind === "effect") return this.adopt(t, verdict);
        if (verdict.kind === "unclear") return this.park(t, verdict.says);
      }
      const patch: IntentPatch = { sentAt: this.now().toISOString() };
      if (intent.action !== "open") {
        const found = await this.sideHedge(intent, this.signalOf(t));
        if (!found.hedge) {
          this.move(intent, {
            status: "rejected",
            errorCode: "no_open_hedge",
            message: found.complete
              ? `No open hedge on ${intent.market} ${intent.side} (checked just before sending): nothing was sent. Use Open first.`
              : `No open hedge on ${intent.market} ${intent.side} ${OPEN_LOOKUP_SCOPE}: nothing was sent. Check the hedge on the service.`,
          });
          t.answered = true;
          return;
        }
        patch.hedgeId = found.hedge.id;
        patch.notionalBefore = found.hedge.notional_usd;
      }
      intent.keyId = this.client.keyId;
      this.move(intent, patch);
      // Durable in both journals before the request leaves; if not, it does not leave now.
      await this.j.flush();
    } catch (e) {
      this.trouble(t, e, false);
      return;
    }
    await this.attempt(t);
  }

  /**
   * The open hedge on the row's market side: the one the side's earlier rows acted on, read by id, when it is still open;
   * else from status-filtered list pages (openHedges). `complete` false: the lists were too long to read to their end.
   */
  private async sideHedge(intent: Intent, signal: AbortSignal): Promise<{ hedge: Hedge } | { hedge: null; complete: boolean }> {
    // The row itself is not final (it is being sent): only earlier rows of its side can name the hedge.
    const known = [...this.tracked.values()]
      .filter((t) => laneOf(t.intent) === laneOf(intent) && t.intent.hedgeId && isFinal(t.intent.status))
      .sort((a, b) => b.seq - a.seq)[0]?.intent.hedgeId;
    if (known) {
      try {
        const { data } = await this.client.get(known, signal);
        // The id came from a row of this side: still open, it is the side's hedge.
        if (data.status === "filled" || data.status === "submitted") return { hedge: data };
      } catch (e) {
        if (!isHedgingApiError(e) || e.code !== "hedge_not_found") throw e;
      }
    }
    const { bySide, complete } = await openHedges(this.client, signal, (open) => open.has(laneOf(intent)));
    return { hedge: bySide.get(laneOf(intent)) ?? null, complete };
  }

  /** Sends the row's request with its own key. */
  private async attempt(t: Tracking): Promise<void> {
    const intent = t.intent;
    if (!usableKey(intent.idempotencyKey)) return this.park(t, "The row has no usable idempotency key: it is never sent.");
    try {
      const submission = await submit(this.client, intent, this.signalOf(t));
      t.doubt = null;
      t.attempts = 0;
      this.move(intent, {
        status: "submitted",
        hedgeId: submission.hedgeId ?? intent.hedgeId,
        orderTxHash: submission.orderTxHash,
        errorCode: null,
        message: submittedMessage(intent.action, submission.newNotional),
      });
      t.answered = true;
      this.startFillPolling();
    } catch (e) {
      const outcome = classifyFailure(e);
      if (outcome === "refused" && isHedgingApiError(e)) {
        this.move(intent, { status: "rejected", errorCode: e.code, message: `${e.message}${e.advice ? ` ${e.advice}` : ""}` });
        t.answered = true;
      } else this.trouble(t, e, outcome === "unknown");
    }
  }

  /** A row sent before whose outcome is not known: the service is asked; the answer decides. */
  private async recheck(t: Tracking): Promise<void> {
    const intent = t.intent;
    let v: Judged;
    try {
      v = (await check(this.client, intent, this.signalOf(t), this.openedHedges)).verdict;
    } catch (e) {
      const age = intent.sentAt ? this.nowMs() - utcMs(intent.sentAt) : Infinity;
      if (age >= RESEND_WINDOW_MS + DOUBT_LIMIT_MS)
        return this.park(t, `The service could not be asked (${errorCode(e)}) since the row was sent ${ago(age)} ago.`);
      this.trouble(t, e, false);
      return;
    }
    if (v.kind === "effect") return this.adopt(t, v);
    if (v.kind === "unclear") {
      if (this.countMismatch(t)) return this.park(t, v.says);
      this.move(intent, { message: `Asking the service again: ${v.says}` });
      this.backoff(t);
      return;
    }
    // Not on the service.
    if (intent.keyId !== this.client.keyId)
      return this.park(
        t,
        `${v.says} It was sent ${intent.keyId ? "with another API key" : "from another computer (or before this version)"}: a re-send with this key could act a second time.`,
      );
    // Sent with this key by this computer, which records when before a request leaves (neverSent): sentAt is known here
    // (were it not, the age would be NaN and the row would wait for the user).
    const age = this.nowMs() - utcMs(intent.sentAt);
    if (!(age < RESEND_WINDOW_MS))
      return this.park(
        t,
        `${v.says} It was sent ${ago(age)} ago: the service may have forgotten its idempotency key, so a re-send could act a second time.`,
      );
    if (t.doubt && t.doubt.rounds >= DOUBT_MAX_ROUNDS)
      return this.park(t, `${v.says} Asked ${t.doubt.rounds} times without a clear answer (last: ${intent.errorCode ?? "no answer"}).`);
    if (t.doubt && this.nowMs() - t.doubt.since > DOUBT_LIMIT_MS)
      return this.park(t, `${v.says} No clear answer for ${ago(this.nowMs() - t.doubt.since)} (last: ${intent.errorCode ?? "no answer"}).`);
    await this.attempt(t);
  }

  /** Hedges the journal ties to an Open row (read only when an Open without a hedge id is judged by its client reference). */
  private readonly openedHedges = (): OpenedHedges => {
    const held = new Map<string, string>();
    for (const r of this.j.records()) if (r.action === "open" && r.hedgeId && !held.has(r.hedgeId)) held.set(r.hedgeId, r.idempotencyKey);
    return held;
  };

  /** Counts a mismatching round (hedge_not_found, a hedge that does not match); true when the caps are reached. */
  private countMismatch(t: Tracking): boolean {
    const now = this.nowMs();
    t.doubt ??= { since: now, rounds: 0 };
    t.doubt.rounds++;
    const elapsed = now - t.doubt.since;
    return (t.doubt.rounds >= MISMATCH_MAX_ROUNDS && elapsed >= MISMATCH_MIN_MS) || elapsed >= MISMATCH_LIMIT_MS;
  }

  /** Trouble while sending or asking: the row stays `submitting`, in doubt, and is asked again after a wait. */
  private trouble(t: Tracking, e: unknown, unknownOutcome: boolean): void {
    const code = errorCode(e);
    t.answered = true;
    if (unknownOutcome) {
      t.doubt ??= { since: this.nowMs(), rounds: 0 };
      t.doubt.rounds++;
      this.move(t.intent, { errorCode: code, message: unknownOutcomeMessage(code, e) });
    } else {
      this.move(t.intent, {
        errorCode: code,
        message: `Not confirmed yet (${code}): the add-in asks the service before sending again with the same idempotency key.`,
      });
    }
    // A send that may have left is asked about (recheck) before anything is sent again.
    this.backoff(t);
  }

  private backoff(t: Tracking): void {
    t.wakeAt = this.nowMs() + BACKOFF_MS[Math.min(t.attempts, BACKOFF_MS.length - 1)];
    t.attempts++;
  }

  private adopt(t: Tracking, v: Extract<Judged, { kind: "effect" }>): void {
    t.doubt = null;
    t.attempts = 0;
    t.answered = true;
    this.move(t.intent, { errorCode: null, ...v.patch });
    if (t.intent.status === "submitted") this.startFillPolling();
  }

  private park(t: Tracking, says: string): void {
    t.answered = true;
    this.move(t.intent, {
      status: "needs_decision",
      message: `Needs your decision: ${says} Choose "It was done" or "It was not done" under Unfinished rows.`,
    });
  }

  // ---- resume and decisions ----

  async inspect(): Promise<ResumePlan> {
    await this.reload();
    const plan: ResumePlan = { items: [], unusable: [], otherAccounts: 0, missing: this.j.orphaned().map(rowStatusOf) };
    const account = this.accountNow();
    const rows: Array<{ intent: Intent; owner: ResumeItem["owner"] }> = [];
    for (const intent of this.j.all()) {
      if (isFinal(intent.status)) continue;
      if (intent.environment !== this.environment || (intent.account && !sameAccount(intent.account, account))) {
        plan.otherAccounts++;
        continue;
      }
      rows.push({ intent, owner: intent.account ? "mine" : "unclaimed" });
    }
    // The service is asked about the newest INSPECT_ASK_MAX rows (a list to read, not a batch to price); Resume asks about
    // every row before it acts anyway. Of rows logged together, the later in the log is the newer (reversed, then a stable
    // sort by time).
    const newestFirst = [...rows].reverse().sort((a, b) => utcMs(b.intent.loggedAt) - utcMs(a.intent.loggedAt));
    const asked = new Set(newestFirst.slice(0, INSPECT_ASK_MAX).map((r) => r.intent));
    plan.items = await mapLimited(rows, this.concurrency, async ({ intent, owner }) => ({
      row: rowStatusOf(intent),
      owner,
      ...(asked.has(intent)
        ? await this.plan(intent)
        : {
            serviceSays: `Not asked yet (the newest ${INSPECT_ASK_MAX} rows are).`,
            step: (intent.status === "submitted"
              ? "follow"
              : intent.status === "needs_decision"
                ? "decide"
                : neverSent(intent)
                  ? "send"
                  : "ask") as ResumeStep,
            detail: "Resume asks the service about it before doing anything.",
          }),
    }));
    for (const { record, reason } of this.j.unusable()) {
      if (isFinal(record.status) || (record.environment && record.environment !== this.environment)) continue;
      if (record.account && !sameAccount(record.account, account)) continue;
      plan.unusable.push({
        loggedAt: record.loggedAt,
        action: record.action,
        market: record.market,
        side: record.side,
        idempotencyKey: record.idempotencyKey,
        status: record.status,
        reason: `Never sent by the add-in: ${reason}. Check it on the service, then correct or delete the row.`,
      });
    }
    return plan;
  }

  /** What Resume would do with one row, and what the service shows now. Reads only. */
  private async plan(intent: Intent): Promise<Pick<ResumeItem, "serviceSays" | "step" | "detail">> {
    if (intent.status === "needs_decision")
      return {
        ...(await this.says(intent)),
        step: "decide",
        detail: "The service could not tell whether this row took effect: your decision.",
      };
    if (intent.status === "submitting" && neverSent(intent) && intent.action !== "open")
      return {
        serviceSays: "Not asked: this computer's journal shows it was never sent.",
        step: "send",
        detail: "Never sent: Resume sends it.",
      };
    let v: Judged;
    try {
      v = (await check(this.client, intent, undefined, this.openedHedges)).verdict;
    } catch (e) {
      return {
        serviceSays: `Could not ask the service (${errorCode(e)}).`,
        step: intent.status === "submitted" ? "follow" : "decide",
        detail: "Resume asks again first.",
      };
    }
    const says = v.says;
    if (intent.status === "submitted") {
      if (v.kind === "effect" && v.patch.status !== "submitted")
        return { serviceSays: says, step: "record", detail: `Resume records it as ${v.patch.status}.` };
      return { serviceSays: says, step: "follow", detail: "Accepted by the service: Resume follows it to its fill." };
    }
    if (v.kind === "effect")
      return {
        serviceSays: says,
        step: "record",
        detail: `It took effect: Resume records it as ${v.patch.status}, without sending anything.`,
      };
    if (v.kind !== "absent")
      return { serviceSays: says, step: "decide", detail: "The service shows something this row does not match: your decision." };
    if (neverSent(intent)) return { serviceSays: says, step: "send", detail: "Never sent: Resume sends it." };
    const age = intent.sentAt ? this.nowMs() - utcMs(intent.sentAt) : NaN;
    if (intent.keyId === this.client.keyId && age < RESEND_WINDOW_MS)
      return {
        serviceSays: says,
        step: "resend",
        detail: `Sent ${ago(age)} ago: Resume sends it again with the same idempotency key (the service acts once).`,
      };
    return {
      serviceSays: says,
      step: "decide",
      detail:
        intent.keyId !== this.client.keyId
          ? "Not on the service, and sent with another API key or from another computer: a re-send could act twice."
          : `Not on the service, and sent ${ago(age)} ago: the service may have forgotten its key, so a re-send could act twice.`,
    };
  }

  private async says(intent: Intent): Promise<{ serviceSays: string }> {
    try {
      const { verdict: v } = await check(this.client, intent, undefined, this.openedHedges);
      return { serviceSays: v.says };
    } catch (e) {
      return { serviceSays: `Could not ask the service (${errorCode(e)}).` };
    }
  }

  async resume(options: ResumeOptions = {}): Promise<ResumeResult> {
    await this.reload();
    this.restart();
    const account = this.accountNow();
    const claimed = new Set(options.claim ?? []);
    const resumed: Intent[] = [];
    for (const intent of this.j.all()) {
      if (isFinal(intent.status) || intent.environment !== this.environment) continue;
      if (intent.account ? !sameAccount(intent.account, account) : !claimed.has(intent.idempotencyKey)) continue;
      if (!intent.account) this.move(intent, { account });
      resumed.push(intent);
    }
    // A market side's rows are taken up in the order they went: by when they were logged, then rows already sent (in the
    // order they were sent) before rows never sent — a row sent before must be settled before a later one leaves, or the
    // later one's effect could be taken for it. Otherwise in log order (a stable sort).
    const sentMs = (i: Intent) => (i.sentAt ? utcMs(i.sentAt) : Infinity);
    resumed.sort((a, b) => utcMs(a.loggedAt) - utcMs(b.loggedAt) || sentMs(a) - sentMs(b));
    for (const intent of resumed) {
      this.track(intent, false);
      this.emit(intent);
    }
    if (resumed.length > 0) {
      this.startFillPolling();
      this.kick();
    }
    await this.j.flush().catch(() => undefined);
    return { resumed: resumed.map(rowStatusOf) };
  }

  async restore(idempotencyKeys: readonly string[]): Promise<RowStatus[]> {
    await this.ensureLoaded();
    return (await this.j.restore(idempotencyKeys)).map(rowStatusOf);
  }

  async decide(idempotencyKey: string, decision: Decision): Promise<RowStatus> {
    await this.ensureLoaded();
    const intent = this.tracked.get(idempotencyKey)?.intent ?? this.j.get(idempotencyKey);
    if (!intent) throw new Error(`No unfinished row with idempotency key ${idempotencyKey} in the ${LOG_SHEET_NAME}.`);
    if (isFinal(intent.status)) throw new Error(`That row is already final (${intent.status}): nothing to decide.`);
    if (intent.environment !== this.environment || (intent.account && !sameAccount(intent.account, this.accountNow())))
      throw new Error("That row belongs to another account or environment: decide it with that account's key.");
    const current = this.tracked.get(idempotencyKey);
    if (current && intent.status !== "needs_decision")
      throw new Error("The add-in is still working on that row (it needs no decision): wait for its outcome.");
    const at = this.now().toISOString();
    this.restart();
    const t = this.track(intent, false);
    if (!intent.account) this.move(intent, { account: this.accountNow() });
    if (intent.status !== "needs_decision") this.move(intent, { status: "needs_decision" });
    if (decision === "not_done") {
      this.move(intent, {
        status: "not_sent",
        decision: "not done",
        decidedAt: at,
        errorCode: null,
        message: `Marked not sent by the user (${when(at)}): nothing is sent for this row.`,
      });
    } else {
      const v: Judged | null = await check(this.client, intent, this.life.signal, this.openedHedges).then(
        (c) => c.verdict,
        () => null,
      );
      const shown = v ? v.says : "The service could not be asked.";
      // Adopt what the service shows: its effect; "no effect, and none can come any more" when its hedge ended without it;
      // otherwise the user's word stands (the service shows something the add-in cannot match).
      const patch: IntentPatch =
        v?.kind === "effect"
          ? { ...v.patch }
          : v?.kind === "absent" && v.settled
            ? { status: "failed", message: `The service shows it had no effect: ${shown}` }
            : { status: intent.action === "close" ? "closed" : "filled", message: `Marked done by the user; the service showed: ${shown}` };
      this.move(intent, {
        errorCode: null,
        ...patch,
        decision: `done: ${shown}`.slice(0, 250),
        decidedAt: at,
      });
    }
    t.answered = true;
    await this.j.flush();
    if (intent.status === "submitted") this.startFillPolling();
    this.kick();
    return rowStatusOf(intent);
  }

  // ---- polling ----

  startFillPolling(): void {
    this.restart();
    if (this.polling) return;
    this.polling = true;
    this.schedulePoll(0);
  }

  stop(): void {
    this.life.abort(new Error("The desk was stopped: nothing more is sent."));
    for (const w of [...this.changeWaiters]) w();
    this.polling = false;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.pollTimer = null;
    this.wakeTimer = null;
    this.wakeAtMs = Infinity;
    void this.j.flush().catch(() => undefined);
  }

  private schedulePoll(delay: number): void {
    if (this.stopped) return;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      if (this.pollRunning) return this.schedulePoll(this.pollIntervalMs);
      this.pollRunning = true;
      void this.pollRound()
        .catch((e: unknown) => this.report(e))
        .finally(() => {
          this.pollRunning = false;
          if (this.stopped) return;
          if ([...this.tracked.values()].some((t) => t.intent.status === "submitted"))
            this.schedulePoll(nextPollDelayMs(this.pollIntervalMs, this.lastRoundRequests));
          else this.polling = false;
          this.kick();
        });
    }, delay);
  }

  private async pollRound(): Promise<void> {
    const rows = [...this.tracked.values()].filter((t) => t.intent.status === "submitted");
    if (rows.length === 0) return;
    const round = await pollOnce(
      this.client,
      rows.map((t) => t.intent),
      this.life.signal,
      this.openedHedges,
    );
    this.lastRoundRequests = round.requests;
    if (this.stopped) return;
    const byIntent = new Map(rows.map((t) => [t.intent, t]));
    for (const intent of round.notFound) {
      const t = byIntent.get(intent)!;
      if (this.countMismatch(t))
        this.park(t, `The service does not know hedge ${intent.hedgeId} (hedge_not_found), asked ${t.doubt!.rounds} times.`);
      else
        this.move(intent, {
          errorCode: "hedge_not_found",
          message: `The service does not know hedge ${intent.hedgeId} yet: asking again.`,
        });
    }
    for (const { intent, verdict: v } of round.judged) {
      const t = byIntent.get(intent)!;
      if (intent.status !== "submitted") continue;
      if (v.kind === "effect") {
        // Shown as it should be: any doubt is over, and what a doubt said (error code, message) is taken back. A row still
        // accepted and never in doubt already holds this patch: the move then writes nothing.
        t.doubt = null;
        this.move(intent, { errorCode: null, ...v.patch });
      } else if (v.kind === "absent") {
        t.doubt = null;
        if (v.settled)
          this.move(intent, {
            status: "failed",
            message: `The hedge ended before this ${intent.action} took effect: it was dropped (nothing happened). ${v.says}`,
          });
      } else if (this.countMismatch(t)) this.park(t, v.says); // unclear: counted, and parked once the caps are reached
    }
    await this.j.flush().catch(() => undefined);
  }

  // ---- state ----

  pending(): RowStatus[] {
    return [...this.tracked.values()]
      .filter((t) => !isFinal(t.intent.status) && t.intent.status !== "needs_decision" && !this.blockedByDecision(t))
      .map((t) => rowStatusOf(t.intent));
  }

  needsDecision(): RowStatus[] {
    // The journal holds every row this desk tracks (a row is journalled before it is tracked) and the earlier sessions' rows.
    return this.j
      .all()
      .filter((i) => i.status === "needs_decision")
      .map(rowStatusOf);
  }

  waits(): LaneWait[] {
    const out: LaneWait[] = [];
    for (const head of this.heads()) {
      const lane = laneOf(head.intent);
      const queued = [...this.tracked.values()].filter((t) => t !== head && !isFinal(t.intent.status) && laneOf(t.intent) === lane).length;
      if (head.intent.status === "needs_decision" || queued > 0)
        out.push({
          market: head.intent.market,
          side: head.intent.side,
          row: rowStatusOf(head.intent),
          queued,
          reason: head.intent.status === "needs_decision" ? "needs_decision" : "in_progress",
        });
    }
    return out;
  }

  settled(timeoutMs = 120_000): Promise<void> {
    if (this.pending().length === 0) return this.j.flush();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(done);
        reject(
          new Error(
            `${this.pending().length} row(s) still not final after ${timeoutMs} ms; they stay in the log and are listed next time.`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        this.j.flush().then(resolve, reject);
      };
      this.waiters.add(done);
    });
  }

  async log() {
    await this.ensureLoaded();
    return this.j.records();
  }

  /** Reads the log and the per-user journal again (on opening, before Resume), keeping this session's rows as they are. */
  private async reload(): Promise<void> {
    if (!this.loaded) return this.ensureLoaded();
    await this.loaded;
    await this.loadJournal();
  }

  private ensureLoaded(): Promise<void> {
    this.loaded ??= (async () => {
      await this.resolveAccount();
      this.journalReady ??= new Journal(this.workbook, {
        onError: this.options.onError,
        now: this.now,
        store: this.options.intentStore,
        scope: intentScope(this.environment, this.account ?? null),
      });
      await this.loadJournal();
    })().catch((e: unknown) => {
      this.loaded = null; // try again next time
      throw e;
    });
    return this.loaded;
  }

  private async loadJournal(): Promise<void> {
    await this.j.flush().catch(() => undefined);
    // This session's own rows: their in-memory state is the newest; the journal keeps them as they are while it reads.
    await this.j.load((key) => this.tracked.get(key)?.intent);
    for (const t of this.tracked.values()) this.j.adopt(t.intent);
  }

  /** GET /account once (transient errors, e.g. a burst of 429s, are waited out a few times before giving up). */
  private async resolveAccount(): Promise<void> {
    for (let attempt = 0; this.account === undefined; attempt++) {
      try {
        const { data } = await this.client.account();
        this.account = data.account_address ?? null;
      } catch (e) {
        if (classifyFailure(e) !== "transient" || attempt >= 4) throw e;
        await new Promise((r) => setTimeout(r, BACKOFF_MS[attempt]));
      }
    }
  }

  private accountNow(): string | null {
    if (this.account === undefined) throw new Error("The account of this key is not known yet: connect again.");
    return this.account;
  }

  private move(intent: Intent, patch: IntentPatch): void {
    const changed = this.j.update(intent, patch);
    if (Object.keys(changed).length === 0) return;
    this.emit(intent);
    this.changed();
  }

  private changed(): void {
    for (const w of [...this.changeWaiters]) w();
    if (this.pending().length === 0) for (const w of [...this.waiters]) w();
  }

  /** Resolves when `condition` holds (checked on every change). */
  private until(condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const check = () => {
        if (condition()) {
          this.changeWaiters.delete(check);
          resolve();
        }
      };
      this.changeWaiters.add(check);
    });
  }

  private report(e: unknown): void {
    try {
      this.options.onError?.(e instanceof Error ? e : new Error(String(e)));
    } catch {
      // a failing listener must not stop trading
    }
  }

  private emit(intent: Intent): void {
    if (!this.onProgress) return;
    const counts = Object.fromEntries(INTENT_STATUSES.map((s) => [s, 0])) as Record<IntentStatus, number>;
    let done = 0;
    for (const t of this.tracked.values()) {
      counts[t.intent.status]++;
      if (isFinal(t.intent.status)) done++;
    }
    try {
      this.onProgress({ row: rowStatusOf(intent), total: this.tracked.size, done, counts });
    } catch {
      // A failing progress listener must not stop trading.
    }
  }
}

/**
 * Known never sent: this computer's journal holds the row (it is written there before anything else) and no first send
 * is recorded (it is recorded there before the request leaves). A row only the log knows (another computer, an older
 * version) may have been sent whatever its Sent at says: the service is asked, and a re-send is never made blindly.
 */
function neverSent(intent: Intent): boolean {
  return intent.sentAt === null && intent.keyId !== null;
}
const when = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`;

function ago(ms: number): string {
  if (ms < 90_000) return `${Math.max(0, Math.round(ms / 1000))} s`;
  if (ms < 90 * 60_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 48 * 3_600_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} days`;
}

/** Aborted when any of `signals` is (AbortSignal.any where the host has it). */
function anySignal(signals: AbortSignal[]): AbortSignal {
  const any = (AbortSignal as unknown as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  if (typeof any === "function") return any.call(AbortSignal, signals);
  const both = new AbortController();
  for (const s of signals) {
    if (s.aborted) both.abort(s.reason);
    else s.addEventListener("abort", () => both.abort(s.reason), { once: true });
  }
  return both.signal;
}

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/** An error about the selection (multi-area, nothing selected, the log sheet): shown with its own code, not as unexpected. */
export class SelectionError extends Error {
  readonly code = "selection";
  constructor(message: string) {
    super(message);
    this.name = "SelectionError";
  }
}

function selectionError(e: unknown): Error {
  if (e instanceof SelectionError) return e;
  return new SelectionError(e instanceof Error ? e.message : String(e));
}

/** A 4xx that does not mean "the service did nothing": the key was used for another body. (A busy key, 409
 * idempotency_in_flight, is retryable: transient.) */
const NOT_A_REFUSAL = new Set(["idempotency_key_reuse"]);

/**
 * What a failed send means for the row:
 *  - transient: nothing known yet (network, timeout, 5xx, 429, in flight): ask the service, then maybe re-send;
 *  - refused: a 4xx the service sent that says it did nothing (e.g. hedge_exists, validation_error): final `rejected`;
 *  - unknown: anything else (invalid_response — a 200 we could not read —, idempotency_key_reuse, unexpected errors):
 *    the service may have acted; asked again a capped number of times, then the user decides.
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
    `Outcome unknown (${code}):${detail} The service may have acted on this row; do not send it again yourself. ` +
    `The add-in asks the service what it did (a few times, then it asks for your decision).`
  );
}

/** The "submitted" message (informational: the outcome is judged from the hedge, never read back from this text). */
export function submittedMessage(action: Action, newNotional: number | null): string {
  if ((action === "add" || action === "reduce") && newNotional !== null)
    return `Submitted: the service expects the hedge at ${usdText(newNotional)}.`;
  return "Submitted: waiting for the fill.";
}
