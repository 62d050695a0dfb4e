// The desk's contract: the TradingDesk facade the pane (and the approvals workflow) calls, the options createDesk takes, and the port through which the armed rolls ask the standing roll instructions.
import type { Environment } from "../../api/environment";
import type { HedgingClient } from "../../api/client";
import type { Side } from "../../api/schemas";
import type { Workbook } from "../workbook";
import type { LogRecord } from "../log/hedge-log";
import type { ControlChange } from "../log/control-row";
import type { IntentStore } from "../intent-store";
import type {
  Action,
  BatchAction,
  Decision,
  DecideOptions,
  LaneWait,
  Preview,
  PreviewOptions,
  Progress,
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

export interface DeskOptions {
  client: HedgingClient;
  workbook: Workbook;
  /** Per-user journal of intents (beside the key); survives a workbook closed without saving. Default: kept in memory only. */
  intentStore?: IntentStore;
  /** Defaults to client.environment. */
  environment?: Environment;
  /**
   * account_address of the key's account (GET /account), written in the log's Account column and used to keep another
   * account's rows out of resume and duplicate checks. The pane passes the one its connection proved. When omitted, createDesk
   * asks GET /account once through the sender (its retry policy only; the desk adds none), before reading the log.
   */
  account?: string | null;
  onProgress?: (progress: Progress) => void;
  /**
   * Log writes that failed (Excel busy or unreachable: retried on the next flush) or rows the log no longer has (deleted
   * or key edited: written again at its end). The trades themselves go on; show these to the user.
   */
  onError?: (error: Error) => void;
  /** Requests in flight at once (under the client's own rate limit). Default DESK_CONCURRENCY (4). */
  concurrency?: number;
  /** Fill poll cadence while rows are pending. Default FILL_POLL_MS (500 ms, src/trading/fills.ts), at least MIN_FILL_POLL_MS. */
  pollIntervalMs?: number;
  /** Clock, for tests. */
  now?: () => Date;
  /** New idempotency keys (for the simulation's exact replays); default random UUIDs. */
  newKey?: () => string;
}

/**
 * The one object the pane talks to. Typical use:
 *   const desk = await createDesk({ client, workbook, intentStore, account, onProgress }); // once the account is known
 *   const plan = await desk.inspect();          // on opening: unfinished rows and what the service shows; sends nothing
 *   await desk.resume();                        // only when the user presses Resume
 *   const read = await desk.readRows("open");   // show read.problems; nothing is sent for them
 *   const preview = await desk.preview("open", read.rows, { onProgress, signal });
 *   await desk.send(preview, { sendAgain });    // journals, sends, and follows every row to a final state
 *   await desk.decide(key, "not_done");         // the user's word on a row that needs a decision
 */
export interface TradingDesk {
  readonly environment: Environment;
  /** Reads the selection and validates every row for the action. Sends nothing. */
  readRows(action: Action): Promise<ReadResult>;
  /** Quotes (Open/Add) or looks up positions (Reduce/Close), checks limits and flags duplicates against the log. Sends nothing. */
  preview(action: BatchAction, rows: TradeRow[], options?: PreviewOptions): Promise<Preview>;
  /** Journals each sendable line as `submitting`, then sends, one row at a time per market side. */
  send(preview: Preview, options?: SendOptions): Promise<SendResult>;
  /**
   * Under an approval prepared at `approval.preparedAt`: the preview's lines the service shows done already (by another
   * approval of the batch), by their place in the preview, with what the service shows. Sends and writes nothing; the
   * approvals workflow asks it before refusing a batch whose preview blocks such a line.
   */
  doneBeforeApproval(preview: Preview, approval: SendApproval): Promise<Map<number, string>>;
  /** Reads the log and the per-user journal and asks the service about every unfinished row. Sends and writes nothing. */
  inspect(): Promise<ResumePlan>;
  /** On the user's word: takes up this account's unfinished rows (and the claimed ones): records, follows, re-sends or asks for a decision. */
  resume(options?: ResumeOptions): Promise<ResumeResult>;
  /** Adds rows of ResumePlan.missing to this Hedge Log, on the user's word that they are this workbook's. */
  restore(idempotencyKeys: readonly string[]): Promise<RowStatus[]>;
  /** Stops listing rows of ResumePlan.otherWorkbooks in this workbook (they stay in their own, and in this computer's journal). */
  dismiss(idempotencyKeys: readonly string[]): Promise<RowStatus[]>;
  /** The user's decision on a row that needs one: "done" adopts what the service shows, "not_done" marks it not sent. Logged with the time. */
  decide(idempotencyKey: string, decision: Decision, options?: DecideOptions): Promise<RowStatus>;
  /** Starts the fill poller (idempotent). send() and resume() call it. */
  startFillPolling(): void;
  /** Stops the poller and any retry timers. Unfinished rows stay in the log for the next resume(). */
  stop(): void;
  /** Rows not final and not waiting for the user, as the desk knows them. */
  pending(): RowStatus[];
  /** Rows that need the user's decision. */
  needsDecision(): RowStatus[];
  /** Market sides whose next row waits on an earlier one. */
  waits(): LaneWait[];
  /** Resolves when no row is pending (rows waiting for a decision do not count), or rejects after timeoutMs. */
  settled(timeoutMs?: number): Promise<void>;
  /** This session's rows and the log rows it read (unfinished and today's), for the pane's activity view. Control rows are not among them. */
  log(): Promise<LogRecord[]>;
  /**
   * Records a change of a control as a control row of the Hedge Log (log/control-row.ts), at the desk's time, environment
   * and account: journalled on this computer and linked into the log's chain, sealed at once. Resolves with the row once
   * both hold it; rejects (nothing recorded) when either write fails.
   */
  recordControl(change: ControlInput): Promise<LogRecord>;
}

/** A change of a control as the caller gives it: the desk adds when, the environment and the account. */
export type ControlInput = Omit<ControlChange, "at" | "environment" | "account">;

/**
 * Whether a standing roll instruction covers a roll: sent under it, with what its rows carry into the Hedge Log (the
 * instruction's hash in Batch hash, its preparer and approver), or not, with the reason the pane shows.
 */
export type RollCover =
  | { ok: true; instruction: string; approval: Pick<SendApproval, "batchHash" | "preparedBy" | "approvedBy"> }
  | { ok: false; reason: string };

/**
 * The standing roll instructions (issue 39 item 3: "keep <market, side> hedged … until <date>, at most <USD> per hedge",
 * approved once by a second key), which the armed rolls (roll-arming.ts) ask under four-eyes once a roll's rows are
 * known (src/trading/approvals/roll-cover.ts reads them then). Not covered, the roll is proposed for approval.
 */
export interface RollInstructions {
  coversRoll(roll: { market: string; side: Side; maturityMs: number; rows: readonly TradeRow[] }): Promise<RollCover>;
}
