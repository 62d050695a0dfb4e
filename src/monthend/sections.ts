// The recon's two sections of figures: records closed in the month with exact totals per side, and open positions with their open hedge.
import type { ClosedHedge, Position } from "../api/schemas";
import type { ServiceBook } from "./attribute-records";
import { exactSum } from "./exact-sum";
import { inWindow, type MonthWindow } from "./month";
import { OPEN_SERVICE, ms, type OpenLine, type OpenTotals, type RealizedLine, type Totals } from "./recon-model";

/** Every record closed in the month, newest first, with its hedge and client reference. */
export function realizedLines(history: readonly ClosedHedge[], month: MonthWindow, book: ServiceBook): RealizedLine[] {
  return history
    .filter((r) => inWindow(r.closed_at, month))
    .sort((a, b) => (ms(b.closed_at) ?? 0) - (ms(a.closed_at) ?? 0))
    .map((record) => {
      const hedgeId = book.hedgeOfRecord.get(record) ?? null;
      return {
        record,
        hedgeId,
        clientReference: record.client_reference ?? (hedgeId ? (book.hedges.get(hedgeId)?.clientReference ?? null) : null),
      };
    });
}

/** Totals of the realized lines: buy, sell, then all (exact decimal sums). */
export function realizedTotals(realized: readonly RealizedLine[]): Totals[] {
  return (["buy", "sell", "all"] as const).map((label) =>
    totalsOf(
      label,
      realized.filter((l) => label === "all" || l.record.side === label),
    ),
  );
}

function totalsOf(label: string, lines: readonly RealizedLine[]): Totals {
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

/** Open positions (as of generation), each with the open hedge of its market and side. */
export function openLines(positions: readonly Position[], book: ServiceBook): OpenLine[] {
  return positions.map((position) => {
    const h = [...book.hedges.values()].find((x) => x.market === position.market && x.side === position.side && OPEN_SERVICE.has(x.status));
    return {
      position,
      hedgeId: h?.id ?? null,
      clientReference: h?.clientReference ?? null,
      openedAt: h?.openedAtMs != null ? new Date(h.openedAtMs).toISOString() : null,
    };
  });
}

export function openTotals(open: readonly OpenLine[]): OpenTotals {
  return {
    count: open.length,
    sizeUsd: exactSum(open.map((l) => l.position.size_usd)),
    grossPnlUsd: exactSum(open.map((l) => l.position.gross_pnl_usd)),
    accruedCarryUsd: exactSum(open.map((l) => l.position.accrued_carry_usd)),
    netPnlUsd: exactSum(open.map((l) => l.position.net_pnl_usd)),
  };
}
