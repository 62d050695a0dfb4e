// Month-end reconciliation as a plain function: the service's history, positions and hedges against the Hedge Log rows, with every difference named.
import { sameAccount } from "../trading/duplicates";
import type { Environment } from "../api/environment";
import type { ClosedHedge, Hedge, Position } from "../api/schemas";
import type { LogRecord } from "../trading/hedge-log";
import { exactSum } from "./exact-sum";
import { inWindow, type MonthWindow } from "./month";

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
  /** Every Hedge Log row (any environment; rows of the other environment are left out here). */
  log: LogRecord[];
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
  };
  /** Things the reader must know (e.g. positions are as of generation, not month end). */
  notes: string[];
}

/** Differences below a cent are rounding, not differences. */
const CENT = 0.005;
/** Log rows not final yet; `needs_decision` waits for the user's word in the Hedge pane. */
const PENDING = new Set(["submitting", "submitted", "needs_decision"]);
const EFFECTIVE = new Set(["filled", "closed"]);
/** `not_sent`: the user said the row was not done. */
const NEVER_HAPPENED = new Set(["failed", "rejected", "not_sent"]);
const OPEN_SERVICE = new Set(["submitting", "submitted", "filled"]);
/** Hedges that never held anything, so no closed-hedge record is theirs. */
const NEVER_OPEN_SERVICE = new Set(["failed", "submitting", "submitted"]);
/** A record's opened_at and its hedge's opened_at (or filled_at) at most this far apart are the same opening. */
const SAME_OPENING_MS = 1_000;

interface ServiceHedge {
  id: string;
  clientReference: string | null;
  market: string;
  side: string;
  status: string;
  notional: number | null;
  openedAtMs: number | null;
  /** When the hedge closed (its last non-decrease record), when known. */
  closedAtMs: number | null;
  exitType: string | null;
  /** Only known through history records (not in the hedge list). */
  fromHistoryOnly: boolean;
}

const ms = (iso: string | null | undefined): number | null => {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
};

