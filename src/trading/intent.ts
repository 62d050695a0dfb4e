// An intent: one row's action with its own Idempotency-Key, its exact request body, and the explicit state machine submitting → submitted → filled | failed | closed | rejected, with needs_decision → not_sent on the user's word.
import type { Environment } from "../api/environment";
import type { HedgingClient } from "../api/client";
import type { AddRequest, CloseRequest, DecreaseRequest, OpenRequest, Side, Tenor } from "../api/schemas";
import {
  LOG_COLUMNS,
  type LogField,
  type LogRecord,
  type LogStatusField,
  type RowApproval,
  type RowChain,
  type RowJournal,
  type RowOutcome,
} from "./log/hedge-log";
import {
  ACTIONS,
  FINAL_STATUSES,
  INTENT_STATUSES,
  type Action,
  type IntentStatus,
  type RowStatus,
  type TradeRequest,
  type TradeRow,
} from "./types";

/**
 * Allowed moves. `submitting` is journalled before the request goes out and stays so through re-asks of the same key;
 * `submitted` when the service accepted it; then one final state. A final state never changes again.
 *   submitting → submitted        the service answered 200 (status submitted, hedge id, order tx hash)
 *   submitting → rejected         the service refused it with a 4xx that says it did nothing
 *   submitting → failed/filled/closed   the service shows it already went further
 *   submitted  → filled | failed | closed   the poller saw the outcome
 *   submitting | submitted → needs_decision   the service cannot tell (old row absent, capped unknowns, hedge_not_found)
 *   needs_decision → the user's word: what the service shows (submitted, filled, failed, closed), or not_sent
 */
const MOVES: Record<IntentStatus, readonly IntentStatus[]> = {
  submitting: ["submitting", "submitted", "needs_decision", "rejected", "failed", "filled", "closed"],
  submitted: ["submitted", "needs_decision", "filled", "failed", "closed"],
  needs_decision: ["needs_decision", "submitted", "filled", "failed", "closed", "not_sent"],
  filled: [],
  failed: [],
  closed: [],
  rejected: [],
  not_sent: [],
};

export function isFinal(status: string): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

export function isIntentStatus(status: string): status is IntentStatus {
  return (INTENT_STATUSES as readonly string[]).includes(status);
}

export function canMove(from: IntentStatus, to: IntentStatus): boolean {
  return MOVES[from].includes(to);
}

export class IllegalTransition extends Error {
  constructor(
    readonly from: IntentStatus,
    readonly to: IntentStatus,
    readonly idempotencyKey: string,
  ) {
    super(`Intent ${idempotencyKey} cannot go from ${from} to ${to}.`);
    this.name = "IllegalTransition";
  }
}

/** Everything needed to (re)send one action, rebuilt identically from its log row on resume. */
export interface Intent extends TradeRequest, RowOutcome, RowJournal, RowApproval, RowChain {
  idempotencyKey: string;
  environment: Environment;
  /** The sheet row it came from; null for a row taken up from the log. */
  rowNumber: number | null;
  loggedAt: string;
  status: IntentStatus;
  /** Fingerprint of the API key that sent it, when this computer's journal knows it (never in the workbook). */
  keyId: string | null;
  /** A row already in the log when this one was appended (see StoredIntent.anchor). */
  anchor: string | null;
  /** The workbook it was appended in (see StoredIntent.workbookId): set by the journal, kept by this computer only. */
  workbookId: string | null;
  workbookName: string | null;
  /** Why it waits for the user's decision (see RowStatus.parkedFor): kept by this computer's journal, not a log column. */
  parkedFor: string | null;
}

/** What a status change may set: the log's status fields (LOG_STATUS_FIELDS), and why a row waits for a decision. */
export type IntentPatch = Partial<Pick<Intent, LogStatusField | "parkedFor">>;

/** Applies a patch, enforcing the state machine. Returns the changed fields (empty when nothing changed). */
export function applyPatch(intent: Intent, patch: IntentPatch): IntentPatch {
  if (patch.status !== undefined && !canMove(intent.status, patch.status))
    throw new IllegalTransition(intent.status, patch.status, intent.idempotencyKey);
  const changed: IntentPatch = {};
  for (const [k, v] of Object.entries(patch) as Array<[keyof IntentPatch, IntentPatch[keyof IntentPatch]]>) {
    if (v === undefined || intent[k] === v) continue;
    (intent as unknown as Record<string, unknown>)[k] = v;
    (changed as Record<string, unknown>)[k] = v;
  }
  return changed;
}

export function intentFromRow(
  row: TradeRow,
  idempotencyKey: string,
  environment: Environment,
  loggedAt: string,
  account: string | null = null,
): Intent {
  return {
    ...blankLogFields(),
    idempotencyKey,
    environment,
    action: row.action,
    market: row.market,
    side: row.side,
    notional: row.action === "close" ? null : row.notional,
    tenor: row.action === "open" ? row.tenor : null,
    clientReference: row.clientReference,
    rowNumber: row.rowNumber,
    loggedAt,
    status: "submitting",
    account,
    keyId: null,
    anchor: null,
    workbookId: null,
    workbookName: null,
    parkedFor: null,
  };
}

