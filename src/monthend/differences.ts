// Reconciliation phase 3: the differences between the Hedge Log and the service, per log row, per service hedge of the month, and per realized record no row explains.
import type { LogRecord } from "../trading/log/hedge-log";
import type { ServiceBook } from "./attribute-records";
import { exactSum } from "./exact-sum";
import type { MonthWindow } from "./month";
import {
  CENT,
  EFFECTIVE,
  NEVER_HAPPENED,
  OPEN_SERVICE,
  PENDING,
  ms,
  usd,
  type Difference,
  type DifferenceKind,
  type RealizedLine,
  type ServiceHedge,
} from "./recon-model";

export interface DifferenceInput {
  month: MonthWindow;
  book: ServiceBook;
  /** Rows of this environment and account, each with its hedge (phase 2). */
  attributed: ReadonlyMap<LogRecord, ServiceHedge | null>;
  realized: readonly RealizedLine[];
}

export interface DifferenceResult {
  /** Sorted: by kind, then logged at, then hedge id. */
  differences: Difference[];
  /** Log rows looked at: logged in the month, or still pending. */
  scopedLogRows: number;
  /** Service hedges in the month (open at some time in it). */
  serviceHedges: number;
}

const ORDER: Record<DifferenceKind, number> = {
  log_unknown_to_service: 0,
  service_not_in_log: 1,
  notional_mismatch: 2,
  status_mismatch: 3,
  pending: 4,
};

export function findDifferences(input: DifferenceInput): DifferenceResult {
  const { month } = input;
  const rows = [...input.attributed.keys()];
  const inScope = (row: LogRecord): boolean => {
    const t = ms(row.loggedAt);
    if (PENDING.has(row.status)) return t === null || t < month.endMs;
    return t !== null && t >= month.startMs && t < month.endMs;
  };
  const scoped = rows.filter(inScope);
  const differences = scoped.flatMap((row) => rowDifferences(row, input.attributed.get(row) ?? null));
  const scopeHedges = hedgesOfMonth(input.book, month);
  const byHedge = rowsByHedge(input.attributed);
  for (const h of scopeHedges) {
    const own = byHedge.get(h) ?? [];
    const found = hedgeDifference(h, own, differences);
    if (found) differences.push(found);
  }
  differences.push(...unexplainedRecords(input.realized, rows));
  differences.sort(
    (a, b) =>
      ORDER[a.kind] - ORDER[b.kind] ||
      (a.loggedAt ?? "").localeCompare(b.loggedAt ?? "") ||
      (a.hedgeId ?? "").localeCompare(b.hedgeId ?? ""),
  );
  return { differences, scopedLogRows: scoped.length, serviceHedges: scopeHedges.length };
}

const serviceState = (h: ServiceHedge): string => {
  if (h.status === "closed" && h.exitType) return `closed (${h.exitType})`;
  if (h.status === "filled" && h.notional !== null) return `filled, notional ${usd(h.notional)}`;
  return h.status;
};

const fromRow = (row: LogRecord, h: ServiceHedge | null) => ({
  hedgeId: row.hedgeId ?? h?.id ?? null,
  clientReference: row.clientReference ?? h?.clientReference ?? null,
  market: row.market || null,
  side: row.side || null,
  logIdempotencyKey: row.idempotencyKey,
  loggedAt: row.loggedAt || null,
  logAction: row.action || null,
});

/** One log row of the month: pending, unknown to the service, or an open whose status disagrees. */
function rowDifferences(row: LogRecord, h: ServiceHedge | null): Difference[] {
  if (PENDING.has(row.status)) {
    return [
      {
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
      },
    ];
  }
  if (NEVER_HAPPENED.has(row.status)) {
    if (h && row.action === "open" && (h.status === "filled" || h.status === "closed")) {
      return [
        {
          kind: "status_mismatch",
          ...fromRow(row, h),
          logSays: row.status,
          serviceSays: serviceState(h),
          amount: null,
          detail: `The log says this open ${row.status}, but the service holds the hedge: it is real money. Check the hedge and correct your records.`,
        },
      ];
    }
    return [];
  }
  if (!h) {
    return [
      {
        kind: "log_unknown_to_service",
        ...fromRow(row, h),
        logSays: row.status,
        serviceSays: row.hedgeId ? "hedge id not found" : "no matching hedge",
        amount: null,
        detail: row.hedgeId
          ? `The service does not know hedge ${row.hedgeId}: was this row copied from another workbook or environment?`
          : `No service hedge matches this row by hedge id, client reference, or market and side at that time.`,
      },
    ];
  }
  if (
    row.action === "open" &&
    EFFECTIVE.has(row.status) &&
    (h.status === "failed" || h.status === "submitting" || h.status === "submitted")
  ) {
    return [
      {
        kind: "status_mismatch",
        ...fromRow(row, h),
        logSays: row.status,
        serviceSays: serviceState(h),
        amount: null,
        detail:
          h.status === "failed"
            ? `The log says filled but the service says the open failed: nothing is held.`
            : `The log is ahead of the service: check the hedge.`,
      },
    ];
  }
  return [];
}

