// A roll in a preview (a Close, then an Open of the same market side in one batch, as the proposal's early roll reads): its price — the Close's exit impact from a quote, the fee pair, one cost to the cent — and the batch's notional with each roll counted once.
import type { Hedge, Quote, Tenor } from "../api/schemas";
import { laneOf } from "./fills";
import type { PreviewLine, PreviewRoll } from "./types";

/** Cents, exactly: the quotes' figures carry at most 6 decimals. */
const cents = (x: number) => Math.round(x * 100) / 100;

/** The Open of a Close's market side in the same lines, wherever it stands (the desk sends closes first), if any. */
const openOf = (close: PreviewLine, lines: readonly PreviewLine[]) =>
  lines.find((l) => l.row.action === "open" && laneOf(l.row) === laneOf(close.row));

/**
 * The rolls of a batch: each Close with the Open of its market side in the same batch (the Close frees the side for it;
 * the desk sends the Open once the Close is final). Blocked lines make no roll: it would not go.
 */
export function rollPairs(lines: readonly PreviewLine[]): Array<{ close: PreviewLine; open: PreviewLine }> {
  const pairs: Array<{ close: PreviewLine; open: PreviewLine }> = [];
  for (const close of lines) {
    if (close.row.action !== "close" || close.blockers.length > 0) continue;
    const open = openOf(close, lines);
    if (open && open.blockers.length === 0) pairs.push({ close, open });
  }
  return pairs;
}

/**
 * The question the Close's exit is priced by: a quote of the whole position (its size) at the closing hedge's tenor (the
 * Open's when the hedge is not listed): its `price_impact_usd` is what an immediate exit at mid pays, the exit's impact.
 */
export function exitQuestion(close: PreviewLine, hedges: ReadonlyMap<string, Hedge>, open: PreviewLine) {
  const tenor = (hedges.get(laneOf(close.row))?.tenor_days ?? open.row.tenor ?? 1) as Tenor;
  return { market: close.row.market, side: close.row.side, notional_usd: close.position?.size_usd ?? 0, tenor_days: tenor };
}

/**
 * A roll's figures once both its quotes are in (the Open's, and `exit` for the Close): the exit impact as a cost (the
 * quote's signed impact, negated), the Close's fee (the position's closing fee), the Open's fee (its quote's platform
 * fee: open and close, reserved at open), and the roll's cost, their sum. Null figures while a quote is missing.
 */
export function rollFigures(close: PreviewLine, open: PreviewLine, exit: Quote | null): PreviewRoll {
  const exitImpactUsd = exit ? cents(-exit.pricing.price_impact_usd) : null;
  const closeFeeUsd = close.position ? cents(close.position.closing_fee_usd) : null;
  const openFeeUsdc = open.quote ? cents(open.quote.upfront.platform_fee_usdc) : null;
  const parts = [exitImpactUsd, closeFeeUsd, openFeeUsdc];
  const costUsd = parts.every((p): p is number => p !== null) ? cents(parts.reduce((a, b) => a + b, 0)) : null;
  return {
    market: close.row.market,
    side: close.row.side,
    closeRow: close.row.rowNumber,
    openRow: open.row.rowNumber,
    exitImpactUsd,
    closeFeeUsd,
    openFeeUsdc,
    costUsd,
  };
}

/**
 * The notional a set of lines moves, each roll once: a Close whose side an Open in the same lines opens again is the
 * roll's old leg and adds nothing (the Open's amount, and its Adds, are the roll's notional). Other lines count their
 * amount, a Close its position's size.
 */
export function batchNotional(lines: readonly PreviewLine[]): number {
  let total = 0;
  for (const l of lines) {
    const rolled = l.row.action === "close" && openOf(l, lines) !== undefined;
    if (!rolled) total += l.row.notional ?? l.position?.size_usd ?? 0;
  }
  return total;
}
