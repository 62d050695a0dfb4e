// The trading engine's shared types: actions, rows read from the sheet, previews, intents and their states, resume plans and decisions (the desk's facade is desk/contract.ts).
import { CONTROL_STATUS } from "./log/control-row";
import type { Environment } from "../api/environment";
import type { Account, Hedge, Market, Position, Quote, Side, Tenor } from "../api/schemas";

export const ACTIONS = ["open", "add", "reduce", "close"] as const;
/** What the user asks for on the selected rows. */
export type Action = (typeof ACTIONS)[number];
/** A batch's action: one for every row, or "column" when each row's comes from the selection's Action column (a proposal). */
export type BatchAction = Action | "column";

/** The fields a row can carry; which are required depends on the action (REQUIRED_FIELDS). */
export type RowField = "action" | "market" | "side" | "notional" | "tenor" | "clientReference";

/**
 * What one row asks of the service: the fields a validated sheet row and its intent share (the intent adds its key,
 * its state and what the service answered; the Hedge Log record holds the same fields as read back from cells).
 */
export interface TradeRequest {
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

/** A validated row, ready to preview and send. `notional` is the amount for Add and Reduce. */
export interface TradeRow extends TradeRequest {
  /** 1-based sheet row number, as Excel shows it. */
  rowNumber: number;
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
  /** "column" when the selection has an Action column: each row then carries its own action. */
  action: BatchAction;
  sheetName: string;
  address: string;
  tableName: string | null;
  /** Which sheet header each field was read from, e.g. { market: "Pair", notional: "Notional USD" }. */
  columns: Partial<Record<RowField, string>>;
  rows: TradeRow[];
  problems: RowProblem[];
  /** Blank rows skipped (not an error). */
  blankRows: number[];
  /** Rows inside the selection that Excel hides (filtered out or hidden), left out; the pane says how many. */
  hiddenRowsSkipped: number;
}

/**
 * An earlier log row that did the same thing (same action, market, side, amount and client reference, not failed, rejected
 * or not sent), logged the same UTC day or acting on the same hedge.
 */
export interface DuplicateOf {
  idempotencyKey: string;
  loggedAt: string;
  status: string;
  hedgeId: string | null;
  /** Why it counts: logged the same UTC day, or on the hedge this row would act on. */
  reason: "same_day" | "same_hedge";
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
  /**
   * Add / Reduce / Close: the notional the side's hedge holds before this row, as previewed (the open hedge, after the
   * rows above it in the batch; 0 when none is open); null for an Open or when the open hedges could not all be listed.
   */
  notionalBefore?: number | null;
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
  /** The currency of `needed` and `available`: collateral is USDC, notionals are USD. */
  unit: "USD" | "USDC";
  needed: number;
  available: number;
  ok: boolean;
}

export interface PreviewTotals {
  rows: number;
  /** Rows whose figures are in (quoted for Open/Add, position found for Reduce/Close); the totals add these up. */
  priced: number;
  notionalUsd: number;
  collateralUsdc: number;
  carryUsdc: number;
  marginBackUsdc: number;
}

/** Everything the pane shows before the user confirms. Pass it back unchanged to send(). */
export interface Preview {
  /** "column": the rows carry their own actions (closes and reduces are looked up, opens and adds quoted). */
  action: BatchAction;
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
  /** True when the user cancelled the pricing: lines not priced carry a blocker and are not sent. */
  cancelled: boolean;
  /** Distinct quote requests made (rows with the same market, side, notional and tenor share one). */
  quoteRequests: number;
  /** Each roll of the batch (a Close, then an Open of its side) with its price (preview-rolls.ts); empty when none. */
  rolls: PreviewRoll[];
}

/**
 * A roll in a preview, priced: the Close's exit impact (a quote's `price_impact_usd` for the position, as a cost), the
 * fee pair and the roll's cost, their sum. A figure is null until its quote is in (or when it could not be had).
 */
export interface PreviewRoll {
  market: string;
  side: Side;
  closeRow: number;
  openRow: number;
  /** USD, positive: a cost. */
  exitImpactUsd: number | null;
  /** The position's closing fee (USD). */
  closeFeeUsd: number | null;
  /** The Open's platform fee (USDC: its open and close fees, reserved at open). */
  openFeeUsdc: number | null;
  /** exit impact + Close's fee + Open's fee, to the cent. */
  costUsd: number | null;
}

export interface PreviewOptions {
  /** Cancel: the quotes not yet asked are not asked; what is priced so far is returned. */
  signal?: AbortSignal;
  /** Called as figures arrive (first at once, then as each distinct question is answered), with the preview so far. */
  onProgress?: (partial: Preview) => void;
}

/**
 * Log status of an intent. `submitting` is written before the request goes out; `needs_decision` waits for the user
 * (the service could not tell whether the row took effect); the last five are final.
 */
export const INTENT_STATUSES = ["submitting", "submitted", "needs_decision", "filled", "failed", "closed", "rejected", "not_sent"] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];
export const FINAL_STATUSES: readonly IntentStatus[] = ["filled", "failed", "closed", "rejected", "not_sent"];
/**
 * The statuses of a log row that is done with: a trade's final states and a control row's `recorded` (written final, with
 * its seal). What reads the log by status (the journal's unfinished rows, the archive, the chain check) uses this list.
 */