/** Service hedges open at some time in the month. */
function hedgesOfMonth(book: ServiceBook, month: MonthWindow): ServiceHedge[] {
  return [...book.hedges.values()].filter((h) => {
    if (h.openedAtMs !== null && h.openedAtMs >= month.endMs) return false;
    if (OPEN_SERVICE.has(h.status)) return true;
    if (h.closedAtMs !== null) return h.closedAtMs >= month.startMs;
    return h.openedAtMs !== null && h.openedAtMs >= month.startMs;
  });
}

/** The rows tied to each hedge, oldest first (grouped once: a month of 5,000 hedges and rows is not 25 million comparisons). */
function rowsByHedge(attributed: ReadonlyMap<LogRecord, ServiceHedge | null>): Map<ServiceHedge, LogRecord[]> {
  const out = new Map<ServiceHedge, LogRecord[]>();
  for (const [row, h] of attributed) {
    if (!h) continue;
    const own = out.get(h);
    if (own) own.push(row);
    else out.set(h, [row]);
  }
  for (const rows of out.values()) rows.sort((a, b) => (ms(a.loggedAt) ?? 0) - (ms(b.loggedAt) ?? 0));
  return out;
}

/** One service hedge of the month against its rows: no row, a notional or a status that disagrees. */
function hedgeDifference(h: ServiceHedge, rows: readonly LogRecord[], already: readonly Difference[]): Difference | null {
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
    // An open the service failed, made outside this log: it held nothing and moved no money, so there is nothing to reconcile.
    if (h.status === "failed") return null;
    return {
      ...base,
      kind: "service_not_in_log",
      logSays: "no row",
      serviceSays: serviceState(h),
      amount: h.notional,
      detail: `The service has this hedge but the Hedge Log does not: it was traded outside this workbook (another workbook, another tool), or its log rows were deleted.`,
    };
  }
  if (rows.some((r) => PENDING.has(r.status))) return null; // flagged as pending per row; states compare once the log has caught up
  if (h.status === "failed" || (h.fromHistoryOnly && h.closedAtMs === null)) return null;
  if (!rows.some((r) => EFFECTIVE.has(r.status))) {
    // Only failed or rejected rows: a failed open the service holds is flagged per row, once.
    if (already.some((d) => d.hedgeId === h.id)) return null;
    return {
      ...base,
      kind: "service_not_in_log",
      logSays: "only failed or rejected rows",
      serviceSays: serviceState(h),
      amount: h.notional,
      detail: `The log records no action on this hedge that went through, yet the service holds it.`,
    };
  }
  const log = logState(rows);
  const last = rows[rows.length - 1];
  const rowRef = { logIdempotencyKey: last.idempotencyKey, loggedAt: last.loggedAt || null, logAction: last.action || null };
  if (h.status === "filled") {
    if (log.closed) {
      return {
        ...base,
        ...rowRef,
        kind: "status_mismatch",
        logSays: "closed",
        serviceSays: serviceState(h),
        amount: null,
        detail: `The log shows this hedge closed but the service still holds it open.`,
      };
    }
    if (h.notional !== null && Math.abs(log.net - h.notional) >= CENT) {
      return {
        ...base,
        ...rowRef,
        kind: "notional_mismatch",
        logSays: `net notional ${usd(log.net)}`,
        serviceSays: `notional ${usd(h.notional)}`,
        amount: exactSum([log.net, -h.notional]),
        detail: `Open, adds and reductions in the log do not add up to the service's notional.`,
      };
    }
  } else if (h.status === "closed" && !log.closed) {
    if (h.exitType === "maturity") return maturityDifference(h, log.net, { ...base, ...rowRef });
    return {
      ...base,
      ...rowRef,
      kind: "status_mismatch",
      logSays: `open, net notional ${usd(log.net)}`,
      serviceSays: serviceState(h),
      amount: null,
      detail: `The service closed this hedge but no filled close in the log records it.`,
    };
  }
  return null;
}

/**
 * A hedge the service settled at maturity while the log shows it open: how a held hedge ends (no log row records a
 * settlement), so no difference, unless the log's net notional is not what settled.
 */
function maturityDifference(
  h: ServiceHedge,
  net: number,
  at: Pick<Difference, "hedgeId" | "clientReference" | "market" | "side" | "logIdempotencyKey" | "loggedAt" | "logAction">,
): Difference | null {
  if (h.notional === null || Math.abs(net - h.notional) < CENT) return null;
  return {
    ...at,
    kind: "notional_mismatch",
    logSays: `net notional ${usd(net)}`,
    serviceSays: `settled at maturity, notional ${usd(h.notional)}`,
    amount: exactSum([net, -h.notional]),
    detail: `The hedge settled at maturity, but open, adds and reductions in the log do not add up to what settled.`,
  };
}

/** Realized records that name no hedge the service listed, and whose client reference no log row has. */
function unexplainedRecords(realized: readonly RealizedLine[], rows: readonly LogRecord[]): Difference[] {
  const loggedRefs = new Set(rows.map((r) => r.clientReference));
  return realized
    .filter((line) => !line.hedgeId && !(line.clientReference && loggedRefs.has(line.clientReference)))
    .map((line) => {
      const r = line.record;
      return {
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
      };
    });
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
