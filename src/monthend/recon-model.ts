// The reconciliation's vocabulary: what it reads (MonthData), what it finds (lines, totals, differences), and the rules every phase shares.
import type { Environment } from "../api/environment";
import type { ClosedHedge, Hedge, Position } from "../api/schemas";
import { utcMs } from "../api/time";
import type { LogRecord } from "../trading/log/hedge-log";
import type { ChainReport } from "./log-chain-check";
import type { ControlLine } from "./control-lines";
import type { MonthWindow } from "./month";

export type ServiceFindingKind = "differs" | "logged_after" | "logged_long_before" | "cut_off";

/** One finding as the recon sheet lists it, at its row. */
export interface ServiceLine {
  kind: ServiceFindingKind;
  /** The log column it is about ("Struck rate"), null for rows cut off. */
  field: string | null;
  sheet: string | null;
  rowNumber: number | null;
  logSays: string;
  serviceSays: string;
  message: string;
}

/** How many cells of the rows read are in each class (src/monthend/cell-classes.ts). */
export interface CellCounts {
  /** Compared with what the service shows. */
  checked: number;
  /** Not known to the service, held only by the hash chain (a row's body once linked, its outcome once sealed). */
  sealed: number;
  /** Neither: in the workbook only (rows before the chain, an unfinished row's outcome, a row the service showed nothing for). */
  workbookOnly: number;
}

/** What month end found comparing the log with the service. */
export interface ServiceReport {
  /** Rows of this environment and account whose hedge the service showed: the rows compared cell by cell. */
  compared: number;
  /** False when the service's hedges could not all be read (the pages stopped short): rows whose hedge was not read are not compared. */
  complete: boolean;
  lines: ServiceLine[];
  /** Every cell of the rows read, by class. */
  cells: CellCounts;
}

/** Everything the reconciliation looks at, fetched beforehand (see month-data.ts). */
export interface MonthData {
  environment: Environment;
  accountAddress: string | null;
  window: MonthWindow;
  /** When the data was read (epoch ms); positions and hedge states are as of this time. */
  generatedAtMs: number;
  /** Closed-hedge records closed from the month's start onwards (later ones too: they tell when a hedge closed). */
  history: ClosedHedge[];
  /** False when the history read was cut short (see fetchHistory): records near the month's start may be missing. */
  historyComplete: boolean;
  /** Why it was cut short, when it was. */
  historyIncompleteReason?: string | null;
  /** Open positions when the data was read. */
  positions: Position[];
  /** The hedges the service returned (its newest hedges, every open one, and each hedge id the log names that the service knows). */
  hedges: Hedge[];
  /** False when the pages of hedges stopped before reaching back to shortly before the month (fetchHedges). */
  hedgesComplete?: boolean;
  /** Every Hedge Log row (any environment; rows of the other environment are left out here). */
  log: LogRecord[];
  /** The check of the log's hash chain over every row read (verifyLogChain); null or absent when it was not run. */
  chain?: ChainReport | null;
  /** The check of the log's cells against the service (checkLogAgainstService); null or absent when it was not run. */
  service?: ServiceReport | null;
}

export const DIFFERENCE_KINDS = [
  "log_unknown_to_service",
  "service_not_in_log",
  "notional_mismatch",
  "status_mismatch",
  "pending",
] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

/** How each kind reads on the sheet. */
export const DIFFERENCE_LABELS: Readonly<Record<DifferenceKind, string>> = {
  log_unknown_to_service: "Log action unknown to the service",
  service_not_in_log: "Service hedge with no log row",
  notional_mismatch: "Notional disagrees",
  status_mismatch: "Status disagrees",
  pending: "Action still pending",
};