export const LOG_FINAL_STATUSES: readonly string[] = [...FINAL_STATUSES, CONTROL_STATUS];

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
  /**
   * Why the row waits for the user's decision, in the words the pane shows (what the service showed, what stops a
   * re-send); null when it does not wait, or when only its Message says why (parked by another computer or before this
   * field was kept).
   */
  parkedFor: string | null;
  loggedAt: string;
  account: string | null;
}

/** Progress of the current work: counts by status and the row that just changed. */
export interface Progress {
  row: RowStatus;
  total: number;
  /** Rows in a final state. */
  done: number;
  counts: Record<IntentStatus, number>;
}

/** The approval a batch is sent under (src/trading/approvals/approval-desk.ts): written into every intent and log row of the send. */
export interface SendApproval {
  /** The batch's hash as prepared (src/trading/approvals/batch-hash.ts). */
  batchHash: string;
  /** The preparer's public key fingerprint (never the key). */
  preparedBy: string;
  /** The approver's public key fingerprint (never the key). */
  approvedBy: string;
  /**
   * One per preview line, in order: the line's Idempotency-Key instead of a fresh random one (a batch approved again after
   * a crash re-uses its keys). A line whose key this computer's journal or the log already holds is not sent again: it is
   * skipped with "already sent: see Resume".
   */
  idempotencyKeys?: readonly string[];
  /**
   * When the batch was prepared (ISO 8601 UTC). Given, the service is asked first what of the batch is already done (an
   * Open by its client reference, on a hedge opened since): such a line is journalled as done, with what the service
   * shows, and never sent (desk/approved-done.ts).
   */
  preparedAt?: string;
  /**
   * One per preview line, in order: the notional the line expects to find on its side's hedge (Add / Reduce / Close, as
   * prepared; null: not known). With preparedAt, the side's hedge is read first: at a line's notional after, the line is
   * done already (recorded, never sent); at a notional the batch does not explain, the side's lines are refused, not sent.
   */
  notionalsBefore?: ReadonlyArray<number | null>;
}

export interface SendOptions {
  /** Send lines flagged as duplicates too. Without it they are skipped (reported as skipped). */
  sendAgain?: boolean;
  signal?: AbortSignal;
  /** Sent under an approval: its hash and fingerprints go into every row, its keys (when given) replace the fresh ones. */
  approval?: SendApproval;
  /** Keys of the lines by their place in the preview (an armed roll's, derived from its client references), in place of fresh ones; an approval's win. */
  idempotencyKeys?: readonly string[];
}

