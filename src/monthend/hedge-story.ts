// Month end's check of one hedge's log rows together against the service: the Open's and Adds' amounts against what the hedge took (its notional and its closed-hedge records), each Reduce and Close against its record, and the Open's struck rate against the blend its Adds make.
import type { ClosedHedge, Hedge } from "../api/schemas";
import { utcMs } from "../api/time";
import { CLOCK_SKEW_MS, recordsOf } from "../trading/verdict";
import type { PlacedLogRow } from "../trading/workbook";
import { CENT, EFFECTIVE, PENDING, usd, type ServiceLine } from "./recon-model";
import { ACTION_WINDOW_MS, actedWithin, differsLine, line, sameRate } from "./service-line";

/**
 * How far the rates a hedge's parts struck at (its open and its adds, at most a tenor of 7 days apart) may lie from each
 * other: the service shows only their blend, so an Open's struck rate on a hedge with Adds is checked to this bound.
 */
export const PART_RATE_SPREAD = 0.05;

/** What the log and the service show of one hedge, gathered once for its checks and for the class of each cell. */
export interface HedgeFacts {
  hedge: Hedge;
  /** The final rows that took effect on it (filled or closed), by Logged at. */
  open: PlacedLogRow | undefined;
  adds: PlacedLogRow[];
  reduces: PlacedLogRow[];
  closes: PlacedLogRow[];
  /** Its closed-hedge records, oldest first, when the history read covers its whole life (read complete, from before it opened); null otherwise. */
  records: ClosedHedge[] | null;
  /** The Open's and Adds' amounts are compared: the Open took effect, it and every Add and Reduce have an amount, no row of the hedge is pending, and the service shows what it took. */
  amountsChecked: boolean;
}

/** The history as read: its records, and from when it is whole (null: cut short). */
export interface HistoryCover {
  records: readonly ClosedHedge[];
  /** Records closed from this instant on were all read; null when the read was cut short. */
  wholeFromMs: number | null;
}

const loggedOrder = (a: PlacedLogRow, b: PlacedLogRow) => utcMs(a.record.loggedAt) - utcMs(b.record.loggedAt);
const amountOf = (p: PlacedLogRow | undefined) => p?.record.notional ?? NaN;

/** The facts of hedge `h` from the rows that name it (any status) and the history read. */
export function hedgeFacts(h: Hedge, rows: readonly PlacedLogRow[], history: HistoryCover): HedgeFacts {
  const done = rows.filter((p) => EFFECTIVE.has(p.record.status)).sort(loggedOrder);
  const of = (action: string) => done.filter((p) => p.record.action === action);
  const opened = utcMs(h.opened_at ?? "");
  const covered = history.wholeFromMs !== null && opened >= history.wholeFromMs;
  const records = covered ? recordsOf(h, history.records, -Infinity).sort((a, b) => utcMs(a.closed_at) - utcMs(b.closed_at)) : null;
  const open = of("open")[0];
  const adds = of("add");
  const reduces = of("reduce");
  const shows = h.status === "filled" || (h.status === "closed" && !!records?.length);
  const amountsChecked =
    !!open &&
    !rows.some((p) => PENDING.has(p.record.status)) &&
    shows &&
    [open, ...adds, ...reduces].every((p) => Number.isFinite(amountOf(p)));
  return { hedge: h, open, adds, reduces, closes: of("close"), records, amountsChecked };
}

/** Every finding of the hedge's rows taken together. */
export function storyLines(f: HedgeFacts): ServiceLine[] {
  return [...blendLines(f), ...amountLines(f), ...reduceLines(f), ...closeLines(f)];
}

/** The record that ended a closed hedge (its last), or null while it is open. */
const endingOf = (f: HedgeFacts) => (f.hedge.status === "closed" ? (f.records?.at(-1) ?? null) : null);

/**
 * The Open and its Adds against what the hedge took: its notional now plus its reductions (open), the sum of its records
 * (closed); without a whole history, an open hedge's notional against the Open and Adds less the Reduces. Flagged at
 * the Open, and at its Add when it has one (with several, only their sum is known).
 */
function amountLines(f: HedgeFacts): ServiceLine[] {
  if (!f.amountsChecked) return [];
  const h = f.hedge;
  const took = [f.open, ...f.adds].reduce((sum, p) => sum + amountOf(p), 0);
  let log = took;
  let service: number;
  let how: string;
  if (f.records) {
    const reduced = f.records.reduce((sum, r) => sum + r.size_usd, 0);
    service = (h.status === "filled" ? h.notional_usd : 0) + reduced;
    how = h.status === "filled" ? `its notional ${usd(h.notional_usd)} and its reductions` : "its closed-hedge records";
  } else {
    log = took - f.reduces.reduce((sum, p) => sum + amountOf(p), 0);
    service = h.notional_usd;
    how = "its notional, the Open and Adds less the Reduces";
  }
  if (Math.abs(log - service) < CENT) return [];
  const parts = f.adds.length ? `The Open and its ${f.adds.length} Add(s) come` : "The Open comes";
  const why = ` (${parts} to ${usd(took)}; the service's hedge ${h.id} took ${usd(service)}: ${how}.)`;
  const at = f.adds.length === 1 ? [f.open!, f.adds[0]] : [f.open!];
  return at.map((p) => differsLine(p, "Notional (USD)", p.record.notional, Math.round(service * 100) / 100, why));
}

/**
 * Each Reduce against its record: a reduction of the hedge dated within the action window of its Logged at (the one that
 * ended the hedge, for a Reduce logged closed), of its amount, and its Sent at within that window too.
 */
