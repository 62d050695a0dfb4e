// View model of the overview's maturities: every open hedge's maturity (time left, notional) with its plan (mode, next tenor, this roll's cost), and the sides left flat since a maturity that the last proposal wanted hedged.
import type { Position, QuoteRequest, Side } from "../api/schemas";
import { utcMinute, utcMs } from "../api/time";
import { quoteKey, type QuoteCosts } from "../policy/rollcost";
import { formatUsd } from "./format";
import { planFor, type MaturityPlan, type PlanInputs } from "./maturity-plan";

export interface MaturityItem {
  market: string;
  side: string;
  kind: "maturing" | "unhedged";
  /** One line for the list: "USDTNGN buy 600,000 USD matures in 5 h 12 min (2026-11-30 17:00 UTC)". */
  text: string;
  /** Epoch ms: the maturity (maturing) or the maturity since which the side is flat (unhedged). */
  atMs: number;
  /** A maturing hedge's plan once a proposal has read the policy (null before; unhedged sides have none). */
  plan: MaturityPlan | null;
  /** The plan in one line: "Plan: roll at maturity into 7 days · this roll costs 1,234.56 USD". */
  planText: string | null;
}

/** What a proposal said about a side: a row's target, or, without a row, whether it was held (the rule left it at target). */
interface ProposedSide {
  market: string;
  side: string;
  targetUsd: number;
}

const key = (market: string, side: string) => `${market}|${side}`;
/** The market sides holding a hedge now. */
const heldSides = (positions: readonly Position[]) => new Set(positions.filter((p) => p.size_usd > 0).map((p) => key(p.market, p.side)));

function timeLeft(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  if (minutes <= 24 * 60) return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
  return `${Math.floor(minutes / 1440)} d ${String(Math.floor((minutes % 1440) / 60)).padStart(2, "0")} h`;
}

/** The plan in words: the mode, the next tenor, this roll's cost (or why there is none). */
export function planText(plan: MaturityPlan | null): string {
  if (!plan) return "Plan: Propose once to read your policy (its Roll, Tenor and Working days).";
  if (plan.nextTenor === null) return `Plan: settles at maturity; nothing follows (the exposure is paid by then).`;
  const how = plan.mode === "early" ? "roll early (Close, then Open, inside Roll within)" : "roll at maturity";
  const cost = plan.costUsd === null ? "this roll's cost: pricing…" : `this roll costs ${formatUsd(plan.costUsd)}`;
  return `Plan: ${how} into ${plan.nextTenor} ${plan.nextTenor === 1 ? "day" : "days"} · ${cost}`;
}

function hhmm(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

/**
 * Remembers, for the pane's session, each side's last maturity seen in the positions and what the last proposal wanted;
 * from them and the positions now, the list the overview shows. Pure apart from that memory: no request of its own
 * (it is fed the positions the overview polls, and the proposals Propose makes).
 */
export class MaturityWatch {
  private readonly maturities = new Map<string, number>();
  private wanted = new Map<string, boolean>();
  /** The policy and exposures of the last whole proposal (a one-side proposal reads the same ones). */
  private inputs: PlanInputs | null = null;

  /** Each side's maturity as the service lists it now. */
  observePositions(positions: readonly Position[]): void {
    for (const p of positions) {
      const t = utcMs(p.maturity_at);
      if (Number.isFinite(t)) this.maturities.set(key(p.market, p.side), t);
    }
  }

  /**
   * The last proposal replaces the one before: a side with a row is wanted hedged when its target is above 0; a side
   * held then without a row was at its target, so it is wanted hedged too.
   */
  observeProposal(
    rows: readonly ProposedSide[],
    positions: readonly Position[],
    only?: { market: string; side: string },
    inputs?: PlanInputs,
  ): void {
    this.observePositions(positions);
    if (inputs) this.inputs = inputs;
    if (only) {
      // A proposal of one side (Propose beside it) says nothing of the others: only that side's wish changes.
      const k = key(only.market, only.side);
      const row = rows.find((r) => key(r.market, r.side) === k);
      this.wanted.set(k, row ? row.targetUsd > 0 : positions.some((p) => key(p.market, p.side) === k && p.size_usd > 0));
      return;
    }
    const wanted = new Map<string, boolean>();
    for (const p of positions) if (p.size_usd > 0) wanted.set(key(p.market, p.side), true);
    for (const r of rows) wanted.set(key(r.market, r.side), r.targetUsd > 0);
    this.wanted = wanted;
  }

  /** The quotes the plans of `positions` need (each once), for the overview to ask. */
  questions(positions: readonly Position[]): QuoteRequest[] {
    const all = new Map<string, QuoteRequest>();
    this.observePositions(positions);
    for (const item of this.list(positions, heldSides(positions), 0, () => null))
      for (const q of item.plan?.questions ?? []) all.set(quoteKey(q), q);
    return [...all.values()];
  }

  /**
   * Flat sides first (the oldest first), then every open hedge's maturity, the soonest first, each with its plan (from
   * the last proposal's policy and exposures; its cost from `quoteOf`, the quotes the overview asked).
   */
  items(positions: readonly Position[], nowMs: number, quoteOf: (q: QuoteRequest) => QuoteCosts | null = () => null): MaturityItem[] {
    this.observePositions(positions);
    // A side seen flat before its maturity was closed before it (by hand, or a roll's Close): it was not left flat by
    // that maturity, so it is forgotten, never listed as unhedged since it, even once the time has passed.
    const held = heldSides(positions);
    for (const [k, atMs] of this.maturities) if (!held.has(k) && atMs > nowMs) this.maturities.delete(k);
    return this.list(positions, held, nowMs, quoteOf);
  }

  /** The list for `positions` (holding the sides `held`) at `nowMs` from what is remembered, remembering nothing more. */
  private list(
    positions: readonly Position[],
    held: ReadonlySet<string>,
    nowMs: number,
    quoteOf: (q: QuoteRequest) => QuoteCosts | null,
  ): MaturityItem[] {
    const unhedged: MaturityItem[] = [];
    for (const [k, atMs] of this.maturities) {
      if (held.has(k) || !this.wanted.get(k) || atMs > nowMs) continue;
      const [market, side] = k.split("|");
      const since = new Date(atMs).toISOString().slice(0, 10) === new Date(nowMs).toISOString().slice(0, 10) ? hhmm(atMs) : utcMinute(atMs);
      unhedged.push({
        market,
        side,
        kind: "unhedged",
        atMs,
        text: `${market} ${side} unhedged since ${since}`,
        plan: null,
        planText: null,
      });
    }
    const maturing: MaturityItem[] = [];
    for (const p of positions) {
      const atMs = utcMs(p.maturity_at);
      if (!(p.size_usd > 0) || !Number.isFinite(atMs)) continue;
      const left = atMs <= nowMs ? "matured, settling" : `matures in ${timeLeft(atMs - nowMs)}`;
      const plan = this.inputs ? planFor(p.market, p.side as Side, p.size_usd, atMs, this.inputs, quoteOf) : null;
      maturing.push({
        market: p.market,
        side: p.side,
        kind: "maturing",
        atMs,
        text: `${p.market} ${p.side} ${formatUsd(p.size_usd)} ${left} (${utcMinute(atMs)})`,
        plan,
        planText: planText(plan),
      });
    }
    return [...unhedged.sort((a, b) => a.atMs - b.atMs), ...maturing.sort((a, b) => a.atMs - b.atMs)];
  }
}
