// The trading engine's public types: actions, rows read from the sheet, previews, intents and their states, and the TradingDesk facade the pane calls.
import type { Environment } from "../api/environment";
import type { HedgingClient } from "../api/client";
import type { Account, Hedge, Market, Position, Quote, Side, Tenor } from "../api/schemas";
import type { Workbook } from "./workbook";
import type { LogRecord } from "./hedge-log";

export const ACTIONS = ["open", "add", "reduce", "close"] as const;
/** What the user asks for on the selected rows. */
export type Action = (typeof ACTIONS)[number];

/** The fields a row can carry; which are required depends on the action (REQUIRED_FIELDS). */
export type RowField = "market" | "side" | "notional" | "tenor" | "clientReference";

/** A validated row, ready to preview and send. `notional` is the amount for Add and Reduce. */
export interface TradeRow {
  /** 1-based sheet row number, as Excel shows it. */
  rowNumber: number;
  action: Action;
  market: string;
  side: Side;
  /** USD. Open: notional; Add: additional; Reduce: reduced; Close: null. */
  notional: number | null;
  /** Open only, else null. */
  tenor: Tenor | null;
  /** Required for Open; optional elsewhere (logged when given). */
  clientReference: string | null;
}

/** A row that cannot be sent, with the field at fault and what to do. */
export interface RowProblem {
  rowNumber: number;
  /** "columns" when a required column is missing from the headers altogether. */
  field: RowField | "columns";
  /** The cell as the user typed it ("" when empty). */
  value: string;
  /** A full sentence for the user, e.g. "Row 7: Tenor 5 — use 1, 3 or 7." */
  message: string;
}

/** What readRows found: good rows, bad rows (by sheet row number) and how the headers were understood. */
export interface ReadResult {
  action: Action;
  sheetName: string;
  address: string;
  tableName: string | null;
  /** Which sheet header each field was read from, e.g. { market: "Pair", notional: "Notional USD" }. */
  columns: Partial<Record<RowField, string>>;
  rows: TradeRow[];
  problems: RowProblem[];
  /** Blank rows skipped (not an error). */
  blankRows: number[];
}

/** A previous log row that did the same thing (same action, market, side, amount and client reference, not failed/rejected). */
export interface DuplicateOf {
  idempotencyKey: string;
  loggedAt: string;
  status: string;
  hedgeId: string | null;
}

/** One row of a preview. */
export interface PreviewLine {
  row: TradeRow;
  /** Open and Add: the service's quote for this row. */
  quote: Quote | null;
  /** Reduce and Close: the position line affected (null when there is none). */
  position: Position | null;
  /** Open/Add: collateral to lock (quote total upfront). Reduce/Close: 0. USDC. */
  collateralUsdc: number;
  /** Open/Add: carry over the tenor (positive = caller pays). USDC. */
  carryUsdc: number;
  /** Reduce/Close: margin expected back (net margin, scaled for a reduce). USDC. */
  marginBackUsdc: number;
  /** Set when the log shows this row as already done; sending it needs `sendAgain`. */
  duplicateOf: DuplicateOf | null;
  /** Problems that stop this row (e.g. "No open buy position on USDTNGN: use Open first."); empty when sendable. */
  blockers: string[];
  /** Things the user should see but that do not stop the row. */
  warnings: string[];
}

/** A limit checked in the preview (balance, exposure headroom, capacity of a market side). */
export interface LimitCheck {
  label: string;
  needed: number;
  available: number;
  ok: boolean;
}

export interface PreviewTotals {
  rows: number;
  notionalUsd: number;
  collateralUsdc: number;
  carryUsdc: number;
  marginBackUsdc: number;
}

/** Everything the pane shows before the user confirms. Pass it back unchanged to send(). */
export interface Preview {
  action: Action;
  environment: Environment;
  createdAt: string;
  lines: PreviewLine[];
  totals: PreviewTotals;
  /** Balance, exposure headroom and capacity per market side (Open/Add); empty for Reduce/Close. */
  checks: LimitCheck[];
  /** Batch-level reasons nothing can be sent (a failed limit check); empty when the batch can go. */
  blockers: string[];
  /** Lines flagged as already done. */
  duplicates: number;
  account: Account | null;
  markets: Market[];
}

