// createDesk: the TradingDesk facade the pane calls, built once the account is known; it wires the desk's parts (the desk state, lanes, scheduler, row runner, fill follower) and answers the pane's calls through them — rows and preview, admission, journal-then-send, the resume planner, decisions — all around the recovery rule (./rule.ts). It changes no row itself.
import { newIdempotencyKey } from "../../api/client";
import { buildPreview } from "../preview";
import { readTradeRows } from "../rows";
import { Journal } from "../journal";
import { intentFromRow, isFinal, rowStatusOf, type Intent } from "../intent";
import { FILL_POLL_MS, MIN_FILL_POLL_MS, type OpenedHedges } from "../fills";
import { sameAccount } from "../duplicates";
import { intentScope } from "../intent-store";
import { LOG_SHEET_NAME, type LogRecord } from "../log/hedge-log";
import { controlRecord } from "../log/control-row";
import { sideOrder } from "../verdict";
import type {
  Action,
  Decision,
  DecideOptions,
  LaneWait,
  Preview,
  PreviewOptions,
  ReadResult,
  ResumeOptions,
  ResumePlan,
  ResumeResult,
  RowStatus,
  SendApproval,
  SendOptions,
  SendResult,
  TradeRow,
} from "../types";
import type { ControlInput, DeskOptions, TradingDesk } from "./contract";
import type { DeskContext } from "./context";
import { Lanes } from "./lanes";
import { Scheduler } from "./scheduler";
import { RowRunner } from "./runner";
import { FillFollower } from "./fill-follower";
import { planResume } from "./resume-planner";
import { keysHeld, refuseUnsendable, sendable, type AdmissionSources } from "./admission";
import { decide } from "./decisions";
import { doneOnService, type AlreadyDone } from "./approved-done";
import { DeskState } from "./state";

/** Requests the desk has in flight at once, under the client's own rate limit (DeskOptions.concurrency overrides). */
export const DESK_CONCURRENCY = 4;

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

class Desk implements TradingDesk {
  readonly client;
  private readonly concurrency: number;
  private readonly workbook;
  private readonly newKey: () => string;
  /** With this computer's journal, a row it does not hold is the log's alone (see Lanes); without one, no row can be told apart. */
  private readonly lanes = new Lanes(
    (intent) => this.options.intentStore !== undefined && !this.journal.journalledHere(intent.idempotencyKey),
  );
  private readonly state: DeskState;
  private readonly ctx: DeskContext;
  private readonly scheduler: Scheduler;
  private readonly runner: RowRunner;
  private readonly follower: FillFollower;

  constructor(
    private readonly options: DeskOptions,
    readonly environment: DeskContext["environment"],
    readonly account: string | null,
    private readonly journal: Journal,
    private readonly now: () => Date,
  ) {
    this.client = options.client;
    this.workbook = options.workbook;
    this.concurrency = Math.max(1, options.concurrency ?? DESK_CONCURRENCY);
    this.newKey = options.newKey ?? newIdempotencyKey;
    this.state = new DeskState(journal, this.lanes, options.onProgress);
    this.ctx = {
      client: this.client,
      environment,
      journal,
      account,
      concurrency: this.concurrency,
      state: this.state,
      now,
      report: (e) => this.report(e),
      openedHedges: () => this.openedHedges(),
    };
    this.runner = new RowRunner(this.ctx, this.lanes);
    this.scheduler = new Scheduler(this.ctx, this.lanes, (t) => this.runner.step(t));
    this.follower = new FillFollower(
      this.ctx,
      this.lanes,
      this.runner,
      Math.max(MIN_FILL_POLL_MS, options.pollIntervalMs ?? FILL_POLL_MS),
      () => this.scheduler.kick(),
    );
    this.state.followWith(this.follower);
  }

  // ---- what the parts are given ----

  private openedHedges(): OpenedHedges {
    const held = new Map<string, string>();
    for (const r of this.journal.records())
      if (r.action === "open" && r.hedgeId && !held.has(r.hedgeId)) held.set(r.hedgeId, r.idempotencyKey);
    return held;
  }

  private report(e: unknown): void {
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
    this.state.restart();
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
      const key = approval?.idempotencyKeys?.[index] ?? options.idempotencyKeys?.[index] ?? this.newKey();
      const intent = intentFromRow(row, key, this.environment, loggedAt, this.account);
      if (approval)
        [intent.batchHash, intent.preparedBy, intent.approvedBy] = [approval.batchHash, approval.preparedBy, approval.approvedBy];
      intent.keyId = this.client.keyId;
      return intent;
    });
    await this.journal.append(intents);
    this.state.rowsChanged();
    const signal = options.signal;
    for (const [i, intent] of intents.entries()) {
      const found = done.get(lines[i].index);
      const t = this.lanes.track(intent, !found);
      t.signal = signal;
      if (found) void this.runner.judge(t, found); // recorded as done, never sent
      this.state.tell(intent);
    }
    // Nothing to follow yet: a row the service accepts (or one recorded accepted) is handed to the fill follower then.
    this.scheduler.kick();
    await this.state.until(
      () => signal?.aborted === true || this.state.stopped || intents.every((i) => this.lanes.get(i.idempotencyKey)?.answered),
    );
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
    return planResume(this.ctx);
  }

  async resume(options: ResumeOptions = {}): Promise<ResumeResult> {
    await this.reload();
    this.state.restart();
    const claimed = new Set(options.claim ?? []);
    const resumed: Intent[] = [];
    for (const intent of this.journal.all()) {
      if (isFinal(intent.status) || intent.environment !== this.environment) continue;
      if (intent.account ? !sameAccount(intent.account, this.account) : !claimed.has(intent.idempotencyKey)) continue;
      if (!intent.account) this.state.note(intent, { account: this.account });
      resumed.push(intent);
    }
    // A market side's rows are taken up in the order they went (verdict.ts's sideOrder): a row sent before must be
    // settled before a later one leaves, or the later one's effect could be taken for it.
    resumed.sort(sideOrder);
    for (const intent of resumed) {
      this.lanes.track(intent, false);
      this.state.tell(intent);
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
    this.state.rowsChanged();
    return restored.map(rowStatusOf);
  }

  async dismiss(idempotencyKeys: readonly string[]): Promise<RowStatus[]> {
    return (await this.journal.dismiss(idempotencyKeys)).map(rowStatusOf);
  }

  decide(idempotencyKey: string, decision: Decision, options: DecideOptions = {}): Promise<RowStatus> {
    const parts = { lanes: this.lanes, runner: this.runner, kick: () => this.scheduler.kick() };
    return decide(this.ctx, parts, idempotencyKey, decision, options);
  }

  // ---- polling and state ----

  startFillPolling(): void {
    this.state.follow();
  }

  stop(): void {
    this.state.stop();
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
    return this.state.settled(timeoutMs);
  }

  async log() {
    return this.journal.records();
  }

  async recordControl(change: ControlInput): Promise<LogRecord> {
    const record = controlRecord(
      { ...change, at: this.now().toISOString(), environment: this.environment, account: this.account },
      this.newKey(),
    );
    await this.journal.appendControl(record);
    return record;
  }

  /** Reads the log and the per-user journal again (on opening, before Resume), keeping this session's rows as they are. */
  private async reload(): Promise<void> {
    await this.journal.flush().catch(() => undefined);
    // This session's own rows: their in-memory state is the newest; the journal keeps them as they are while it reads.
    await this.journal.load((key) => this.lanes.get(key)?.intent);
    this.state.rowsChanged();
    for (const t of this.lanes.all()) this.journal.adopt(t.intent);
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
