// createDesk: the TradingDesk facade the pane calls, built once the account is known; it delegates each call to its parts — rows and preview, admission (what may be sent), journal-then-send through lanes, scheduler and row runner, the fill follower, the resume planner and decisions — all around the recovery rule (./rule.ts).
import { newIdempotencyKey } from "../../api/client";
import { buildPreview } from "../preview";
import { readTradeRows } from "../rows";
import { Journal } from "../journal";
import { intentFromRow, isFinal, rowStatusOf, type Intent, type IntentPatch } from "../intent";
import { FILL_POLL_MS, MIN_FILL_POLL_MS, type OpenedHedges } from "../fills";
import { sameAccount } from "../duplicates";
import { intentScope } from "../intent-store";
import { LOG_SHEET_NAME } from "../log/hedge-log";
import { chainOf, sideOrder } from "../verdict";
import {
  INTENT_STATUSES,
  type Action,
  type Decision,
  type DecideOptions,
  type IntentStatus,
  type LaneWait,
  type Preview,
  type PreviewOptions,
  type ReadResult,
  type ResumeOptions,
  type ResumePlan,
  type ResumeResult,
  type RowStatus,
  type SendApproval,
  type SendOptions,
  type SendResult,
  type TradeRow,
} from "../types";
import type { DeskOptions, TradingDesk } from "./contract";
import type { DeskContext } from "./context";
import { Lanes } from "./lanes";
import { Scheduler } from "./scheduler";
import { RowRunner } from "./runner";
import { FillFollower } from "./fill-follower";
import { planResume } from "./resume-planner";
import { keysHeld, refuseUnsendable, sendable, type AdmissionSources } from "./admission";
import { decide } from "./decisions";
import { doneOnService, type AlreadyDone } from "./approved-done";

/** Requests the desk has in flight at once, under the client's own rate limit (DeskOptions.concurrency overrides). */
export const DESK_CONCURRENCY = 4;

export {
  BACKOFF_MS,
  RESEND_WINDOW_MS,
  DOUBT_MAX_ROUNDS,
  DOUBT_LIMIT_MS,
  MISMATCH_MAX_ROUNDS,
  MISMATCH_MIN_MS,
  MISMATCH_LIMIT_MS,
  classifyFailure,
} from "./rule";
export { INSPECT_ASK_MAX } from "./resume-planner";
export { submittedMessage } from "./runner";
export { ALREADY_SENT } from "./admission";
export { NothingShownError } from "./decisions";

/**
 * Builds the desk over a client and a workbook, once the account of the key is known (options.account, else one
 * GET /account) and the log and this computer's journal are read. See TradingDesk in ../types for the calls and their order.
 */
export async function createDesk(options: DeskOptions): Promise<TradingDesk> {
  const environment = options.environment ?? options.client.environment;
  const account = options.account !== undefined ? options.account : await accountOf(options);
  const now = options.now ?? (() => new Date());
  const journal = new Journal(options.workbook, {
    onError: options.onError,
    now,
    store: options.intentStore,
    scope: intentScope(environment, account),
  });
  await journal.load();
  return new Desk(options, environment, account, journal, now);
}

/**
 * GET /account once, through the sender (its retry policy waits out transient failures; the desk adds no retry of its
 * own: retries never stack). The pane passes the account its connection proved, so this runs only for callers without one.
 */
async function accountOf(options: DeskOptions): Promise<string | null> {
  return (await options.client.account()).data.account_address ?? null;
}

class Desk implements TradingDesk, DeskContext {
  readonly client;
  readonly concurrency: number;
  private readonly workbook;
  private readonly newKey: () => string;
  /** With this computer's journal, a row it does not hold is the log's alone (see Lanes); without one, no row can be told apart. */
  private readonly lanes = new Lanes(
    (intent) => this.options.intentStore !== undefined && !this.journal.journalledHere(intent.idempotencyKey),
  );
  private readonly scheduler: Scheduler;
  private readonly runner: RowRunner;
  private readonly follower: FillFollower;
  private readonly waiters = new Set<() => void>();
  private readonly changeWaiters = new Set<() => void>();
  /** Aborted by stop(): every request the desk has out stops with it (a stopped pane sends nothing more). */
  private lifeController = new AbortController();
  /** The journal's rows indexed as chains (verdict.ts's chainOf); null once any row changed. */
  private chainIndex: ((intent: Intent) => Intent | null) | null = null;

  constructor(
    private readonly options: DeskOptions,
    readonly environment: DeskContext["environment"],
    readonly account: string | null,
    readonly journal: Journal,
    readonly now: () => Date,
  ) {
    this.client = options.client;
    this.workbook = options.workbook;
    this.concurrency = Math.max(1, options.concurrency ?? DESK_CONCURRENCY);
    this.newKey = options.newKey ?? newIdempotencyKey;
    this.runner = new RowRunner(this, this.lanes);
    this.scheduler = new Scheduler(this, this.lanes, (t) => this.runner.step(t));
    this.follower = new FillFollower(
      this,
      this.lanes,
      this.runner,
      Math.max(MIN_FILL_POLL_MS, options.pollIntervalMs ?? FILL_POLL_MS),
      () => this.scheduler.kick(),
    );
  }