const usd = (n: number): string => n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Reconciles one month. Pure: the same data gives the same sheet. */
export function reconcile(data: MonthData): Reconciliation {
  const { window } = data;
  const env = data.environment.toLowerCase();
  const envLog = data.log.filter((r) => String(r.environment).toLowerCase() === env && sameAccount(r.account, data.accountAddress));
  const otherEnvironmentLogRows = data.log.length - envLog.length;

  // ---- the service's hedges, by id and by client reference ----
  const hedges = new Map<string, ServiceHedge>();
  for (const h of data.hedges) {
    hedges.set(h.id, {
      id: h.id,
      clientReference: h.client_reference ?? null,
      market: h.market,
      side: h.side,
      status: String(h.status),
      notional: h.notional_usd,
      openedAtMs: ms(h.opened_at) ?? ms(h.filled_at),
      closedAtMs: null,
      exitType: null,
      fromHistoryOnly: false,
    });
  }
  const byReference = (ref: string | null | undefined, market?: string, side?: string): ServiceHedge[] =>
    ref
      ? [...hedges.values()].filter((h) => h.clientReference === ref && (!market || h.market === market) && (!side || h.side === side))
      : [];

  // The spec's Closed-hedge record names no hedge (only the sandbox adds hedge_id and client_reference). Without an id,
  // a record is tied to the listed hedge of its market and side opened at the same time: its client reference when it
  // has one narrows the choice; then the same instant, then (for a close or maturity) the same size, break ties.
  const openings = new Map<string, number[]>();
  for (const h of data.hedges)
    openings.set(
      h.id,
      [ms(h.opened_at), ms(h.filled_at)].filter((t): t is number => t !== null),
    );
  const hedgeOfUnnamedRecord = (record: ClosedHedge): string | null => {
    const ref = record.client_reference ?? null;
    const pool = ref
      ? byReference(ref, record.market, record.side)
      : [...hedges.values()].filter((h) => h.market === record.market && h.side === record.side);
    if (ref && pool.length === 1) return pool[0].id;
    const opened = ms(record.opened_at);
    if (opened === null) return null;
    const gap = (h: ServiceHedge) => Math.min(...(openings.get(h.id) ?? []).map((t) => Math.abs(t - opened)));
    let candidates = pool.filter((h) => !NEVER_OPEN_SERVICE.has(h.status) && gap(h) <= SAME_OPENING_MS);
    if (candidates.length > 1 && candidates.some((h) => gap(h) === 0)) candidates = candidates.filter((h) => gap(h) === 0);
    if (candidates.length > 1 && record.exit_type !== "decrease") {
      const sameSize = candidates.filter((h) => h.notional !== null && Math.abs(h.notional - record.size_usd) < CENT);
      if (sameSize.length > 0) candidates = sameSize;
    }
    return candidates.length === 1 ? candidates[0].id : null;
  };

  // History records name their hedge by id, or are tied to one as above; a hedge the list did not return is known from them.
  const hedgeOfRecord = new Map<ClosedHedge, string | null>();
  const lastRecordOf = new Map<ServiceHedge, { atMs: number; exitType: string }>();
  for (const record of data.history) {
    const id = record.hedge_id ?? hedgeOfUnnamedRecord(record);
    hedgeOfRecord.set(record, id);
    if (!id) continue;
    let h = hedges.get(id);
    if (!h) {
      h = {
        id,
        clientReference: record.client_reference ?? null,
        market: record.market,
        side: record.side,
        status: "closed",
        notional: null,
        openedAtMs: ms(record.opened_at),
        closedAtMs: null,
        exitType: null,
        fromHistoryOnly: true,
      };
      hedges.set(id, h);
    }
    const closed = ms(record.closed_at);
    if (closed === null) continue;
    if (record.exit_type !== "decrease") {
      if (h.closedAtMs === null || closed > h.closedAtMs) {
        h.closedAtMs = closed;
        h.exitType = String(record.exit_type);
      }
    } else {
      const last = lastRecordOf.get(h);
      if (!last || closed > last.atMs) lastRecordOf.set(h, { atMs: closed, exitType: String(record.exit_type) });
    }
  }
  // A reduction that takes the whole hedge closes it with a `decrease` record (the sandbox does so): for a hedge the
  // service lists as closed with no other closing record, its last decrease is its close.
  for (const [h, last] of lastRecordOf) {
    if (h.closedAtMs === null && h.status === "closed" && !h.fromHistoryOnly) {
      h.closedAtMs = last.atMs;
      h.exitType = last.exitType;
    }
  }

  // ---- realized: every record closed in the month, newest first ----
  const realized: RealizedLine[] = data.history
    .filter((r) => inWindow(r.closed_at, window))
    .sort((a, b) => (ms(b.closed_at) ?? 0) - (ms(a.closed_at) ?? 0))
    .map((record) => {
      const hedgeId = hedgeOfRecord.get(record) ?? null;
      return {
        record,
        hedgeId,
        clientReference: record.client_reference ?? (hedgeId ? (hedges.get(hedgeId)?.clientReference ?? null) : null),
      };
    });
  const realizedTotals = (["buy", "sell", "all"] as const).map((label) =>
    totalsOf(
      label,
      realized.filter((l) => label === "all" || l.record.side === label),
    ),
  );

  // ---- open positions (as of generation), with the open hedge of their market and side ----
  const open: OpenLine[] = data.positions.map((position) => {
    const h = [...hedges.values()].find((x) => x.market === position.market && x.side === position.side && OPEN_SERVICE.has(x.status));
    return {
      position,
      hedgeId: h?.id ?? null,
      clientReference: h?.clientReference ?? null,
      openedAt: h?.openedAtMs != null ? new Date(h.openedAtMs).toISOString() : null,
    };
  });
  const openTotals: OpenTotals = {
    count: open.length,
    sizeUsd: exactSum(open.map((l) => l.position.size_usd)),
    grossPnlUsd: exactSum(open.map((l) => l.position.gross_pnl_usd)),
    accruedCarryUsd: exactSum(open.map((l) => l.position.accrued_carry_usd)),
    netPnlUsd: exactSum(open.map((l) => l.position.net_pnl_usd)),
  };

  // ---- log rows → service hedges ----
  const attributed = new Map<LogRecord, ServiceHedge | null>();
  const liveAt = (market: string, side: string, at: number | null): ServiceHedge | null => {
    if (at === null) return null;
    const live = [...hedges.values()].filter(
      (h) =>
        h.market === market &&
        h.side === side &&
        h.openedAtMs !== null &&
        h.openedAtMs <= at &&
        (h.closedAtMs === null || h.closedAtMs >= at),
    );
    return live.length === 1 ? live[0] : null;
  };
  for (const row of envLog) {
    let h: ServiceHedge | null = null;
    if (row.hedgeId) h = hedges.get(row.hedgeId) ?? null;
    else {
      const candidates = byReference(row.clientReference, row.market, row.side);
      const loggedMs = ms(row.loggedAt);
      if (candidates.length === 1) h = candidates[0];
      else if (candidates.length > 1 && loggedMs !== null) {
        h = candidates.reduce((best, c) =>
          Math.abs((c.openedAtMs ?? 0) - loggedMs) < Math.abs((best.openedAtMs ?? 0) - loggedMs) ? c : best,
        );
      } else if (row.action !== "open") h = liveAt(row.market, row.side, loggedMs);
    }
    attributed.set(row, h);
  }

  const differences: Difference[] = [];
  const fromRow = (row: LogRecord, h: ServiceHedge | null) => ({
    hedgeId: row.hedgeId ?? h?.id ?? null,
    clientReference: row.clientReference ?? h?.clientReference ?? null,
    market: row.market || null,
    side: row.side || null,
    logIdempotencyKey: row.idempotencyKey,
    loggedAt: row.loggedAt || null,
    logAction: row.action || null,
  });
  const serviceState = (h: ServiceHedge): string => {
    if (h.status === "closed" && h.exitType) return `closed (${h.exitType})`;
    if (h.status === "filled" && h.notional !== null) return `filled, notional ${usd(h.notional)}`;
    return h.status;
  };

  // ---- per log row: unknown actions, pending actions, open statuses that disagree ----
  const inScope = (row: LogRecord): boolean => {
    const t = ms(row.loggedAt);
    if (PENDING.has(row.status)) return t === null || t < window.endMs;
    return t !== null && t >= window.startMs && t < window.endMs;
  };
  const scopedLog = envLog.filter(inScope);
  for (const row of scopedLog) {
    const h = attributed.get(row) ?? null;
    if (PENDING.has(row.status)) {
      differences.push({
        kind: "pending",
        ...fromRow(row, h),
        logSays: row.status,
        serviceSays: h ? serviceState(h) : row.hedgeId ? "not found" : "no hedge id yet",
        amount: null,
        detail:
          row.status === "needs_decision"
            ? `Waits for your decision: open the Hedge pane, Unfinished rows, and say whether it was done.`
            : h
              ? `The log has not caught up with the service: open the Hedge pane and press Resume so it records the outcome.`
              : `Not confirmed yet: open the Hedge pane and press Resume (the service is asked before anything is sent again).`,
      });
      continue;
    }
    if (NEVER_HAPPENED.has(row.status)) {
      if (h && row.action === "open" && (h.status === "filled" || h.status === "closed")) {
        differences.push({
          kind: "status_mismatch",
          ...fromRow(row, h),
          logSays: row.status,
          serviceSays: serviceState(h),
          amount: null,
          detail: `The log says this open ${row.status}, but the service holds the hedge: it is real money. Check the hedge and correct your records.`,
        });
      }
      continue;
    }
    if (!h) {
      differences.push({
        kind: "log_unknown_to_service",
        ...fromRow(row, h),
        logSays: row.status,
        serviceSays: row.hedgeId ? "hedge id not found" : "no matching hedge",
        amount: null,
        detail: row.hedgeId
          ? `The service does not know hedge ${row.hedgeId}: was this row copied from another workbook or environment?`
          : `No service hedge matches this row by hedge id, client reference, or market and side at that time.`,
      });
      continue;
    }
    if (
      row.action === "open" &&
      EFFECTIVE.has(row.status) &&
      (h.status === "failed" || h.status === "submitting" || h.status === "submitted")
    ) {
      differences.push({
        kind: "status_mismatch",
        ...fromRow(row, h),
        logSays: row.status,
        serviceSays: serviceState(h),
        amount: null,
        detail:
          h.status === "failed"
            ? `The log says filled but the service says the open failed: nothing is held.`
            : `The log is ahead of the service: check the hedge.`,
      });
    }
  }

  // ---- per service hedge in the month: no log row, notional or status that disagree ----
  const scopeHedges = [...hedges.values()].filter((h) => {
    if (h.openedAtMs !== null && h.openedAtMs >= window.endMs) return false;
    if (OPEN_SERVICE.has(h.status)) return true;
    if (h.closedAtMs !== null) return h.closedAtMs >= window.startMs;
    return h.openedAtMs !== null && h.openedAtMs >= window.startMs;
  });
  const rowsOf = new Map<string, LogRecord[]>();
  for (const [row, h] of attributed) if (h) rowsOf.set(h.id, [...(rowsOf.get(h.id) ?? []), row]);
  for (const h of scopeHedges) {
    const rows = (rowsOf.get(h.id) ?? []).sort((a, b) => (ms(a.loggedAt) ?? 0) - (ms(b.loggedAt) ?? 0));
    const base = {
      hedgeId: h.id,
      clientReference: h.clientReference,
      market: h.market,
      side: h.side,
      logIdempotencyKey: null,
      loggedAt: null,
      logAction: null,
    };
    if (rows.length === 0) {
      differences.push({
        ...base,
        kind: "service_not_in_log",
        logSays: "no row",
        serviceSays: serviceState(h),
        amount: h.notional,
        detail: `The service has this hedge but the Hedge Log does not: it was traded outside this workbook (another workbook, another tool), or its log rows were deleted.`,
      });
      continue;
    }
    if (rows.some((r) => PENDING.has(r.status))) continue; // flagged as pending above; states compare once the log has caught up
    if (h.status === "failed" || (h.fromHistoryOnly && h.closedAtMs === null)) continue;
    if (!rows.some((r) => EFFECTIVE.has(r.status))) {
      // Only failed or rejected rows: a failed open the service holds is flagged above, once.
      if (differences.some((d) => d.hedgeId === h.id)) continue;
      differences.push({
        ...base,
        kind: "service_not_in_log",
        logSays: "only failed or rejected rows",
        serviceSays: serviceState(h),
        amount: h.notional,
        detail: `The log records no action on this hedge that went through, yet the service holds it.`,
      });
      continue;
    }
    const log = logState(rows);
    const last = rows[rows.length - 1];
    const rowRef = { logIdempotencyKey: last.idempotencyKey, loggedAt: last.loggedAt || null, logAction: last.action || null };
    if (h.status === "filled") {
      if (log.closed) {
        differences.push({
          ...base,
          ...rowRef,
          kind: "status_mismatch",
          logSays: "closed",
          serviceSays: serviceState(h),
          amount: null,
          detail: `The log shows this hedge closed but the service still holds it open.`,
        });
      } else if (h.notional !== null && Math.abs(log.net - h.notional) >= CENT) {
        differences.push({
          ...base,
          ...rowRef,
          kind: "notional_mismatch",
          logSays: `net notional ${usd(log.net)}`,
          serviceSays: `notional ${usd(h.notional)}`,
          amount: exactSum([log.net, -h.notional]),
          detail: `Open, adds and reductions in the log do not add up to the service's notional.`,
        });
      }
    } else if (h.status === "closed" && !log.closed) {
      differences.push({
        ...base,
        ...rowRef,
        kind: "status_mismatch",
        logSays: `open, net notional ${usd(log.net)}`,
        serviceSays: serviceState(h),
        amount: null,
        detail:
          h.exitType === "maturity"
            ? `The hedge settled at maturity; no log row records it. Nothing is wrong with the money: note the settlement in your records.`
            : `The service closed this hedge but no filled close in the log records it.`,
      });
    }
  }

  // ---- realized records that name no hedge the service listed, and no log row by client reference ----
  const loggedRefs = new Set(envLog.map((r) => r.clientReference).filter((r): r is string => !!r));
  for (const line of realized) {
    if (line.hedgeId) continue;
    if (line.clientReference && loggedRefs.has(line.clientReference)) continue;
    const r = line.record;
    differences.push({
      kind: "service_not_in_log",
      hedgeId: null,
      clientReference: line.clientReference,
      market: r.market,
      side: r.side,
      logIdempotencyKey: null,
      loggedAt: null,
      logAction: null,
      logSays: "no row",
      serviceSays: `closed (${r.exit_type}) ${r.closed_at}`,
      amount: r.size_usd,
      detail: `A closed-hedge record with no hedge id and no client reference found in the log.`,
    });
  }

  const order: Record<DifferenceKind, number> = {
    log_unknown_to_service: 0,
    service_not_in_log: 1,
    notional_mismatch: 2,
    status_mismatch: 3,
    pending: 4,
  };
  differences.sort(
    (a, b) =>
      order[a.kind] - order[b.kind] ||
      (a.loggedAt ?? "").localeCompare(b.loggedAt ?? "") ||
      (a.hedgeId ?? "").localeCompare(b.hedgeId ?? ""),
  );

  const historyIncomplete = data.historyComplete
    ? null
    : `The hedge history was read only in part (${data.historyIncompleteReason ?? "it was cut short"}): ` +
      `the ${realized.length} records read are the newest ones, older records of the month are missing, so the realized section, its totals and the differences may be incomplete or wrong.`;
  const notes: string[] = [];
  if (data.generatedAtMs >= window.endMs) {
    notes.push(
      "Open positions, hedge states and notionals are as of the time generated: the service does not give them as of a past date.",
    );
  } else {
    notes.push("The month is not over: the realized section covers it up to the time generated.");
  }
  if (otherEnvironmentLogRows > 0) notes.push(`${otherEnvironmentLogRows} log rows of another environment or account were left out.`);

  return {
    environment: data.environment,
    accountAddress: data.accountAddress,
    window,
    generatedAtMs: data.generatedAtMs,
    historyIncomplete,
    realized,
    realizedTotals,
    open,
    openTotals,
    differences,
    counts: {
      realized: realized.length,
      open: open.length,
      logRows: scopedLog.length,
      otherEnvironmentLogRows,
      serviceHedges: scopeHedges.length,
      differences: differences.length,
      pending: differences.filter((d) => d.kind === "pending").length,
    },
    notes,
  };
}

