// What the service shows about one row, or a market side's rows judged as a chain: the hedge acted on (by id, else by client reference, opening time and notional), its closed-hedge records, and the notional the next row of the side found, against each row's notional before. Pure; the desk and the poller gather the evidence.
import { utcMs } from "../api/time";
import { groupThousands } from "../api/digits";
import type { ClosedHedge, Hedge } from "../api/schemas";
import type { Intent, IntentPatch } from "./intent";
import { sameCent } from "./rows";

/** The service's clock and this computer's may differ: a hedge opened up to this long before the row was logged still counts. */
export const CLOCK_SKEW_MS = 120_000;

/** What was read from the service about one row. */
export interface Evidence {
  /**
   * The hedge the row acts on, when found: by hedge id (Add/Reduce/Close always have one once sent; an Open once answered),
   * else, for an Open, every hedge carrying its client reference on its market side opened after it was logged.
   */
  hedges: Hedge[];
  /** GET /hedges/{id} answered hedge_not_found for the row's hedge id. */
  notFound: boolean;
  /** Closed-hedge records of that hedge since the row was logged; null when not read. */
  records: ClosedHedge[] | null;
}

export type Verdict =
  /** The action took effect (patch: its final state, or `submitted` when the service holds it but has not filled it yet). */
  | { kind: "effect"; patch: IntentPatch; says: string }
  /** No trace of it on the service. `settled`: it can never take effect any more (its hedge is closed or failed). */
  | { kind: "absent"; settled: boolean; says: string }
  /** The service shows something this row cannot be matched to: only the user can tell. */
  | { kind: "unclear"; says: string }
  /** The hedge is closed and its records are needed to tell: read history, then judge again. */
  | { kind: "needs_records"; hedge: Hedge };

/** A verdict reached with the records read (check() and poll rounds read them whenever a closed hedge needs them). */
export type Judged = Exclude<Verdict, { kind: "needs_records" }>;

/** "125,000.00 USD" (grouped by hand: toLocaleString is slow where it runs once per row per poll). */
export function usdText(n: number): string {
  const cents = Math.round(Math.abs(n) * 100);
  const whole = groupThousands(String(Math.floor(cents / 100)));
  return `${n < 0 && cents > 0 ? "-" : ""}${whole}.${String(cents % 100).padStart(2, "0")} USD`;
}
const shortId = (id: string) => (id.length > 16 ? `${id.slice(0, 12)}…` : id);

/** "Hedge hdg_0a1b2c3d… is filled at 125,000.00 USD." */
export function describeHedge(h: Hedge): string {
  const size = usdText(h.notional_usd);
  switch (h.status) {
    case "submitted":
    case "submitting":
      return `Hedge ${shortId(h.id)} is accepted (${h.status}) for ${size}, not filled yet.`;
    case "failed":
      return `Hedge ${shortId(h.id)} failed: nothing was opened.`;
    case "closed":
      return `Hedge ${shortId(h.id)} is closed.`;
    default: // filled, and any other status the service may add
      return `Hedge ${shortId(h.id)} is ${h.status} at ${size}.`;
  }
}

/** Records of hedge `h` (by hedge id when the records carry one, else by market, side and opening time within a second). */
export function recordsOf(h: Hedge, records: readonly ClosedHedge[], sinceMs: number): ClosedHedge[] {
  const opened = h.opened_at ? utcMs(h.opened_at) : NaN;
  return records.filter((r) => {
    if (utcMs(r.closed_at) < sinceMs) return false;
    if (r.hedge_id) return r.hedge_id === h.id;
    return r.market === h.market && r.side === h.side && Math.abs(utcMs(r.opened_at) - opened) <= 1_000;
  });
}

/** The hedges of an Open's evidence that can be its own: same market and side, opened after it was logged, then by notional. */
export function attributeOpen(intent: Intent, hedges: readonly Hedge[]): Hedge[] {
  if (intent.hedgeId) return hedges.filter((h) => h.id === intent.hedgeId);
  const since = utcMs(intent.loggedAt) - CLOCK_SKEW_MS;
  const candidates = hedges.filter(
    (h) =>
      h.client_reference === intent.clientReference &&
      h.market === intent.market &&
      h.side === intent.side &&
      (!h.opened_at || utcMs(h.opened_at) >= since),
  );
  if (candidates.length <= 1 || intent.notional === null) return candidates;
  return candidates.filter((h) => sameCent(h.notional_usd, intent.notional!));
}

/**
 * Judges a row against what the service shows. Add / Reduce / Close compare the hedge's notional with the notional
 * before the action (written in the log before the request left): before + amount (Add), before − amount (Reduce), or
 * unchanged (not there). A closed hedge is judged by its closed-hedge records since the row was logged.
 */
