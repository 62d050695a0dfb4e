// Duplicate detection against the log: a row the log shows as already done (same environment and account, action, market, side, amount and client reference, not failed, rejected or not sent), logged the same UTC day or on the same hedge.
import { utcMs } from "../api/time";
import type { LogRecord } from "./log/hedge-log";
import { sameCent } from "./rows";
import type { DuplicateOf, TradeRow } from "./types";
import type { Environment } from "../api/environment";

/** Log states that mean "this was done, or is being done, or may have been". failed, rejected and not_sent left nothing on the service. */
const DONE_STATES = new Set(["submitting", "submitted", "needs_decision", "filled", "closed"]);

/** Amounts are the same when equal to the cent (the log holds what was sent, rounded to the cent; a Close has none). */
function sameAmount(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return sameCent(a, b);
}

/**
 * Whether a log row belongs to the account in use. Rows without an account (logs older than the Account column) count
 * for every account of their environment; a desk whose account is unknown (null) only claims such rows.
 */
export function sameAccount(rowAccount: string | null | undefined, account: string | null): boolean {
  if (!rowAccount) return true;
  return account !== null && rowAccount.toLowerCase() === account.toLowerCase();
}

/** Which earlier rows count: those logged since `dayStart` (the UTC day), and those acting on `hedgeId` (the hedge this row would act on). */
interface DuplicateWindow {
  dayStart: string;
  hedgeId: string | null;
}

/**
 * The newest log row of this environment and account that already did this row's action, logged the same UTC day or on
 * the same hedge, or null. A Close of another hedge in October is not a duplicate of today's Close.
 */
export function findDuplicate(
  row: TradeRow,
  environment: Environment,
  log: readonly LogRecord[],
  account: string | null,
  scope: DuplicateWindow,
): DuplicateOf | null {
  const since = utcMs(scope.dayStart);
  for (let i = log.length - 1; i >= 0; i--) {
    const r = log[i];
    if (!DONE_STATES.has(r.status)) continue;
    const sameHedge = scope.hedgeId !== null && r.hedgeId === scope.hedgeId;
    const sameDay = utcMs(r.loggedAt) >= since;
    if (!sameHedge && !sameDay) continue;
    if (r.environment !== environment || r.action !== row.action) continue;
    if (!sameAccount(r.account, account)) continue;
    if (r.market.toUpperCase() !== row.market || r.side !== row.side) continue;
    if (!sameAmount(r.notional, row.notional)) continue; // a Close row has no amount (null), as its log row
    if ((r.clientReference ?? null) !== (row.clientReference ?? null)) continue;
    return {
      idempotencyKey: r.idempotencyKey,
      loggedAt: r.loggedAt,
      status: r.status,
      hedgeId: r.hedgeId,
      reason: sameDay ? "same_day" : "same_hedge",
    };
  }
  return null;
}