function totalsOf(label: string, lines: RealizedLine[]): Totals {
  const sum = (pick: (r: ClosedHedge) => number) => exactSum(lines.map((l) => pick(l.record)));
  return {
    label,
    count: lines.length,
    sizeUsd: sum((r) => r.size_usd),
    grossPnlUsd: sum((r) => r.gross_pnl_usd),
    carryUsd: sum((r) => r.carry_usd),
    feesUsd: sum((r) => r.fees_usd),
    netPnlUsd: sum((r) => r.net_pnl_usd),
  };
}

/** What the effective (filled or closed) log rows of one hedge add up to: opens and adds grow it, reductions shrink it, a close (or a reduce logged `closed`) ends it. */
export function logState(rows: readonly LogRecord[]): { net: number; closed: boolean } {
  const amounts: number[] = [];
  let closed = false;
  for (const row of rows) {
    if (!EFFECTIVE.has(row.status)) continue;
    const n = row.notional ?? 0;
    if (row.action === "open" || row.action === "add") {
      if (closed) amounts.length = 0; // a new life of the position after a close
      closed = false;
      amounts.push(n);
    } else if (row.action === "reduce" && row.status !== "closed") amounts.push(-n);
    // A close, or a reduce the desk logged `closed` (it took what was left, under the service's close tolerance).
    else if (row.action === "close" || row.action === "reduce") {
      closed = true;
      amounts.length = 0;
    }
  }
  const net = exactSum(amounts);
  return { net: closed ? 0 : net, closed: closed || (amounts.length > 0 && Math.abs(net) < CENT) };
}
