// Month end's price of the rolls: each hedge end's cost (fees, carry, and an early end's exit impact from a quote) beside its gap, and each market side's program cost in the month beside what ROLLCOST quotes for it (policy/rollcost.ts, reused).
import type { QuoteRequest, Tenor } from "../api/schemas";
import { deskProgram, quoteKey, rollCost, type QuoteCosts } from "../policy/rollcost";
import { DAY_MS } from "../policy/tenor";
import { exactSum } from "./exact-sum";
import type { EndCost, ProgramCost, Reconciliation, SideEvent } from "./recon-model";

/** A tenor the service allows, from days (the longest allowed not above them; 7 above 7). */
function tenorOf(days: number | null): Tenor {
  if (days === null) return 7;
  return days >= 7 ? 7 : days >= 3 ? 3 : 1;
}

/** Whether a hedge ended before its maturity (a close, or a reduction that took it whole): its exit paid price impact. */
const endedEarly = (e: SideEvent) => e.endedBy !== "maturity";

/** The size that ended with each event: its hedge's ending record of the month (not a partial reduction). */
function endSizes(recon: Reconciliation): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of recon.realized) {
    if (!l.hedgeId) continue;
    if (l.record.exit_type !== "decrease" || !out.has(l.hedgeId)) out.set(l.hedgeId, l.record.size_usd);
  }
  return out;
}

/** The sides' events grouped, in the month's order (side-time.ts sorts them by market, side, then end). */
function bySide(events: readonly SideEvent[]): SideEvent[][] {
  const groups = new Map<string, SideEvent[]>();
  for (const e of events) groups.set(`${e.market}|${e.side}`, [...(groups.get(`${e.market}|${e.side}`) ?? []), e]);
  return [...groups.values()];
}

/**
 * A side's program in the month as ROLLCOST is asked about it: the first ended hedge's size for the stretch from its
 * cover to the last end (whole days, at least 1), at the longest tenor among them, early when one of them was closed
 * before its maturity and followed by a roll, else at maturity; Roll within 24 h (ROLLCOST's default: month end does not
 * know the policy).
 */
function programOf(events: readonly SideEvent[], sizes: ReadonlyMap<string, number>) {
  const first = events[0];
  const last = events[events.length - 1];
  const days = Math.max(1, Math.round((last.endedAtMs - first.coveredFromMs) / DAY_MS));
  const known = events.map((e) => e.tenorDays).filter((t): t is number => t !== null);
  const tenor = tenorOf(known.length ? Math.max(...known) : null);
  const mode = events.some((e) => endedEarly(e) && e.kind === "roll") ? ("early" as const) : ("at maturity" as const);
  return { first, last, days, tenor, mode, notional: sizes.get(first.hedgeId) ?? 0 };
}

/**
 * What month end asks the quote endpoint to price the rolls: each early end's exit (its size at its tenor), and each
 * side's program's hedges as ROLLCOST prices them (its notional at each tenor of the program). Each question once.
 */
export function costQuestions(recon: Reconciliation): QuoteRequest[] {
  const sizes = endSizes(recon);
  const out = new Map<string, QuoteRequest>();
  const ask = (q: QuoteRequest) => {
    if (q.notional_usd > 0) out.set(quoteKey(q), q);
  };
  for (const e of recon.sideTime.filter(endedEarly)) {
    ask({
      market: e.market,
      side: e.side as QuoteRequest["side"],
      notional_usd: sizes.get(e.hedgeId) ?? 0,
      tenor_days: tenorOf(e.tenorDays),
    });
  }
  for (const events of bySide(recon.sideTime)) {
    const p = programOf(events, sizes);
    for (const h of deskProgram(p.days, p.tenor, p.mode))
      ask({ market: p.first.market, side: p.first.side as QuoteRequest["side"], notional_usd: p.notional, tenor_days: h.tenor });
  }
  return [...out.values()];
}

/**
 * The rolls priced: each event with its cost (its hedge's records of the month: fees, carry as a cost; the exit impact
 * of an early end from `quoteOf`, 0 at maturity), and each side's program cost beside ROLLCOST's for it (fees + carry
 * + exit impact, entry impact left out on both sides: the service's history does not show it). `quoteOf` answers the
 * questions of costQuestions, or null when one could not be had (then the figures that need it are null). Pure.
 */
export function priceRolls(
  recon: Reconciliation,
  quoteOf: (q: QuoteRequest) => QuoteCosts | null,
): { sideTime: SideEvent[]; programs: ProgramCost[] } {
  const sizes = endSizes(recon);
  const records = new Map<string, { fees: number[]; carry: number[] }>();
  for (const l of recon.realized) {
    if (!l.hedgeId) continue;
    const r = records.get(l.hedgeId) ?? { fees: [], carry: [] };
    r.fees.push(l.record.fees_usd);
    r.carry.push(-l.record.carry_usd); // the record's carry is P&L (negative: paid); a cost is positive
    records.set(l.hedgeId, r);
  }
  const sideTime = recon.sideTime.map((e): SideEvent => {
    const r = records.get(e.hedgeId) ?? { fees: [], carry: [] };
    const sizeUsd = sizes.get(e.hedgeId) ?? 0;
    const side = e.side as QuoteRequest["side"];
    const exit = endedEarly(e) ? quoteOf({ market: e.market, side, notional_usd: sizeUsd, tenor_days: tenorOf(e.tenorDays) }) : null;
    const exitImpactUsd = endedEarly(e) ? (exit ? -exit.pricing.price_impact_usd : null) : 0;
    const feesUsd = exactSum(r.fees);
    const carryUsd = exactSum(r.carry);
    const cost: EndCost = {
      sizeUsd,
      feesUsd,
      carryUsd,
      exitImpactUsd,
      costUsd: exitImpactUsd === null ? null : exactSum([feesUsd, carryUsd, exitImpactUsd]),
    };
    return { ...e, cost };
  });
  const programs = bySide(sideTime).map((events): ProgramCost => {
    const p = programOf(events, sizes);
    const costs = events.map((e) => e.cost?.costUsd ?? null);
    const side = p.first.side as QuoteRequest["side"];
    const program = deskProgram(p.days, p.tenor, p.mode);
    let quotedUsd: number | null = null;
    if (p.notional > 0) {
      const missing: Tenor[] = [];
      const quoted = rollCost(p.notional, p.days, program, (tenor, usd) => {
        const q = quoteOf({ market: p.first.market, side, notional_usd: usd, tenor_days: tenor });
        if (q) return q;
        missing.push(tenor);
        return { upfront: { platform_fee_usdc: 0 }, carry: { total_usdc: 0 }, pricing: { price_impact_usd: 0 } };
      });
      if (missing.length === 0) quotedUsd = exactSum([quoted.feesUsdc, quoted.carryUsdc, -quoted.exitImpactUsd]);
    }
    return {
      market: p.first.market,
      side: p.first.side,
      hedges: events.length,
      fromMs: p.first.coveredFromMs,
      toMs: p.last.endedAtMs,
      days: p.days,
      notionalUsd: p.notional,
      tenor: p.tenor,
      mode: p.mode,
      realizedUsd: costs.every((c): c is number => c !== null) ? exactSum(costs) : null,
      quotedUsd,
      quotedHedges: program.length,
    };
  });
  return { sideTime, programs };
}
