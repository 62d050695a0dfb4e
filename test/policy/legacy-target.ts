// The hedge-to-target rule as it was before dated exposures and rolls (src/policy/target.ts at d67aaa2, frozen): the oracle that proves the extended rule gives exactly its rows without value dates and without a maturity inside the window.
import type { Side, Tenor } from "../../src/api/schemas";
import type { Action } from "../../src/trading/types";
import { type Exposure, type Holding, type PolicyRow, TargetInputError } from "../../src/policy/inputs";

/** One proposed row. Amounts are USD to the cent. */
export interface ProposalRow {
  action: Action;
  market: string;
  side: Side;
  /** Null for a Close (the whole position). */
  amountUsd: number | null;
  /** Opens only. */
  tenor: Tenor | null;
  clientReference: string;
  currentUsd: number;
  targetUsd: number;
  reason: string;
}

/** The spill's header row (the pane reads it back as trade rows: Action, Market, Side, Amount (USD), Tenor (days), Client reference). */
export const PROPOSAL_HEADERS = [
  "Action",
  "Market",
  "Side",
  "Amount (USD)",
  "Tenor (days)",
  "Client reference",
  "Current (USD)",
  "Target (USD)",
  "Reason",
] as const;

const ACTION_WORDS: Record<Action, string> = { open: "Open", add: "Add", reduce: "Reduce", close: "Close" };
const SIDES: readonly Side[] = ["buy", "sell"];
const cents = (usd: number) => Math.round(Number((usd * 100).toPrecision(15)));
const usd = (c: number) => c / 100;
/** One formatter for every figure (toLocaleString builds one per call, which a 50-market proposal would feel). */
const USD_FORMAT = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const shownUsd = (c: number) => USD_FORMAT.format(usd(c));
const pct = (ratio: number) => `${Number((ratio * 100).toPrecision(12))}%`;

/** The policy row of a market: its own, else the "*" default; a market with neither is named. */
export function policyFor(policies: readonly PolicyRow[], market: string): PolicyRow {
  const found = policies.find((p) => p.market === market) ?? policies.find((p) => p.market === "*");
  if (!found)
    throw new TargetInputError(
      `policy: no row for market ${market} and no * row: add a policy row for ${market}, or a row with Market * for every other market.`,
    );
  return found;
}

/**
 * round(ratio × exposure) to the nearest multiple of `step`, half away from zero, in cents. The product is cleaned of
 * binary noise first (0.75 × 2,500 / 1,000 is 1.875, not 1.8749999…).
 */
export function roundTarget(ratio: number, exposureCents: number, stepUsd: number): number {
  const steps = Number(((ratio * exposureCents) / cents(stepUsd)).toPrecision(12));
  const n = Math.sign(steps) * Math.round(Math.abs(steps));
  return n * cents(stepUsd);
}

/** Each side's target in cents and the sentence saying where it came from. */
function targets(policy: PolicyRow, buy: number, sell: number): Record<Side, { cents: number; why: string }> {
  const round = `rounded to ${shownUsd(cents(policy.roundToUsd))}`;
  if (!policy.netSides) {
    const one = (side: Side, exposure: number) => ({
      cents: roundTarget(policy.ratio, exposure, policy.roundToUsd),
      why: `${pct(policy.ratio)} of ${side} exposure ${shownUsd(exposure)}, ${round}`,
    });
    return { buy: one("buy", buy), sell: one("sell", sell) };
  }
  const net = buy - sell;
  const side: Side = net >= 0 ? "buy" : "sell";
  const other: Side = side === "buy" ? "sell" : "buy";
  const amount = roundTarget(policy.ratio, Math.abs(net), policy.roundToUsd);
  const described = `net exposure ${shownUsd(buy)} buy − ${shownUsd(sell)} sell = ${net < 0 ? "−" : ""}${shownUsd(Math.abs(net))}`;
  return {
    [side]: { cents: amount, why: `${pct(policy.ratio)} of ${described}, ${round}` },
    [other]: { cents: 0, why: `${described}: nothing to hedge on the ${other} side` },
  } as Record<Side, { cents: number; why: string }>;
}

