// The hedge-to-target rule: from exposures (dated or not), a policy, the open hedges and the sides settled at maturity at an instant, the Open, Add, Reduce, Close and roll rows (at maturity or early) that meet the policy, in trading order, and their spill.
import type { Side, Tenor } from "../api/schemas";
import { utcMinute, utcMs } from "../api/time";
import { PROPOSAL_HEADERS } from "../trading/rows";
import { rollReference } from "../trading/rolls";
import type { Action } from "../trading/types";
import { type Exposure, type Holding, type Matured, type PolicyRow, TargetInputError } from "./inputs";
import { splitCents } from "./split";
import { DAY_MS, EVERY_DAY, HOUR_MS, opensInsideWindow, rollDue, tenorFor } from "./tenor";

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

const ACTION_WORDS: Record<Action, string> = { open: "Open", add: "Add", reduce: "Reduce", close: "Close" };
const SIDES: readonly Side[] = ["buy", "sell"];
const cents = (usd: number) => Math.round(Number((usd * 100).toPrecision(15)));
const usd = (c: number) => c / 100;
/**
 * One formatter for every figure (toLocaleString builds one per call, which a 50-market proposal would feel), made on
 * first use: this module loads with the functions' engine, and a page's first formatter starts the browser's number
 * formatting (tens of ms the first cell values would wait for).
 */
let usdFormat: Intl.NumberFormat | undefined;
const shownUsd = (c: number) =>
  (usdFormat ??= new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })).format(usd(c));
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

/** "1 day", "3 days". */
const days = (n: number) => `${n} day${n === 1 ? "" : "s"}`;

/** What one market side is given: its policy, target and open hedge, the tenor its Opens take and why. */
interface SideCase {
  market: string;
  side: Side;
  policy: PolicyRow;
  target: number;
  current: number;
  why: string;
  day: string;
  tenor: Tenor;
  /** Said after an Open's figures when the tenor is shorter than the policy's ("" when it is not). */
  tenorNote: string;
}

/** Max trade's pieces of `total` cents: the full rows first, the remainder last. */
function pieces(policy: PolicyRow, total: number): { max: number; amounts: number[] } {
  const max = policy.maxTradeUsd === null ? total : cents(policy.maxTradeUsd);
  return { max, amounts: splitCents(total, max) };
}

/** " (part 2 of 3, at most 300,000.00 a row)", or "" when the change is one row. */
const partOf = (i: number, split: { max: number; amounts: number[] }) =>
  split.amounts.length > 1 ? ` (part ${i + 1} of ${split.amounts.length}, at most ${shownUsd(split.max)} a row)` : "";

/**
 * A roll of a side maturing inside the window: a Close of the side, then an Open of its target (Max trade's Adds after
 * it), whatever the difference. Both show the side's Current before the roll; references ROLL-<day>-<MARKET>-<SIDE>-<n>,
 * n = 0 for the Close, 1 for the Open, 2, 3, … for its Adds.
 */
function rollRows(c: SideCase, maturityMs: number): ProposalRow[] {
  const base = { market: c.market, side: c.side, currentUsd: usd(c.current), targetUsd: usd(c.target) };
  const reference = (n: number) => `ROLL-${c.day}-${c.market}-${c.side.toUpperCase()}-${n}`;
  const roll = `Roll: matures ${utcMinute(maturityMs)}`;
  const figures = `target ${shownUsd(c.target)} (${c.why}); open ${shownUsd(c.current)}`;
  const close: ProposalRow = {
    ...base,
    action: "close",
    amountUsd: null,
    tenor: null,
    clientReference: reference(0),
    reason: `${roll}. Close, then open the target again: ${figures}.`,
  };
  const split = pieces(c.policy, c.target);
  return [
    close,
    ...split.amounts.map((amount, i): ProposalRow => {
      const action: Action = i === 0 ? "open" : "add";
      const what = i === 0 ? `Open ${shownUsd(amount)} for ${days(c.tenor)} once the Close is final` : `Add ${shownUsd(amount)}`;
      return {
        ...base,
        action,
        amountUsd: usd(amount),
        tenor: i === 0 ? c.tenor : null,
        clientReference: reference(i + 1),
        reason: `${roll}. ${what}: ${figures}${i === 0 ? c.tenorNote : ""}${partOf(i, split)}.`,
      };
    }),
  ];
}