export function verdict(intent: Intent, evidence: Evidence, next: Intent | null = null): Verdict {
  if (intent.action === "open") return openVerdict(intent, evidence);
  const h = intent.hedgeId ? evidence.hedges.find((x) => x.id === intent.hedgeId) : undefined;
  if (!h) {
    // hedge_not_found is the answer to a read by the row's hedge id.
    if (evidence.notFound) return { kind: "unclear", says: `The service has no hedge ${intent.hedgeId} (hedge_not_found).` };
    return { kind: "unclear", says: "The log does not say which hedge this row acts on." };
  }
  if (h.status === "failed")
    return {
      kind: "effect",
      patch: { status: "failed", message: `The hedge failed: this ${intent.action} had no effect.` },
      says: describeHedge(h),
    };
  const before = intent.notionalBefore;
  if (before === null)
    return { kind: "unclear", says: `${describeHedge(h)} The log has no notional before this row, so it cannot be told.` };
  const own = ownFill(intent, h);
  // A later row of the side found the hedge open and wrote its notional: that is this row's notional after.
  if (next?.notionalBefore != null) return chainedVerdict(intent, h, before, next, own);
  const since = utcMs(intent.loggedAt) - CLOCK_SKEW_MS;

  if (h.status === "closed") {
    if (evidence.records === null) return { kind: "needs_records", hedge: h };
    // In time order: this row's own record (a reduce's decrease, a close), then whatever ended the hedge.
    const records = recordsOf(h, evidence.records, since).sort((a, b) => utcMs(a.closed_at) - utcMs(b.closed_at));
    const ending = records.at(-1);
    const says = `${describeHedge(h)} ${records.length ? `Since the row: ${records.map((r) => `${r.exit_type} of ${usdText(r.size_usd)}`).join(", ")}.` : "No closed-hedge record since the row."}`;
    if (intent.action === "close") {
      // The position is closed, as the row asked; a re-send could do nothing more.
      const how = ending?.exit_type === "maturity" ? "Closed: the hedge settled at maturity." : "Closed.";
      return { kind: "effect", patch: { status: "closed", ...own, message: how }, says };
    }
    if (!ending) return { kind: "unclear", says };
    // What ended the hedge tells: its size is the notional before plus (Add) or minus (Reduce) this row when the row took
    // effect first, and the notional before when it did not. Records just before the row (an earlier row's, inside the
    // clock-skew margin) do not change the ending.
    const amount = intent.notional!;
    if (intent.action === "add") {
      if (sameCent(ending.size_usd, before + amount))
        return { kind: "effect", patch: { status: "filled", ...own, message: "Filled; the hedge has since been closed." }, says };
      if (sameCent(ending.size_usd, before))
        return { kind: "absent", settled: true, says: `${says} It closed at the size it had before this add.` };
      return { kind: "unclear", says };
    }
    // Reduce: one decrease of the whole size when it closed the hedge (a reduction of roughly all of it); its own decrease
    // and then the end at before − amount; or an end at the size before it (it never took effect).
    if (ending.exit_type === "decrease" && sameCent(ending.size_usd, before) && amount >= before * 0.99)
      return { kind: "effect", patch: { status: "closed", ...own, message: "The reduction closed the whole hedge." }, says };
    if (
      sameCent(ending.size_usd, before - amount) &&
      records.some((r) => r !== ending && r.exit_type === "decrease" && sameCent(r.size_usd, amount))
    )
      return { kind: "effect", patch: { status: "filled", ...own, message: "Filled; the hedge has since been closed." }, says };
    if (ending.exit_type !== "decrease" && sameCent(ending.size_usd, before))
      return { kind: "absent", settled: true, says: `${says} It closed without this reduction.` };
    return { kind: "unclear", says };
  }

  const now = h.notional_usd;
  const says = describeHedge(h);
  switch (intent.action) {
    case "add":
      if (sameCent(now, before + intent.notional!))
        return { kind: "effect", patch: { status: "filled", ...own, message: `Filled: hedge notional now ${usdText(now)}.` }, says };
      break;
    case "reduce":
      if (sameCent(now, before - intent.notional!))
        return { kind: "effect", patch: { status: "filled", ...own, message: `Filled: hedge notional now ${usdText(now)}.` }, says };
      break;
    // A Close takes effect only by closing the hedge (judged above).
  }
  if (sameCent(now, before)) return { kind: "absent", settled: false, says: `${says} Its notional is the one before this row.` };
  return { kind: "unclear", says: `${says} Before this row it was ${usdText(before)}: the change does not match the row.` };
}