  // ---- the context the parts share ----

  life(): AbortSignal {
    return this.lifeController.signal;
  }

  private get stopped(): boolean {
    return this.lifeController.signal.aborted;
  }

  /** A stopped desk starts again (send, resume, a decision, fill polling): new requests get a fresh abort signal. */
  private restart(): void {
    if (this.stopped) this.lifeController = new AbortController();
  }

  openedHedges(): OpenedHedges {
    const held = new Map<string, string>();
    for (const r of this.journal.records())
      if (r.action === "open" && r.hedgeId && !held.has(r.hedgeId)) held.set(r.hedgeId, r.idempotencyKey);
    return held;
  }

  chain(): (intent: Intent) => Intent | null {
    // Indexed once until a row changes (a batch in doubt re-checks many rows between two moves).
    return (this.chainIndex ??= chainOf(this.journal.all()));
  }

  move(intent: Intent, patch: IntentPatch): void {
    const changed = this.journal.update(intent, patch);
    if (Object.keys(changed).length === 0) return;
    this.chainIndex = null;
    this.emit(intent);
    this.changed();
  }

  changed(): void {
    for (const w of [...this.changeWaiters]) w();
    if (this.pending().length === 0) for (const w of [...this.waiters]) w();
  }

  report(e: unknown): void {
    try {
      this.options.onError?.(e instanceof Error ? e : new Error(String(e)));
    } catch {
      // a failing listener must not stop trading
    }
  }

  // ---- reading and previewing ----