/** The rows one market side needs (a split's rows in order), before sorting. */
function sideRows(market: string, side: Side, policy: PolicyRow, target: number, current: number, why: string, day: string): ProposalRow[] {
  const diff = target - current;
  const min = cents(policy.minTradeUsd);
  const base = { market, side, currentUsd: usd(current), targetUsd: usd(target) };
  const reference = (n: number) => `TARGET-${day}-${market}-${side.toUpperCase()}-${n}`;
  const figures = `target ${shownUsd(target)} (${why}); open ${shownUsd(current)}`;
  if (diff === 0 || Math.abs(diff) < min) {
    if (!(target === 0 && current > 0)) return [];
    return [{ ...base, action: "close", amountUsd: null, tenor: null, clientReference: reference(1), reason: `Close: ${figures}.` }];
  }
  if (target === 0)
    return [{ ...base, action: "close", amountUsd: null, tenor: null, clientReference: reference(1), reason: `Close: ${figures}.` }];
  const first: Action = current === 0 ? "open" : diff > 0 ? "add" : "reduce";
  const rest: Action = first === "open" ? "add" : first;
  const total = Math.abs(diff);
  const max = policy.maxTradeUsd === null ? total : cents(policy.maxTradeUsd);
  const pieces: number[] = [];
  for (let left = total; left > 0; left -= Math.min(max, left)) pieces.push(Math.min(max, left));
  const split = pieces.length > 1 ? ` (part {n} of ${pieces.length}, at most ${shownUsd(max)} a row)` : "";
  return pieces.map((amount, i) => {
    const action = i === 0 ? first : rest;
    return {
      ...base,
      action,
      amountUsd: usd(amount),
      tenor: action === "open" ? policy.tenor : null,
      clientReference: reference(i + 1),
      reason: `${ACTION_WORDS[action]} ${shownUsd(amount)}: ${figures}; difference ${diff < 0 ? "−" : ""}${shownUsd(total)}${split.replace("{n}", String(i + 1))}.`,
    };
  });
}

export interface ProposeInput {
  exposures: readonly Exposure[];
  policy: readonly PolicyRow[];
  holdings: readonly Holding[];
  /** The UTC day the client references carry ("2026-11-25"). */
  day: string;
}

/**
 * The proposal. Markets in scope: those of the exposures and those with their own policy row (a market the policy names
 * with no exposure left gets a target of 0). Open hedges of other markets are left alone.
 */
export function propose({ exposures, policy, holdings, day }: ProposeInput): ProposalRow[] {
  const sums = new Map<string, Record<Side, number>>();
  const add = (m: Map<string, Record<Side, number>>, market: string, side: Side, amount: number) => {
    const entry = m.get(market) ?? { buy: 0, sell: 0 };
    entry[side] += Math.round(amount * 100); // already to the cent (the readers round): only binary noise to drop
    m.set(market, entry);
  };
  for (const e of exposures) add(sums, e.market, e.side, e.amountUsd);
  for (const p of policy) if (p.market !== "*" && !sums.has(p.market)) sums.set(p.market, { buy: 0, sell: 0 });
  const open = new Map<string, Record<Side, number>>();
  for (const h of holdings) add(open, h.market, h.side, h.sizeUsd);

  const rows: Array<{ row: ProposalRow; group: number; seq: number }> = [];
  for (const [market, exposure] of sums) {
    const p = policyFor(policy, market);
    const t = targets(p, exposure.buy, exposure.sell);
    for (const side of SIDES) {
      const current = open.get(market)?.[side] ?? 0;
      for (const row of sideRows(market, side, p, t[side].cents, current, t[side].why, day)) {
        const group = row.action === "close" || row.action === "reduce" ? 0 : 1;
        rows.push({ row, group, seq: rows.length });
      }
    }
  }
  const byMarket = (a: ProposalRow, b: ProposalRow) => (a.market < b.market ? -1 : a.market > b.market ? 1 : 0);
  const bySide = (a: ProposalRow, b: ProposalRow) => SIDES.indexOf(a.side) - SIDES.indexOf(b.side);
  rows.sort((a, b) => a.group - b.group || byMarket(a.row, b.row) || bySide(a.row, b.row) || a.seq - b.seq);
  return rows.map((r) => r.row);
}

/** The spill: the header row, then one row per proposed row (empty cells as ""). Nothing to do: the header row alone. */
export function proposalSpill(rows: readonly ProposalRow[]): Array<Array<string | number>> {
  return [
    [...PROPOSAL_HEADERS],
    ...rows.map((r) => [
      ACTION_WORDS[r.action],
      r.market,
      r.side,
      r.amountUsd ?? "",
      r.tenor ?? "",
      r.clientReference,
      r.currentUsd,
      r.targetUsd,
      r.reason,
    ]),
  ];
}

/** The UTC day of an instant, as client references carry it. */
export const utcDay = (now: Date) => now.toISOString().slice(0, 10);