/** The rows one market side needs (a split's rows in order), before sorting. */
function sideRows({ market, side, policy, target, current, why, day, tenor, tenorNote }: SideCase): ProposalRow[] {
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
  const split = pieces(policy, total);
  return split.amounts.map((amount, i) => {
    const action = i === 0 ? first : rest;
    const open = action === "open";
    return {
      ...base,
      action,
      amountUsd: usd(amount),
      tenor: open ? tenor : null,
      clientReference: reference(i + 1),
      reason: `${ACTION_WORDS[action]} ${shownUsd(amount)}: ${figures}; difference ${diff < 0 ? "−" : ""}${shownUsd(total)}${open ? tenorNote : ""}${partOf(i, split)}.`,
    };
  });
}

export interface ProposeInput {
  exposures: readonly Exposure[];
  policy: readonly PolicyRow[];
  holdings: readonly Holding[];
  /** Sides whose last hedge settled at its maturity (serviceMatured): their next Open is a roll's, named by that maturity. */
  matured?: readonly Matured[];
  /** The UTC day the client references carry ("2026-11-25"). */
  day: string;
  /** The instant (epoch ms) the proposal is for: value dates and maturities are judged at it. Left out: 00:00 UTC of `day`. */
  asOfMs?: number;
  /** One market side only (Propose beside a side): the rows of that side, nothing of the others. */
  only?: { market: string; side: Side };
}

/** A market's exposure per side (cents) and the earliest value date among its rows that count, of either side and of each (null: none). */
interface MarketExposure {
  buy: number;
  sell: number;
  due: number | null;
  dueBy: Record<Side, number | null>;
}

/** An open hedge of a side: its size in cents and its earliest known maturity (null: not given). */
interface HeldSide {
  size: number;
  maturity: number | null;
}
type Held = Record<Side, HeldSide>;

const earliest = (a: number | null, b: number) => Math.min(a ?? b, b);
const WEEKDAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** The exposures per market at `asOf` (paid rows count no more); markets the policy names are in scope with nothing. */
function exposuresAt(exposures: readonly Exposure[], policy: readonly PolicyRow[], asOf: number): Map<string, MarketExposure> {
  const toCents = (amount: number) => Math.round(amount * 100); // already to the cent (the readers round): only binary noise to drop
  const sums = new Map<string, MarketExposure>();
  const none = (): MarketExposure => ({ buy: 0, sell: 0, due: null, dueBy: { buy: null, sell: null } });
  for (const e of exposures) {
    const entry = sums.get(e.market) ?? none();
    sums.set(e.market, entry); // in scope even when none of its rows counts any more: its hedges go to 0
    const due = e.valueDateMs ?? null;
    if (due !== null) {
      if (asOf >= due) continue; // paid: counts no more
      entry.due = earliest(entry.due, due);
      entry.dueBy[e.side] = earliest(entry.dueBy[e.side], due);
    }
    entry[e.side] += toCents(e.amountUsd);
  }
  for (const p of policy) if (p.market !== "*" && !sums.has(p.market)) sums.set(p.market, none());
  return sums;
}

function heldSides(holdings: readonly Holding[]): Map<string, Held> {
  const open = new Map<string, Held>();
  for (const h of holdings) {
    const entry = open.get(h.market) ?? { buy: { size: 0, maturity: null }, sell: { size: 0, maturity: null } };
    const held = entry[h.side];
    held.size += Math.round(h.sizeUsd * 100);
    const maturity = h.maturityMs ?? null;
    if (maturity !== null) held.maturity = earliest(held.maturity, maturity);
    open.set(h.market, entry);
  }
  return open;
}

/**
 * The tenor of a side's Opens and the note saying why it is shorter than the policy's: the earliest value date that
 * bounds it (the market's, either side, when sides are netted; the side's own dated rows when they are not), then the
 * working days its maturity must fall on.
 */
