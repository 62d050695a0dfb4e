// The engine's in-memory state: accounts, hedges with their queued orders, closed-hedge records; all money in micro-USDC.
import type { Environment } from "../api/environment";
import type { HedgeStatus, Side, Tenor } from "../api/schemas";
import type { ServiceErrorCode } from "../api/errors";
import type { AccountConfig } from "./accounts";
import type { Micro } from "./money";

export type OrderKind = "open" | "add" | "decrease" | "close";

/** A submitted order waiting for its fill. Orders of one hedge fill one after another, in submission order. */
export interface PendingOrder {
  kind: OrderKind;
  orderTx: string;
  submittedAt: number;
  dueAt: number;
  /** open: the requested notional; add: the added notional; decrease: the requested reduction; close: 0. */
  notional: Micro;
  /** Collateral reserved by an add (released back to the balance if the add never fills). */
  margin: Micro;
  openFee: Micro;
  closeFee: Micro;
  /** A decrease that covers the whole position: it closes the hedge when it fills. */
  full?: boolean;
}

export interface HedgeState {
  id: string;
  seq: number;
  owner: string;
  clientReference: string | null;
  market: string;
  side: Side;
  tenorDays: Tenor;
  status: HedgeStatus;
  /** Filled notional; before the fill of the open, the requested notional. */
  notional: Micro;
  /** Locked collateral of the filled notional: margin and the reserved open and close fees. */
  margin: Micro;
  openFee: Micro;
  closeFee: Micro;
  /** Size-weighted blended entry rate; null until filled. */
  entry: number | null;
  orderTx: string | null;
  fillTx: string | null;
  orderKey: string;
  openedAt: number;
  filledAt: number | null;
  maturityAt: number;
  closedAt: number | null;
  /** Carry realized into the hedge so far, as P&L to the caller (negative when paying), up to `carryFrom`. */
  carry: Micro;
  carryFrom: number;
  /** Clock time of the last processed event; later events of this hedge never happen earlier. */
  lastEventAt: number;
  orders: PendingOrder[];
}

export type ExitType = "close" | "decrease" | "maturity";

export interface ClosedRecord {
  seq: number;
  hedgeId: string;
  clientReference: string | null;
  market: string;
  side: Side;
  size: Micro;
  collateral: Micro;
  entry: number;
  exit: number;
  openedAt: number;
  closedAt: number;
  exitType: ExitType;
  gross: Micro;
  carry: Micro;
  fees: Micro;
  net: Micro;
}

export interface AccountState {
  config: AccountConfig;
  env: Environment;
  startingBalance: Micro;
  /** Free balance. */
  balance: Micro;
  hedges: HedgeState[];
  history: ClosedRecord[];
}

/** A key as the API sees it: its account and its own scopes (a revoked account revokes all its keys). */
export interface Credential {
  acct: AccountState;
  apiKey: string;
  scopes: readonly string[];
  revoked: boolean;
}

export interface ServiceError {
  code: ServiceErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

export type Outcome<T> = { ok: true; data: T } | { ok: false; error: ServiceError };

export function ok<T>(data: T): Outcome<T> {
  return { ok: true, data };
}

export function fail<T = never>(code: ServiceErrorCode, message: string, details?: Record<string, unknown>): Outcome<T> {
  return { ok: false, error: details ? { code, message, details } : { code, message } };
}

/** What `--state FILE` holds (besides idempotency records, stored next to it by the server). */
export interface EngineSnapshot {
  seed: number;
  priceOriginMs: number;
  clockOffsetMs: number;
  rngState: number;
  seq: number;
  accounts: AccountState[];
}

export const OPEN_STATUSES: ReadonlySet<string> = new Set(["submitting", "submitted", "filled"]);

export function isOpen(h: HedgeState): boolean {
  return OPEN_STATUSES.has(h.status);
}

/** A close (or a decrease covering the whole position) is queued: the hedge takes no further orders. */
export function isClosing(h: HedgeState): boolean {
  return h.orders.some((o) => o.kind === "close" || o.full === true);
}
