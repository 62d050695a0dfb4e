// An intent: one row's action with its own Idempotency-Key, its exact request body, and the explicit state machine submitting → submitted → filled | failed | closed | rejected.
import type { Environment } from "../api/environment";
import type { HedgingClient } from "../api/client";
import type { AddRequest, CloseRequest, DecreaseRequest, OpenRequest, Side, Tenor } from "../api/schemas";
import type { LogRecord } from "./hedge-log";
import { ACTIONS, FINAL_STATUSES, INTENT_STATUSES, type Action, type IntentStatus, type RowStatus, type TradeRow } from "./types";

/**
 * Allowed moves. `submitting` is journalled before the request goes out and stays so through retries of the same key;
 * `submitted` when the service accepted it; then one final state. A final state never changes again.
 *   submitting → submitted     the service answered 200 (status submitted, hedge id, order tx hash)
 *   submitting → rejected      the service refused it with a non-retryable error code (nothing happened on the service)
 *   submitting → failed/filled/closed   a replay or a poll shows it already went further
 *   submitted  → filled | failed | closed   the poller saw the outcome
 */
const MOVES: Record<IntentStatus, readonly IntentStatus[]> = {
  submitting: ["submitting", "submitted", "rejected", "failed", "filled", "closed"],
  submitted: ["submitted", "filled", "failed", "closed"],
  filled: [],
  failed: [],
  closed: [],
  rejected: [],
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
export interface Intent {
  idempotencyKey: string;
  environment: Environment;
  action: Action;
  market: string;
  side: Side;
  notional: number | null;
  tenor: Tenor | null;
  clientReference: string | null;
  rowNumber: number | null;
  loggedAt: string;
  status: IntentStatus;
  hedgeId: string | null;
  orderTxHash: string | null;
  fillTxHash: string | null;
  struckRate: number | null;
  filledAt: string | null;
  errorCode: string | null;
  message: string | null;
  /** account_address of the account the row is sent for; null in rows of logs older than the Account column. */
  account: string | null;
  /** The hedge's notional the service said this action leads to (Add/Reduce answers carry new_notional_usd). In memory only. */
  expectedNotional?: number | null;
  /** The hedge's notional when this action was accepted, when known. In memory only. */
  notionalBefore?: number | null;
}

export type IntentPatch = Partial<
  Pick<Intent, "status" | "hedgeId" | "orderTxHash" | "fillTxHash" | "struckRate" | "filledAt" | "errorCode" | "message">
>;

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
    hedgeId: null,
    orderTxHash: null,
    fillTxHash: null,
    struckRate: null,
    filledAt: null,
    errorCode: null,
    message: null,
    account,
  };
}

export function intentToLogRecord(intent: Intent): LogRecord {
  return {
    loggedAt: intent.loggedAt,
    environment: intent.environment,
    action: intent.action,
    market: intent.market,
    side: intent.side,
    notional: intent.notional,
    tenor: intent.tenor,
    clientReference: intent.clientReference,
    idempotencyKey: intent.idempotencyKey,
    status: intent.status,
    hedgeId: intent.hedgeId,
    orderTxHash: intent.orderTxHash,
    fillTxHash: intent.fillTxHash,
    struckRate: intent.struckRate,
    filledAt: intent.filledAt,
    errorCode: intent.errorCode,
    message: intent.message,
    account: intent.account,
  };
}

/** A log row back into an intent; null when the row is not one this add-in wrote (unknown action, status or side). */
export function intentFromLogRecord(record: LogRecord): Intent | null {
  if (!(ACTIONS as readonly string[]).includes(record.action)) return null;
  if (!isIntentStatus(record.status)) return null;
  if (record.side !== "buy" && record.side !== "sell") return null;
  if (!record.idempotencyKey || !record.market) return null;
  return {
    idempotencyKey: record.idempotencyKey,
    environment: record.environment === "production" ? "production" : "sandbox",
    action: record.action as Action,
    market: record.market,
    side: record.side,
    notional: record.notional,
    tenor: record.tenor as Tenor | null,
    clientReference: record.clientReference,
    rowNumber: null,
    loggedAt: record.loggedAt,
    status: record.status,
    hedgeId: record.hedgeId,
    orderTxHash: record.orderTxHash,
    fillTxHash: record.fillTxHash,
    struckRate: record.struckRate,
    filledAt: record.filledAt,
    errorCode: record.errorCode,
    message: record.message,
    account: record.account || null,
  };
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