function sideTenor(p: PolicyRow, exposure: MarketExposure, side: Side, asOf: number): { tenor: Tenor; note: string } {
  const due = p.netSides ? exposure.due : exposure.dueBy[side];
  const left = due === null ? null : due - asOf;
  const slack = p.roll === "at maturity" ? p.rollWithinHours * HOUR_MS : 0; // a hedge ending inside the window after the value date settles
  const byDate = tenorFor(p.tenor, left, asOf, EVERY_DAY, slack);
  const tenor = tenorFor(p.tenor, left, asOf, p.workingDays, slack);
  const notes: string[] = [];
  if (byDate < p.tenor) notes.push(`the earliest value date ${utcMinute(due as number)} comes first`);
  if (tenor < byDate)
    notes.push(`a ${byDate}-day hedge would mature on a ${WEEKDAY_NAMES[new Date(asOf + byDate * DAY_MS).getUTCDay()]}, not a working day`);
  return { tenor, note: tenor < p.tenor ? `; tenor ${days(tenor)}, not ${p.tenor}: ${notes.join("; ")}` : "" };
}

/**
 * A side settled at its maturity, nothing open since: the rule's Open of the target, said to be the roll's and named by
 * the maturity (ROLL-<maturity, UTC>-<MARKET>-<SIDE>-<n>), so every look at it, on any day, names the same deal.
 */
function maturedRows(c: SideCase, maturedAtMs: number): ProposalRow[] {
  return sideRows(c).map((r, i) => ({
    ...r,
    clientReference: rollReference(maturedAtMs, c.market, c.side, i + 1),
    reason: `Roll: matured ${utcMinute(maturedAtMs)}. ${r.reason}`,
  }));
}

/**
 * The rows of one side. A side whose hedge matures inside Roll within: `at maturity`, left to settle (never closed
 * early; no row until the service shows it settled); `early`, closed and opened again (rollRows), a paid-up side
 * (target 0) closed, unless the next hedge would be inside its own window from its opening (then left to settle, so the
 * roll never churns). A side settled at its maturity with nothing open: the roll's Open. Otherwise the rule's rows.
 */
function rowsOfSide(c: SideCase, held: HeldSide, maturedAtMs: number | undefined, asOf: number): ProposalRow[] {
  const p = c.policy;
  if (held.size > 0 && held.maturity !== null && rollDue(held.maturity, asOf, p.rollWithinHours)) {
    if (p.roll === "at maturity") return [];
    if (c.target === 0) return sideRows(c);
    return opensInsideWindow(c.tenor, p.rollWithinHours) ? [] : rollRows(c, held.maturity);
  }
  if (held.size === 0 && maturedAtMs !== undefined && maturedAtMs <= asOf) return maturedRows(c, maturedAtMs);
  return sideRows(c);
}

/**
 * The proposal. Markets in scope: those of the exposures and those with their own policy row (a market the policy names
 * with no exposure left gets a target of 0). Open hedges of other markets are left alone.
 */
export function propose({ exposures, policy, holdings, matured = [], day, asOfMs, only }: ProposeInput): ProposalRow[] {
  const asOf = asOfMs ?? utcMs(day);
  const sums = exposuresAt(exposures, policy, asOf);
  const open = heldSides(holdings);
  const settled = new Map<string, number>();
  for (const m of matured)
    settled.set(`${m.market}|${m.side}`, Math.max(settled.get(`${m.market}|${m.side}`) ?? m.maturedAtMs, m.maturedAtMs));

  // Trading order: closes and reduces first, then opens and adds; each by market A to Z (code-unit order: symbols are
  // A–Z and 0–9), buy before sell (the SIDES loop), a split's rows in sequence (as made).
  const first: ProposalRow[] = [];
  const then: ProposalRow[] = [];
  for (const market of [...sums.keys()].sort()) {
    const exposure = sums.get(market) as MarketExposure;
    const p = policyFor(policy, market);
    const t = targets(p, exposure.buy, exposure.sell);
    for (const side of SIDES) {
      if (only && (only.market !== market || only.side !== side)) continue;
      const held = open.get(market)?.[side] ?? { size: 0, maturity: null };
      const { tenor, note } = sideTenor(p, exposure, side, asOf);
      const c: SideCase = {
        market,
        side,
        policy: p,
        target: t[side].cents,
        current: held.size,
        why: t[side].why,
        day,
        tenor,
        tenorNote: note,
      };
      for (const row of rowsOfSide(c, held, settled.get(`${market}|${side}`), asOf))
        (row.action === "close" || row.action === "reduce" ? first : then).push(row);
    }
  }
  return [...first, ...then];
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