function openVerdict(intent: Intent, evidence: Evidence): Verdict {
  const mine = attributeOpen(intent, evidence.hedges);
  if (mine.length === 0) {
    if (evidence.notFound) return { kind: "unclear", says: `The service has no hedge ${intent.hedgeId} (hedge_not_found).` };
    return {
      kind: "absent",
      settled: false,
      says: `No hedge with client reference ${intent.clientReference ?? "(none)"} on ${intent.market} ${intent.side} since the row was logged.`,
    };
  }
  if (mine.length > 1)
    return {
      kind: "unclear",
      says: `${mine.length} hedges carry client reference ${intent.clientReference} on ${intent.market} ${intent.side}.`,
    };
  const h = mine[0];
  const says = describeHedge(h);
  const fill = { fillTxHash: h.fill_tx_hash ?? null, struckRate: h.struck_rate ?? null, filledAt: h.filled_at ?? null };
  const ids = { hedgeId: h.id, ...(h.order_tx_hash ? { orderTxHash: h.order_tx_hash } : {}) };
  switch (h.status) {
    case "filled":
      return { kind: "effect", patch: { status: "filled", ...ids, ...fill, message: "Filled." }, says };
    case "closed":
      return { kind: "effect", patch: { status: "filled", ...ids, ...fill, message: "Filled (the hedge has since been closed)." }, says };
    case "failed":
      return {
        kind: "effect",
        patch: { status: "failed", ...ids, message: "The order did not go through: nothing was opened and the collateral was released." },
        says,
      };
    default:
      return { kind: "effect", patch: { status: "submitted", ...ids, message: "Submitted: waiting for the fill." }, says };
  }
}

/**
 * A hedge's fill details belong to its open. An add/reduce/close records them only when the hedge shows a fill made
 * after this row was journalled (filled_at later than its Logged at); otherwise they stay empty.
 */
function ownFill(intent: Intent, hedge: Hedge): IntentPatch {
  const filledAtMs = hedge.filled_at ? utcMs(hedge.filled_at) : NaN;
  if (!(Number.isFinite(filledAtMs) && filledAtMs > utcMs(intent.loggedAt))) return {};
  return { fillTxHash: hedge.fill_tx_hash ?? null, struckRate: hedge.struck_rate ?? null, filledAt: hedge.filled_at ?? null };
}

/**
 * The rows of a market side in the order they left: by Logged at, then rows already sent (in the order they were sent)
 * before rows never sent, else in the order given (a stable sort). Resume takes rows up in this order too.
 */
export function sideOrder(a: Intent, b: Intent): number {
  const sentMs = (i: Intent) => (i.sentAt ? utcMs(i.sentAt) : Infinity);
  return utcMs(a.loggedAt) - utcMs(b.loggedAt) || sentMs(a) - sentMs(b);
}

/**
 * The row that left right after `intent` on the same hedge and market side, strictly later, and wrote the notional it found there (its Notional before):
 * `intent`'s notional after, since a side's rows go one at a time. Null when there is none, or when a row in between left
 * without writing what it found (an older version's row): then nothing later can speak for `intent`.
 */
export function nextInChain(intent: Intent, side: readonly Intent[]): Intent | null {
  return chainOf(side)(intent);
}

/** Whether a row can be judged in its side's chain: an Add, Reduce or Close that left on the hedge it names (an Open has none). */
export function chained(intent: Intent): intent is Intent & { hedgeId: string; sentAt: string } {
  return intent.action !== "open" && !!intent.hedgeId && intent.sentAt !== null;
}

/** nextInChain over one set of rows, indexed once (a poll round judges thousands of rows against the same journal). */
export function chainOf(rows: readonly Intent[]): (intent: Intent) => Intent | null {
  const byHedge = new Map<string, Intent[]>();
  for (const o of rows) {
    if (!chained(o)) continue;
    const list = byHedge.get(o.hedgeId);
    if (list) list.push(o);
    else byHedge.set(o.hedgeId, [o]);
  }
  for (const list of byHedge.values()) list.sort(sideOrder);
  return (intent) => {
    if (!chained(intent)) return null;
    const list = (byHedge.get(intent.hedgeId) ?? []).filter((o) => o.market === intent.market && o.side === intent.side);
    const at = list.findIndex((o) => o.idempotencyKey === intent.idempotencyKey);
    const next = at >= 0 ? list[at + 1] : list.find((o) => sideOrder(intent, o) < 0);
    // The next row left once this one was final: strictly later. Rows sent at the same instant are no chain.
    if (!next || next.notionalBefore === null || !(utcMs(next.sentAt!) > utcMs(intent.sentAt))) return null;
    return next;
  };
}

const rowText = (i: Intent) =>
  `${i.action} ${i.side} ${i.notional === null ? "" : `${usdText(i.notional)} `}logged ${i.loggedAt.slice(0, 19).replace("T", " ")} UTC`;