/** Every log field empty (LOG_COLUMNS): what a new intent starts from. */
const blankLogFields = () => Object.fromEntries(LOG_COLUMNS.map((c) => [c.field, null])) as { [F in LogField]: null };

/** An intent's log row: its value of every log column (an intent carries every field of the log). */
export function intentToLogRecord(intent: Intent): LogRecord {
  return Object.fromEntries(LOG_COLUMNS.map((c) => [c.field, intent[c.field]])) as unknown as LogRecord;
}

/** Whether an idempotency key can be sent: a non-empty string without surrounding blanks. */
export function usableKey(key: unknown): key is string {
  return typeof key === "string" && key !== "" && key.trim() === key;
}

/**
 * A log row back into an intent; null when the row cannot be one (unknown action, status or side, or no usable
 * idempotency key or market): such a row is never sent; unusableReason() says why for the pane.
 */
export function intentFromLogRecord(record: LogRecord): Intent | null {
  if (unusableReason(record) !== null) return null;
  // Every log column as read (an empty or absent cell: null), then the fields an intent types more narrowly.
  const fields = Object.fromEntries(
    LOG_COLUMNS.map((c) => {
      const v = record[c.field];
      return [c.field, v === undefined || v === "" ? null : v];
    }),
  ) as Pick<Intent, LogField>;
  return {
    ...fields,
    idempotencyKey: record.idempotencyKey,
    environment: record.environment === "production" ? "production" : "sandbox",
    action: record.action as Action,
    market: record.market,
    side: record.side as Side,
    tenor: fields.tenor as Tenor | null,
    rowNumber: null,
    loggedAt: record.loggedAt,
    status: record.status as IntentStatus,
    keyId: null,
    anchor: null,
    workbookId: null,
    workbookName: null,
    parkedFor: null,
  };
}

/** Why a log row can never be sent or resumed (null when it can): the pane lists such rows for the user to sort out. */
export function unusableReason(record: LogRecord): string | null {
  if (!(ACTIONS as readonly string[]).includes(record.action)) return `its Action "${record.action}" is not open, add, reduce or close`;
  if (!isIntentStatus(record.status)) return `its Status "${record.status}" is not one the add-in writes`;
  if (!usableKey(record.idempotencyKey))
    return "its Idempotency key is empty (or has spaces around it), so the service could not tell whether it already acted on it";
  if (!record.market || record.market.trim() === "") return "its Market is empty";
  if (record.side !== "buy" && record.side !== "sell") return `its Side "${record.side}" is not buy or sell`;
  return null;
}

export function rowStatusOf(intent: Intent): RowStatus {
  return {
    idempotencyKey: intent.idempotencyKey,
    rowNumber: intent.rowNumber,
    action: intent.action,
    market: intent.market,
    side: intent.side,
    notional: intent.notional,
    status: intent.status,
    hedgeId: intent.hedgeId,
    errorCode: intent.errorCode,
    message: intent.message,
    parkedFor: intent.status === "needs_decision" ? intent.parkedFor : null,
    loggedAt: intent.loggedAt,
    account: intent.account,
  };
}

/** The answer of a state-changing call, reduced to what the journal keeps. */
export interface Submission {
  hedgeId: string | null;
  orderTxHash: string | null;
  newNotional: number | null;
}

/**
 * Sends the intent's request with its own Idempotency-Key. The body is a pure function of the journalled fields, so a
 * resend after a reload is byte-for-byte the same request and the service replays the original result.
 */
export async function submit(client: HedgingClient, intent: Intent, signal?: AbortSignal): Promise<Submission> {
  // A row without its own key is never sent: a request without one could act twice.
  if (!usableKey(intent.idempotencyKey))
    throw new Error(`Row ${intent.action} ${intent.market} ${intent.side} has no usable idempotency key: nothing was sent.`);
  const options = { idempotencyKey: intent.idempotencyKey, signal };
  switch (intent.action) {
    case "open": {
      const body: OpenRequest = {
        market: intent.market,
        side: intent.side,
        notional_usd: intent.notional ?? NaN,
        tenor_days: (intent.tenor ?? NaN) as Tenor,
        client_reference: intent.clientReference,
      };
      const { data } = await client.open(body, options);
      return { hedgeId: data.hedge_id ?? null, orderTxHash: data.order_tx_hash ?? null, newNotional: data.quote.notional_usd };
    }
    case "add": {
      const body: AddRequest = { market: intent.market, side: intent.side, additional_notional_usd: intent.notional ?? NaN };
      const { data } = await client.add(body, options);
      return { hedgeId: data.hedge_id ?? null, orderTxHash: data.order_tx_hash ?? null, newNotional: data.new_notional_usd ?? null };
    }
    case "reduce": {
      const body: DecreaseRequest = { market: intent.market, side: intent.side, reduce_notional_usd: intent.notional ?? NaN };
      const { data } = await client.decrease(body, options);
      return { hedgeId: data.hedge_id ?? null, orderTxHash: data.order_tx_hash ?? null, newNotional: data.new_notional_usd ?? null };
    }
    case "close": {
      const body: CloseRequest = { market: intent.market, side: intent.side };
      const { data } = await client.close(body, options);
      return { hedgeId: data.hedge_id ?? null, orderTxHash: data.order_tx_hash ?? null, newNotional: 0 };
    }
  }
}