export interface Difference {
  kind: DifferenceKind;
  hedgeId: string | null;
  clientReference: string | null;
  market: string | null;
  side: string | null;
  /** The log row concerned (null for a service hedge with no log row). */
  logIdempotencyKey: string | null;
  loggedAt: string | null;
  logAction: string | null;
  /** What the log says, e.g. "filled" or "net notional 150,000.00". */
  logSays: string;
  /** What the service says, e.g. "closed (maturity)" or "not found". */
  serviceSays: string;
  /** The numeric gap where there is one (log minus service), else null. */
  amount: number | null;
  /** What it means and what to do. */
  detail: string;
}

export interface RealizedLine {
  record: ClosedHedge;
  /** From the record, or found through its client reference. */
  hedgeId: string | null;
  clientReference: string | null;
}

export interface Totals {
  /** "buy", "sell" or "all". */
  label: string;
  count: number;
  sizeUsd: number;
  grossPnlUsd: number;
  carryUsd: number;
  feesUsd: number;
  netPnlUsd: number;
}

export interface OpenLine {
  position: Position;
  /** The service's open hedge on the position's market and side, when found. */
  hedgeId: string | null;
  clientReference: string | null;
  openedAt: string | null;
}

export interface OpenTotals {
  count: number;
  sizeUsd: number;
  grossPnlUsd: number;
  accruedCarryUsd: number;
  netPnlUsd: number;
}

/** A hedge's end in the month and what followed on its market side. */
export interface SideEvent {
  market: string;
  side: string;
  hedgeId: string;
  clientReference: string | null;
  endedAtMs: number;
  /** The exit type of its closing record: `maturity`, `close`, or `decrease` (a reduction that took it whole). */
  endedBy: string;
  /** The next hedge on the side, covering from its fill (its opening time when the fill time is not known). */
  next: { hedgeId: string; clientReference: string | null; coveredFromMs: number } | null;
  /**
   * `roll`: the next hedge opened on the side inside the month. `unhedged`: none did; the gap runs to the month's end, or
   * to the time generated when that is earlier (`stillUnhedged`).
   */
  kind: "roll" | "unhedged";
  stillUnhedged: boolean;
  /** Unhedged time inside the month: from the end to the next hedge's fill (or to the month's end / the time generated). */
  gapMs: number;
  /** When the hedge that ended started covering its side (its fill, else its opening). */
  coveredFromMs: number;
  /** Its tenor in days, when known (the service's list). */
  tenorDays: number | null;
  /** What it cost (roll-costs.ts), once month end priced it; absent before. */
  cost?: EndCost;
}

/**
 * What a hedge that ended in the month cost, from its closed-hedge records of the month (fees, and carry signed as a
 * cost: positive is paid) and, for an end before its maturity (a close, a reduction that took it whole), the exit's
 * price impact as the service quotes it for that size when month end runs (a settlement at maturity is at mid: 0).
 */
export interface EndCost {
  /** The size that ended (its ending record's). */
  sizeUsd: number;
  feesUsd: number;
  carryUsd: number;
  /** Positive: a cost. Null when the quote could not be had. */
  exitImpactUsd: number | null;
  /** fees + carry + exit impact; null when the exit impact is not known. */
  costUsd: number | null;
}

/**
 * A market side's program in the month beside what =HEDGE.ROLLCOST quotes for it (roll-costs.ts): the hedges that ended
 * in the month, the stretch they covered, and their cost against ROLLCOST's for that side, notional, stretch, tenor and
 * roll mode, from quotes asked when month end runs.
 */
export interface ProgramCost {
  market: string;
  side: string;
  /** Hedges of the side that ended in the month. */
  hedges: number;
  /** From the first one's cover to the last one's end (epoch ms), in whole days (at least 1). */
  fromMs: number;
  toMs: number;
  days: number;
  /** The first one's size. */
  notionalUsd: number;
  /** The longest tenor among them (7 when none is known). */
  tenor: number;
  /** `early` when one of them was closed before its maturity and its side rolled at once; else `at maturity`. */
  mode: "at maturity" | "early";
  /** Σ of their costs (fees + carry + exit impact); null when an exit impact is not known. */
  realizedUsd: number | null;
  /** ROLLCOST's fees + carry + exit impact for that program (its entry impact left out, as in the realized); null without quotes. */
  quotedUsd: number | null;
  /** How many hedges ROLLCOST counts for it. */
  quotedHedges: number;
}