/** Log status of an intent. `submitting` is written before the request goes out; the last four are final. */
export const INTENT_STATUSES = ["submitting", "submitted", "filled", "failed", "closed", "rejected"] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];
export const FINAL_STATUSES: readonly IntentStatus[] = ["filled", "failed", "closed", "rejected"];

/** Where one row stands; sent to onProgress on every change and returned by send()/resume(). */
export interface RowStatus {
  idempotencyKey: string;
  /** Sheet row number of the source row; null for rows resumed from the log (the log does not keep it). */
  rowNumber: number | null;
  action: Action;
  market: string;
  side: Side;
  notional: number | null;
  status: IntentStatus;
  hedgeId: string | null;
  errorCode: string | null;
  /** Last message for the user (error text with advice, or "Filled at 1,502.35"). Never contains the API key. */
  message: string | null;
}

/** Progress of the current work: counts by status and the row that just changed. */
export interface Progress {
  row: RowStatus;
  total: number;
  /** Rows in a final state. */
  done: number;
  counts: Record<IntentStatus, number>;
}

export interface SendOptions {
  /** Send lines flagged as duplicates too. Without it they are skipped (reported as skipped). */
  sendAgain?: boolean;
  signal?: AbortSignal;
}

export interface SendResult {
  /** One per line sent, in preview order, as it stood when its request was answered (submitted, rejected, or still submitting after transient errors). */
  rows: RowStatus[];
  /** Lines not sent: duplicates without sendAgain, or lines with blockers. */
  skipped: Array<{ rowNumber: number; reason: string }>;
}

export interface ResumeResult {
  /** Log rows found unfinished and taken up again. */
  resumed: RowStatus[];
}

export interface DeskOptions {
  client: HedgingClient;
  workbook: Workbook;
  /** Defaults to client.environment. */
  environment?: Environment;
  /**
   * account_address of the key's account (GET /account), written in the log's Account column and used to keep another
   * account's rows out of resume and duplicate checks. When omitted the desk asks GET /account once before reading the log.
   */
  account?: string | null;
  onProgress?: (progress: Progress) => void;
  /**
   * Log writes that failed (Excel busy or unreachable: retried on the next flush) or rows the log no longer has (deleted
   * or key edited: their updates are dropped). The trades themselves go on; show these to the user.
   */
  onError?: (error: Error) => void;
  /** Requests in flight at once (under the client's own rate limit). Default 4. */
  concurrency?: number;
  /** Fill poll cadence while rows are pending. Default 500 ms: a batch is seen filled within half a second of its last fill (issue 11). */
  pollIntervalMs?: number;
  /** Clock, for tests. */
  now?: () => Date;
}

/**
 * The one object the pane talks to. Typical use:
 *   const desk = createDesk({ client, workbook, onProgress });
 *   await desk.resume();                    // when the pane opens: finish what the log shows unfinished
 *   const read = await desk.readRows("open"); // show read.problems; nothing is sent for them
 *   const preview = await desk.preview("open", read.rows);
 *   await desk.send(preview, { sendAgain });  // journals, sends, and starts fill polling
 *   await desk.settled();                     // optional: resolves when every row is final
 */
export interface TradingDesk {
  readonly environment: Environment;
  /** Reads the selection (or its table) and validates every row for the action. Sends nothing. */
  readRows(action: Action): Promise<ReadResult>;
  /** Quotes (Open/Add) or looks up positions (Reduce/Close), checks limits and flags duplicates against the log. Sends nothing. */
  preview(action: Action, rows: TradeRow[]): Promise<Preview>;
  /** Journals each sendable line as `submitting`, then sends with bounded concurrency; starts fill polling. */
  send(preview: Preview, options?: SendOptions): Promise<SendResult>;
  /** Takes up log rows still `submitting` (re-sent with the same key) or `submitted` (polled); starts fill polling. */
  resume(): Promise<ResumeResult>;
  /** Starts the fill poller (idempotent). send() and resume() call it. */
  startFillPolling(): void;
  /** Stops the poller and any retry timers. Unfinished rows stay in the log for the next resume(). */
  stop(): void;
  /** Rows not yet final, as the desk knows them. */
  pending(): RowStatus[];
  /** Resolves when no row is pending (or rejects after timeoutMs). */
  settled(timeoutMs?: number): Promise<void>;
  /** The log rows (for the pane's recent activity view). */
  log(): Promise<LogRecord[]>;
}

export type { Hedge };