function reduceLines(f: HedgeFacts): ServiceLine[] {
  if (!f.records || !f.amountsChecked) return [];
  const ending = endingOf(f);
  const partial = f.records.filter((r) => r !== ending && r.exit_type === "decrease");
  const used = new Set<ClosedHedge>();
  const out: ServiceLine[] = [];
  for (const p of f.reduces) {
    const r = p.record;
    const whole = r.status === "closed";
    const pool = whole ? (ending?.exit_type === "decrease" ? [ending] : []) : partial.filter((c) => !used.has(c));
    const rec = pool.find((c) => actedWithin(r.loggedAt, utcMs(c.closed_at)));
    if (!rec) {
      const seen = f.records.map((c) => `${c.exit_type} of ${usd(c.size_usd)} at ${c.closed_at}`).join(", ") || "none";
      out.push(
        line(
          p,
          "differs",
          "Logged at (UTC)",
          r.loggedAt,
          seen,
          `Logged at (UTC): the service shows no reduction of hedge ${f.hedge.id} from ${CLOCK_SKEW_MS / 60_000} minutes before this row to ${ACTION_WINDOW_MS / 60_000} minutes after it (its records: ${seen}): its time or its amount was changed, or no such reduction was made.`,
        ),
      );
      continue;
    }
    used.add(rec);
    const amount = amountOf(p);
    const fits = whole ? amount >= rec.size_usd * 0.99 - CENT : Math.abs(amount - rec.size_usd) < CENT;
    if (!fits)
      out.push(
        differsLine(
          p,
          "Notional (USD)",
          r.notional,
          rec.size_usd,
          ` (The service's ${rec.exit_type} of hedge ${f.hedge.id} at ${rec.closed_at}.)`,
        ),
      );
    if (r.sentAt && !actedWithin(r.sentAt, utcMs(rec.closed_at))) out.push(sentLine(p, rec));
  }
  return out;
}

/** A Close against the record that ended its hedge by a close or decrease: dated within the action window of its Logged at and Sent at. */
function closeLines(f: HedgeFacts): ServiceLine[] {
  const ending = endingOf(f);
  if (!ending || ending.exit_type === "maturity" || !f.amountsChecked) return [];
  const out: ServiceLine[] = [];
  for (const p of f.closes) {
    const at = utcMs(ending.closed_at);
    if (!actedWithin(p.record.loggedAt, at))
      out.push(
        line(
          p,
          "differs",
          "Logged at (UTC)",
          p.record.loggedAt,
          `${ending.exit_type} at ${ending.closed_at}`,
          `Logged at (UTC): the service closed hedge ${f.hedge.id} at ${ending.closed_at}, not within ${ACTION_WINDOW_MS / 60_000} minutes after this Close was logged (nor ${CLOCK_SKEW_MS / 60_000} minutes before): its time was changed.`,
        ),
      );
    else if (p.record.sentAt && !actedWithin(p.record.sentAt, at)) out.push(sentLine(p, ending));
  }
  return out;
}

const sentLine = (p: PlacedLogRow, rec: ClosedHedge) =>
  line(
    p,
    "differs",
    "Sent at (UTC)",
    p.record.sentAt ?? "",
    `${rec.exit_type} at ${rec.closed_at}`,
    `Sent at (UTC): the service's ${rec.exit_type} it asked for is dated ${rec.closed_at}, not within ${ACTION_WINDOW_MS / 60_000} minutes after ${p.record.sentAt}: its time was changed.`,
  );

/**
 * The Open's struck rate: the hedge's own while no Add blended it; with Adds, the blend the service shows recomputed
 * from the log's Open and Adds (each add moves the rate by its share of the notional then, a reduction keeps it) must
 * leave the Adds a rate within PART_RATE_SPREAD of the Open's.
 */
function blendLines(f: HedgeFacts): ServiceLine[] {
  const { open, hedge: h } = f;
  const held = h.status === "filled" || h.status === "closed";
  if (!open || !held || typeof h.struck_rate !== "number") return [];
  const rate = open.record.struckRate;
  if (f.adds.length === 0) {
    if (typeof rate === "number" && sameRate(rate, h.struck_rate)) return [];
    return [differsLine(open, "Struck rate", rate, h.struck_rate, " (The hedge's own: the log shows no add on it.)")];
  }
  if (!f.amountsChecked) return [];
  // The Open's share of the blend: each add keeps notional/(notional + add) of the rate before it.
  let notional = amountOf(open);
  let share = 1;
  const later = [...f.adds, ...f.reduces.filter((p) => p.record.status === "filled")].sort(loggedOrder);
  for (const p of later) {
    const amount = amountOf(p);
    if (p.record.action === "add") {
      share *= notional / (notional + amount);
      notional += amount;
    } else notional -= amount;
  }
  const addsRate = typeof rate === "number" ? (h.struck_rate - rate * share) / (1 - share) : NaN;
  if (Math.abs(addsRate - (rate as number)) <= PART_RATE_SPREAD * h.struck_rate) return []; // NaN (no rate) is never within
  const implied = Number.isFinite(addsRate) ? `, which leaves its ${f.adds.length} Add(s) a rate of ${addsRate.toPrecision(8)}` : "";
  return [
    differsLine(
      open,
      "Struck rate",
      rate,
      `blended ${h.struck_rate}`,
      ` (The service shows the blend of the Open and its Adds; recomputed from the log's amounts, this rate${implied}: more than ${PART_RATE_SPREAD * 100}% from the Open's.)`,
    ),
  ];
}