export interface SendResult {
  /** One per line sent, in preview order, as it stood once its first request was answered (or it stopped to wait). */
  rows: RowStatus[];
  /** Lines not sent: duplicates without sendAgain, or lines with blockers. */
  skipped: Array<{ rowNumber: number; reason: string }>;
}

/** What the desk will do with an unfinished row when the user presses Resume. */
export type ResumeStep =
  /** The service shows the outcome: it is recorded. */
  | "record"
  /** Accepted by the service and not final yet: followed until it is. */
  | "follow"
  /** Never sent (the log says so): sent now, with its own key. */
  | "send"
  /** Sent moments ago and not on the service yet: sent again with the same key (the service replays or acts once). */
  | "resend"
  /** The service cannot tell: the user decides (It was done / It was not done). */
  | "decide"
  /** Not asked yet (a long list): Resume asks the service first, then does one of the above. */
  | "ask";

/** One unfinished row as the pane lists it on opening: what the log says, what the service shows, what Resume would do. */
export interface ResumeItem {
  row: RowStatus;
  /** "mine": this account's row; "unclaimed": a row of an older log without an account (only after the user claims it). */
  owner: "mine" | "unclaimed";
  /** What the service shows for it, in a sentence ("Hedge hdg_… is filled at 125,000.00 USD."). */
  serviceSays: string;
  step: ResumeStep;
  /** Why, in a sentence. */
  detail: string;
}

/** A log row the desk will never send (no idempotency key, or no market): only the user can sort it out. */
export interface UnusableRow {
  loggedAt: string;
  action: string;
  market: string;
  side: string;
  idempotencyKey: string;
  status: string;
  reason: string;
}

export interface ResumePlan {
  items: ResumeItem[];
  unusable: UnusableRow[];
  /** Unfinished rows of another account or environment in this log (never taken up here). */
  otherAccounts: number;
  /**
   * Recent rows of this computer's journal (this environment and account) that this Hedge Log does not hold: another
   * workbook's, or this one's if it was closed without saving before its log was ever saved. restore() adds them.
   */
  missing: RowStatus[];
  /**
   * Unfinished rows this computer journalled in another workbook (not this one's, so never written here): listed with
   * that workbook's name where Excel knew it, until dismiss() stops listing them in this workbook.
   */
  otherWorkbooks: Array<{ row: RowStatus; workbookName: string | null }>;
  /**
   * Rows this computer journalled under this workbook's id but another file name (`workbookName`): this file is a copy of
   * that one (a Save As, a copied file), or that one of this. Never written here until the user says: restore() writes
   * them into this Hedge Log, dismiss() stops listing them in this file. `fileName`: this file's name.
   */
  copied: { fileName: string; rows: Array<{ row: RowStatus; workbookName: string }> } | null;
}

export interface ResumeOptions {
  /** Rows of an older log without an account that the user confirmed as this account's (by idempotency key). */
  claim?: readonly string[];
}

export interface ResumeResult {
  /** Log rows taken up again (this account's unfinished rows, and the claimed ones). */
  resumed: RowStatus[];
}

/** The user's word on a row that needs a decision. */
export type Decision = "done" | "not_done";

export interface DecideOptions {
  /**
   * The user confirmed "It was done" although neither the service nor this computer's journal shows anything of the row
   * (decide() refuses it first with NothingShownError, changing nothing).
   */
  nothingShown?: boolean;
}

/** A market side whose next row waits, and on which row. */
export interface LaneWait {
  market: string;
  side: Side;
  /** The row the side waits on. */
  row: RowStatus;
  /** Rows queued behind it. */
  queued: number;
  /** The first row queued behind it (the row that goes next, e.g. the Close the user chose meanwhile); null when none. */
  next: RowStatus | null;
  reason: "needs_decision" | "in_progress";
}

export type { Hedge };