export interface Reconciliation {
  environment: Environment;
  accountAddress: string | null;
  window: MonthWindow;
  generatedAtMs: number;
  /** Null when the whole history was read; otherwise the warning to show first (the sheet's header, the pane). */
  historyIncomplete: string | null;
  /** Closed in the month, newest first. */
  realized: RealizedLine[];
  /** buy, sell, then all. */
  realizedTotals: Totals[];
  open: OpenLine[];
  openTotals: OpenTotals;
  differences: Difference[];
  /** Each hedge that ended in the month, with the roll that followed it or the unhedged time (side-time.ts), and its cost once priced. */
  sideTime: SideEvent[];
  /** Each market side's program cost beside ROLLCOST's (roll-costs.ts); empty before month end priced the rolls. */
  programs: ProgramCost[];
  /** The Hedge Log's hash chain as month end found it; null when it was not checked. */
  chain: ChainReport | null;
  /** The Hedge Log's cells against the service; null when they were not checked. */
  service: ServiceReport | null;
  /** The log's control rows logged in the period (control-lines.ts): changes of a control, not trades. */
  controls: ControlLine[];
  counts: {
    realized: number;
    open: number;
    /** Log rows of this environment looked at (logged in the month, or still pending). */
    logRows: number;
    /** Log rows of another environment or account, left out. */
    otherEnvironmentLogRows: number;
    /** Service hedges in the month (open at some time in it). */
    serviceHedges: number;
    differences: number;
    pending: number;
    /** Hedge ends followed by the next hedge on their side inside the month. */
    rolls: number;
    /** Hedge ends not followed by an opening on their side inside the month. */
    unhedged: number;
    /** Findings of the chain check that say a row was changed (not the rows before the chain). */
    chainFindings: number;
    /** Findings of the check against the service (a cell that differs, a row logged after the service acted, rows cut off). */
    serviceFindings: number;
    /** Control rows logged in the period. */
    controls: number;
    /** Of those, the ones flagged (LIVE approval unticked). */
    controlFlags: number;
  };
  /** Things the reader must know (e.g. positions are as of generation, not month end). */
  notes: string[];
}

/** Differences below a cent are rounding, not differences. */
export const CENT = 0.005;
/** Log rows not final yet; `needs_decision` waits for the user's word in the Hedge pane. */
export const PENDING = new Set(["submitting", "submitted", "needs_decision"]);
export const EFFECTIVE = new Set(["filled", "closed"]);
/** `not_sent`: the user said the row was not done. */
export const NEVER_HAPPENED = new Set(["failed", "rejected", "not_sent"]);
export const OPEN_SERVICE = new Set(["submitting", "submitted", "filled"]);
/** Hedges that never held anything, so no closed-hedge record is theirs. */
export const NEVER_OPEN_SERVICE = new Set(["failed", "submitting", "submitted"]);
/** A record's opened_at and its hedge's opened_at (or filled_at) at most this far apart are the same opening. */
export const SAME_OPENING_MS = 1_000;

export interface ServiceHedge {
  id: string;
  clientReference: string | null;
  market: string;
  side: string;
  status: string;
  notional: number | null;
  openedAtMs: number | null;
  /** When its open filled (the hedge covers from then), when the service says. */
  filledAtMs?: number | null;
  /** Its tenor (1, 3 or 7 days), when the service's list gives it (a hedge known from its records only: absent). */
  tenorDays?: number | null;
  /** When the hedge closed (its last non-decrease record), when known. */
  closedAtMs: number | null;
  exitType: string | null;
  /** Only known through history records (not in the hedge list). */
  fromHistoryOnly: boolean;
}

export const ms = (iso: string | null | undefined): number | null => {
  const t = utcMs(iso); // NaN for a missing or empty time too
  return Number.isFinite(t) ? t : null;
};

export const usd = (n: number): string => n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