/** Judged by what the next row of the side found: after = before + amount (Add) or − amount (Reduce), or = before. */
function chainedVerdict(intent: Intent, h: Hedge, before: number, next: Intent, own: IntentPatch): Judged {
  const after = next.notionalBefore!;
  const says = `${describeHedge(h)} The next row of this side (${rowText(next)}) found it at ${usdText(after)}; before this row it was ${usdText(before)}.`;
  const delta = intent.action === "add" ? intent.notional! : intent.action === "reduce" ? -intent.notional! : null;
  if (delta !== null && sameCent(after, before + delta))
    return {
      kind: "effect",
      patch: { status: "filled", ...own, message: `Filled: the next row of this side found the hedge at ${usdText(after)}.` },
      says,
    };
  if (sameCent(after, before)) return { kind: "absent", settled: false, says: `${says} This row had not taken effect when it left.` };
  return { kind: "unclear", says: `${says} The change does not match the row.` };
}

/** What the chain says about one row: it took effect, did not, the service holds it (an Open not filled yet), or it cannot tell. */
export type ChainResult = "took_effect" | "did_not" | "accepted" | "unclear";

export interface ChainLink {
  intent: Intent;
  result: ChainResult;
  verdict: Verdict;
}

export interface ChainJudgement {
  /** The side's last final row (the chain's start), when there is one. */
  start: Intent | null;
  /** Each unfinished row, in the order they left. */
  links: ChainLink[];
  /** A change of the hedge before the first unfinished row that no row of this log explains (another workbook or person); null when none. */
  gap: string | null;
}

/**
 * A market side judged as a chain: its unfinished rows and its last final row, in the order they left. Each row's
 * notional after is the next row's Notional before (`nextInChain`), and the last row's is the hedge now (`evidence`).
 * The desk judges one row at a time with `verdict(intent, evidence, nextInChain(intent, side))`; this is the same
 * judgement for the whole side, as the pane and the tests read it.
 */
export function judgeChain(side: readonly Intent[], evidence: Evidence, isFinal: (i: Intent) => boolean): ChainJudgement {
  const ordered = [...side].sort(sideOrder);
  const firstOpen = ordered.findIndex((i) => !isFinal(i));
  const unfinished = firstOpen < 0 ? [] : ordered.slice(firstOpen).filter((i) => !isFinal(i));
  const start = (firstOpen < 0 ? ordered : ordered.slice(0, firstOpen)).at(-1) ?? null;
  const next = chainOf(ordered);
  const links = unfinished.map((intent): ChainLink => {
    const v = verdict(intent, evidence, next(intent));
    return { intent, verdict: v, result: chainResult(v) };
  });
  return { start, links, gap: chainGap(start, unfinished[0]) };
}

/**
 * What each market side's chain says before its first unfinished row: a change of the hedge since the side's last final
 * row that no row of this log explains, by that row's idempotency key (sides without one are left out). The pane adds it
 * to what the service shows. One pass over the rows.
 */
export function chainGaps(rows: readonly Intent[], isFinal: (i: Intent) => boolean): Map<string, string> {
  const sides = new Map<string, Intent[]>();
  for (const r of rows) {
    const lane = `${r.market}|${r.side}`;
    const list = sides.get(lane);
    if (list) list.push(r);
    else sides.set(lane, [r]);
  }
  const gaps = new Map<string, string>();
  for (const side of sides.values()) {
    const ordered = side.sort(sideOrder);
    const firstOpen = ordered.findIndex((o) => !isFinal(o));
    if (firstOpen < 0) continue;
    const gap = chainGap(ordered.slice(0, firstOpen).at(-1) ?? null, ordered[firstOpen]);
    if (gap) gaps.set(ordered[firstOpen].idempotencyKey, gap);
  }
  return gaps;
}

function chainResult(v: Verdict): ChainResult {
  if (v.kind === "absent") return "did_not";
  if (v.kind !== "effect") return "unclear";
  if (v.patch.status === "failed") return "did_not";
  return v.patch.status === "submitted" ? "accepted" : "took_effect";
}

/** The notional the final row left the hedge at (an Open filled: its notional; an Add / Reduce filled: before ± amount; else before). */
function notionalLeft(row: Intent): number | null {
  if (row.action === "open") return row.status === "filled" ? row.notional : null;
  if (row.notionalBefore === null || row.action === "close") return null;
  if (row.status !== "filled") return row.notionalBefore;
  return row.notionalBefore + (row.action === "add" ? row.notional! : -row.notional!);
}

function chainGap(start: Intent | null, first: Intent | undefined): string | null {
  if (!start || !first || first.notionalBefore === null || (start.hedgeId && first.hedgeId && start.hedgeId !== first.hedgeId)) return null;
  const left = notionalLeft(start);
  if (left === null || sameCent(left, first.notionalBefore)) return null;
  return `The ${start.action} before it left the hedge at ${usdText(left)}, but this ${first.action} found it at ${usdText(first.notionalBefore)}: a change no row of this log explains (another workbook or person).`;
}