  async readRows(action: Action): Promise<ReadResult> {
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

  preview(action: Action, rows: TradeRow[], options: PreviewOptions = {}): Promise<Preview> {
    return buildPreview(
      {
        client: this.client,
        environment: this.environment,
        account: this.account,
        readLog: (query) => this.workbook.readLog(query),
        known: () => this.journal.records(),
        busySides: () => this.busySides(),
        concurrency: this.concurrency,
        now: this.now,
      },
      action,
      rows,
      options,
    );
  }

  private busySides() {
    return this.lanes.busySides(this.journal.all(), this.environment, this.account);
  }

  // ---- sending ----

  async send(preview: Preview, options: SendOptions = {}): Promise<SendResult> {
    const approval = options.approval;
    refuseUnsendable(preview, this.environment, approval);
    this.restart();
    const held = approval?.idempotencyKeys ? await keysHeld(this.admissionSources(), approval.idempotencyKeys) : new Set<string>();
    const admitted = sendable(preview, options, held, this.busySides());
    // Under an approval, the service is asked about the lines that would go and those blocked in the preview (a line
    // another approval of the batch did reads "no open position" or "already open" now): done ones are recorded, never sent.
    const asked = approval?.preparedAt ? [...admitted.lines, ...admitted.blocked].sort((a, b) => a.index - b.index) : [];
    const { done, refused }: AlreadyDone =
      asked.length > 0 ? await this.doneElsewhere(asked, approval!, options.signal) : { done: new Map(), refused: new Map() };
    const blockedDone = admitted.blocked.filter((l) => done.has(l.index));
    const skipped = admitted.skipped.filter((s) => !blockedDone.some((l) => l.row.rowNumber === s.rowNumber));
    // A line whose side the service shows in a state the batch does not explain is refused, not sent (approved-done.ts).
    for (const { row, index } of admitted.lines)
      if (refused.has(index)) skipped.push({ rowNumber: row.rowNumber, reason: refused.get(index)! });
    const lines = [...admitted.lines.filter((l) => !refused.has(l.index)), ...blockedDone].sort((a, b) => a.index - b.index);
    if (lines.length === 0) return { rows: [], skipped };

    // Journal first: every row is in the per-user journal and the log as `submitting` before any request leaves.
    const loggedAt = this.now().toISOString();
    const intents = lines.map(({ row, index }) => {
      const key = approval?.idempotencyKeys?.[index] ?? this.newKey();
      const intent = intentFromRow(row, key, this.environment, loggedAt, this.account);
      if (approval)
        [intent.batchHash, intent.preparedBy, intent.approvedBy] = [approval.batchHash, approval.preparedBy, approval.approvedBy];
      intent.keyId = this.client.keyId;
      return intent;
    });
    await this.journal.append(intents);
    this.chainIndex = null;
    const signal = options.signal;
    for (const [i, intent] of intents.entries()) {
      const found = done.get(lines[i].index);
      if (found) this.move(intent, { ...found.patch, message: found.says }); // recorded as done, never sent
      this.lanes.track(intent, !found).signal = signal;
      this.emit(intent);
    }
    this.startFillPolling();
    this.scheduler.kick();
    await this.until(() => signal?.aborted === true || this.stopped || intents.every((i) => this.lanes.get(i.idempotencyKey)?.answered));
    await this.journal.flush().catch(() => undefined);
    return { rows: intents.map(rowStatusOf), skipped };
  }

  async doneBeforeApproval(preview: Preview, approval: SendApproval): Promise<Map<number, string>> {
    if (!approval.preparedAt) return new Map();
    const { done } = await this.doneElsewhere(
      preview.lines.map((l, index) => ({ row: l.row, index })),
      approval,
    );
    return new Map([...done].map(([index, line]) => [index, line.says]));
  }

  /** The approved lines the service shows done already (approved-done.ts), by their place in the preview. */
  private doneElsewhere(lines: Array<{ row: TradeRow; index: number }>, approval: SendApproval, signal?: AbortSignal) {
    const keyed = lines.map((l) => ({
      ...l,
      key: approval.idempotencyKeys?.[l.index] ?? "",
      before: approval.notionalsBefore?.[l.index] ?? null,
    }));
    return doneOnService(this.client, keyed, approval.preparedAt!, this.environment, this.account, signal);
  }

  /** What admission reads: this computer's journal and the log (by keys). */
  private admissionSources(): AdmissionSources {
    return {
      records: () => this.journal.records(),
      journalledHere: (k) => this.journal.journalledHere(k),
      readLog: (query) => this.workbook.readLog(query),
    };
  }

  // ---- resume and decisions ----

  async inspect(): Promise<ResumePlan> {
    await this.reload();
    return planResume(this);
  }

  async resume(options: ResumeOptions = {}): Promise<ResumeResult> {
    await this.reload();
    this.restart();
    const claimed = new Set(options.claim ?? []);
    const resumed: Intent[] = [];
    for (const intent of this.journal.all()) {
      if (isFinal(intent.status) || intent.environment !== this.environment) continue;
      if (intent.account ? !sameAccount(intent.account, this.account) : !claimed.has(intent.idempotencyKey)) continue;
      if (!intent.account) this.move(intent, { account: this.account });
      resumed.push(intent);
    }
    // A market side's rows are taken up in the order they went (verdict.ts's sideOrder): a row sent before must be
    // settled before a later one leaves, or the later one's effect could be taken for it.
    resumed.sort(sideOrder);
    for (const intent of resumed) {
      this.lanes.track(intent, false);
      this.emit(intent);
    }
    if (resumed.length > 0) {
      this.startFillPolling();
      this.scheduler.kick();
    }
    await this.journal.flush().catch(() => undefined);
    return { resumed: resumed.map(rowStatusOf) };
  }

  async restore(idempotencyKeys: readonly string[]): Promise<RowStatus[]> {
    const restored = await this.journal.restore(idempotencyKeys);
    this.chainIndex = null;
    return restored.map(rowStatusOf);
  }

  async dismiss(idempotencyKeys: readonly string[]): Promise<RowStatus[]> {
    return (await this.journal.dismiss(idempotencyKeys)).map(rowStatusOf);
  }

  decide(idempotencyKey: string, decision: Decision, options: DecideOptions = {}): Promise<RowStatus> {
    const hooks = { restart: () => this.restart(), kick: () => this.scheduler.kick() };
    return decide(this, this.lanes, hooks, idempotencyKey, decision, options);
  }

  // ---- polling and state ----

  startFillPolling(): void {
    this.restart();
    this.follower.start();
  }

  stop(): void {
    this.lifeController.abort(new Error("The desk was stopped: nothing more is sent."));
    for (const w of [...this.changeWaiters]) w();
    this.follower.stop();
    this.scheduler.stop();
    void this.journal.flush().catch(() => undefined);
  }

  pending(): RowStatus[] {
    return this.lanes.pending();
  }

  needsDecision(): RowStatus[] {
    // The journal holds every row this desk tracks (a row is journalled before it is tracked) and the earlier sessions' rows.
    return this.journal
      .all()
      .filter((i) => i.status === "needs_decision")
      .map(rowStatusOf);
  }

  waits(): LaneWait[] {
    return this.lanes.waits();
  }

  settled(timeoutMs = 120_000): Promise<void> {
    if (this.pending().length === 0) return this.journal.flush();
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
        this.journal.flush().then(resolve, reject);
      };
      this.waiters.add(done);
    });
  }

  async log() {
    return this.journal.records();
  }

  /** Reads the log and the per-user journal again (on opening, before Resume), keeping this session's rows as they are. */
  private async reload(): Promise<void> {
    await this.journal.flush().catch(() => undefined);
    // This session's own rows: their in-memory state is the newest; the journal keeps them as they are while it reads.
    await this.journal.load((key) => this.lanes.get(key)?.intent);
    this.chainIndex = null;
    for (const t of this.lanes.all()) this.journal.adopt(t.intent);
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

  private emit(intent: Intent): void {
    const onProgress = this.options.onProgress;
    if (!onProgress) return;
    const counts = Object.fromEntries(INTENT_STATUSES.map((s) => [s, 0])) as Record<IntentStatus, number>;
    let done = 0;
    for (const t of this.lanes.all()) {
      counts[t.intent.status]++;
      if (isFinal(t.intent.status)) done++;
    }
    try {
      onProgress({ row: rowStatusOf(intent), total: this.lanes.size, done, counts });
    } catch {
      // A failing progress listener must not stop trading.
    }
  }
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
