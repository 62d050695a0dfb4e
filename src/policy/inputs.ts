// Reading HEDGE.TARGET's three ranges (exposures, policy, positions) by header, with the pane's header rules, into checked records, and the service's positions and closed hedges as holdings and settlements; a bad cell is an error naming its row, column and fix.
import { isSide, type ClosedHedge, type Position, type Side, type Tenor } from "../api/schemas";
import { utcMs } from "../api/time";
import { fromExcelDate } from "../trading/cells";
import { settledAtMaturity } from "../trading/rolls";
import { HEADER_SYNONYMS, normaliseHeader, parseMarket, parseSide, parseTenor, roundToCent } from "../trading/rows";
import { TargetInputError } from "./input-error";
import { EVERY_DAY, ROLL_WITHIN_DEFAULT_HOURS, ROLL_WITHIN_MAX_HOURS, type RollMode } from "./tenor";

/** A cell as Excel hands it over (a range's values, or a selection's). */
export type InputCell = string | number | boolean | null | undefined;

/** One range: its values with the header row first, and where it sits on the sheet when known (for messages naming the cell). */
export interface InputRange {
  values: readonly (readonly InputCell[])[];
  /**
   * 1-based sheet row and column of the range's top-left cell; unknown: messages count rows of the range instead.
   * `rowNumbers`: the sheet row of each row of `values` when they are not consecutive (a selection without its hidden rows).
   */
  origin?: { row: number; column: number; sheet?: string; rowNumbers?: readonly number[] };
}

export interface Exposure {
  market: string;
  side: Side;
  /** USD, to the cent, 0 or more. */
  amountUsd: number;
  /** Epoch ms of its Value date (a date alone: 00:00 UTC of that day); absent or null: undated, it counts always. */
  valueDateMs?: number | null;
}

export interface PolicyRow {
  /** A market symbol, or "*" for the default row. */
  market: string;
  /** 0 to 1 (the sheet's 0 to 100 %). */
  ratio: number;
  tenor: Tenor;
  roundToUsd: number;
  minTradeUsd: number;
  maxTradeUsd: number | null;
  netSides: boolean;
  /** A side whose hedge matures before as_of + this many hours is rolled (0 to 24; default 24). */
  rollWithinHours: number;
  /** How a maturing side is rolled: left to settle, then opened anew (`at maturity`, the default), or closed and opened inside Roll within (`early`). */
  roll: RollMode;
  /** The UTC weekdays (0 Sunday … 6 Saturday) a maturity may fall on: the tenor rule prefers them (every day by default). */
  workingDays: readonly number[];
}

/** A side whose last hedge the service settled at its maturity, with nothing open on it since (the roll's next Open is due). */
export interface Matured {
  market: string;
  side: Side;
  /** Epoch ms of the maturity it settled at. */
  maturedAtMs: number;
}

export interface Holding {
  market: string;
  side: Side;
  sizeUsd: number;
  /** Epoch ms of the hedge's maturity, when the range or the live positions give it. */
  maturityMs?: number | null;
}

export { TargetInputError } from "./input-error";

/** Header synonyms of each column, compared after normaliseHeader() (the pane's rule); market, side and tenor are the pane's own. */
export const TARGET_SYNONYMS = {
  market: HEADER_SYNONYMS.market,
  side: HEADER_SYNONYMS.side,
  amount: ["amount", "amountusd", "exposure", "exposureusd", "notional", "notionalusd"],
  size: ["size", "sizeusd", "notional", "notionalusd", "amount", "amountusd", "current", "currentusd"],
  ratio: ["hedgeratio", "hedgeratiopct", "ratio", "ratiopct", "hedgepct", "hedge"], // "Hedge %" normalises to "hedge"
  tenor: HEADER_SYNONYMS.tenor,
  roundTo: ["roundto", "roundtousd", "rounding", "roundingusd"],
  minTrade: ["mintrade", "mintradeusd", "minimumtrade", "minimumtradeusd"],
  maxTrade: ["maxtrade", "maxtradeusd", "maximumtrade", "maximumtradeusd"],
  netSides: ["netsides", "net"],
  valueDate: ["valuedate", "due", "duedate", "settlementdate"],
  maturity: ["maturity", "maturityat", "maturitydate"],
  rollWithin: ["rollwithin", "rollwithinhours", "rollwindow", "rollwindowhours"],
  roll: ["roll", "rollmode", "rolls"],
  workingDays: ["workingdays", "workdays", "businessdays"],
} as const;
type Column = keyof typeof TARGET_SYNONYMS;

/** How each column is named in messages. */
const LABELS: Record<Column, string> = {
  market: "Market",
  side: "Side",
  amount: "Amount (USD)",
  size: "Size (USD)",
  ratio: "Hedge ratio (%)",
  tenor: "Tenor (days)",
  roundTo: "Round to (USD)",
  minTrade: "Min trade (USD)",
  maxTrade: "Max trade (USD)",
  netSides: "Net sides",
  valueDate: "Value date",
  maturity: "Maturity",
  rollWithin: "Roll within (hours)",
  roll: "Roll",
  workingDays: "Working days",
};

const isBlank = (v: InputCell) => v === null || v === undefined || (typeof v === "string" && v.trim() === "");
const shown = (v: InputCell) => (typeof v === "string" ? `"${v.trim()}"` : String(v));

/** "A", "B", … "AA": a 1-based column's letters. */
export function columnLetters(column: number): string {
  let s = "";
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** "Model!$B$4:$D$9", "'My sheet'!A1:C3", "AB10": the top-left cell's sheet (before a "!"), row and column; undefined when it is no address. */
export function originOf(address: unknown): InputRange["origin"] {
  if (typeof address !== "string") return undefined;
  const m = /^(?:(?:'((?:[^']|'')+)'|([^!']+))!)?\$?([A-Z]{1,3})\$?(\d+)(?:[:,].*)?$/i.exec(address.trim());
  if (!m) return undefined;
  const sheet = (m[1] ?? m[2])?.replace(/''/g, "'");
  const column = [...m[3].toUpperCase()].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);
  return { row: Number(m[4]), column, ...(sheet ? { sheet } : {}) };
}

/** A range read column by column: where each column is, and how to name a cell in a message. */
class Sheet {
  readonly index: Partial<Record<Column, number>> = {};
  constructor(
    readonly name: string,
    readonly range: InputRange,
    columns: readonly Column[],
  ) {
    const headers = (range.values[0] ?? []).map((h) => normaliseHeader(isBlank(h) ? "" : String(h)));
    for (const c of columns) {
      const found = headers.flatMap((h, i) => ((TARGET_SYNONYMS[c] as readonly string[]).includes(h) ? [i] : []));
      if (found.length > 1)
        throw new TargetInputError(
          `${name}: columns ${found.map((i) => String(range.values[0][i])).join(" and ")} both mean ${LABELS[c]}: rename or remove all but one.`,
        );
      this.index[c] = found[0]; // undefined: no such column
    }
  }

  require(c: Column): void {
    if (this.index[c] !== undefined) return;
    const names = TARGET_SYNONYMS[c].slice(0, 3).join(", ");
    throw new TargetInputError(
      `${this.name}: no ${LABELS[c]} column. Add a column headed ${LABELS[c]} (also read: ${names}; case, spaces and punctuation are ignored).`,
    );
  }

  /** "exposures, cell C7 (Amount (USD))" or, without the sheet position, "exposures, row 7 of the range (Amount (USD))". */
  where(r: number, c: Column): string {
    const o = this.range.origin;
    if (!o) return `${this.name}, row ${r + 1} of the range, column ${LABELS[c]}`;
    const row = o.rowNumbers?.[r] ?? o.row + r;
    const cell = `${columnLetters(o.column + this.index[c]!)}${row}`;
    return `${this.name}, cell ${o.sheet ? `${o.sheet}!` : ""}${cell} (row ${row}, column ${LABELS[c]})`;
  }

  cell(r: number, c: Column): InputCell {
    const i = this.index[c];
    return i === undefined ? null : this.range.values[r][i];
  }

  fail(r: number, c: Column, what: string): never {
    throw new TargetInputError(`${this.where(r, c)}: ${what}`);
  }

  /** Data rows (all but the header) that are not entirely blank. */
  *rows(): Generator<number> {
    for (let r = 1; r < this.range.values.length; r++) if (!this.range.values[r].every(isBlank)) yield r;
  }

  /** Markets and sides already read, by their text: a 10,000-row model repeats a few dozen of each. */
  private readonly known = new Map<InputCell, string>();

  market(r: number, allowDefault = false): string {
    const v = this.cell(r, "market");
    const seen = this.known.get(v);
    if (seen !== undefined) return seen; // "*" is never kept: it returns below, before it could be
    if (allowDefault && typeof v === "string" && v.trim() === "*") return "*";
    if (isBlank(v))
      this.fail(
        r,
        "market",
        `Market is empty: give the market symbol, e.g. USDTNGN${allowDefault ? ", or * for every other market" : ""}.`,
      );
    const market =
      parseMarket(v as string | number) ?? this.fail(r, "market", `${shown(v)} is not a market symbol: use one such as USDTNGN.`);
    this.known.set(v, market);
    return market;
  }

  side(r: number): Side {
    const v = this.cell(r, "side");
    // parseSide reads a blank cell as no side.
    return parseSide(v as string) ?? this.fail(r, "side", `${isBlank(v) ? "Side is empty" : `${shown(v)}`}: use buy or sell.`);
  }

  /** Dates already read, by their cell value: a dated model repeats a few value dates. */
  private readonly dates = new Map<InputCell, number>();

  /** A date (dateMs) or null when blank; anything else names the cell and the fix. */
  date(r: number, c: Column, fix: string): number | null {
    const v = this.cell(r, c);
    if (isBlank(v)) return null;
    let ms = this.dates.get(v);
    if (ms === undefined) {
      ms = dateMs(v);
      if (Number.isNaN(ms)) this.fail(r, c, `${shown(v)} is not a date: ${fix}`);
      this.dates.set(v, ms);
    }
    return ms;
  }

  /** A USD amount to the cent: a number, or text such as "1,250,000" or "$250,000". */
  usd(r: number, c: Column, opts: { min: number; fix: string }): number | null {
    const v = this.cell(r, c);
    if (isBlank(v)) return null;
    const n = numberOf(v);
    if (n === null) this.fail(r, c, `${shown(v)} is not a number: ${opts.fix}`);
    const value = roundToCent(n);
    if (value < opts.min || value > 1e12) this.fail(r, c, `${shown(v)} is out of range: ${opts.fix}`);
    return value;
  }
}

/**
 * Epoch ms of a date cell: an Excel date serial (UTC; days since 1899-12-30, the time of day as the fraction) or ISO 8601
 * text ("2026-11-30", "2026-11-30T17:00Z"; a date alone is 00:00 UTC, a time without a zone UTC); NaN when it is neither.
 */
export function dateMs(v: InputCell): number {
  // NaN and ±Infinity fail the bounds; utcMs reads anything but text as NaN.
  if (typeof v === "number") return v >= 1 && v < 2_958_466 ? utcMs(fromExcelDate(v)) : NaN;
  return utcMs(v as string);
}

/** A number from a number or text ("1,250,000", "$250,000", "75%", "75 %"); null when it is none. */
function numberOf(v: InputCell): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string") return null;
  const text = v
    .trim()
    .replace(/^(usdc|usd|\$)\s*/i, "")
    .replace(/\s*(usdc|usd|%)$/i, "")
    .replace(/[\s\u00a0\u202f_']/g, "");
  if (!/^-?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$/.test(text)) return null;
  return Number(text.replace(/,/g, ""));
}

/** "at maturity" (also "maturity", "at-maturity"), "early"; null when it is neither. */
export function rollModeOf(text: string): RollMode | null {
  const t = text
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, " ");
  if (t === "at maturity" || t === "maturity") return "at maturity";
  if (t === "early") return "early";
  return null;
}

const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
/** The weekday of a short or full name (only those reach it: each starts with its three letters). */
const weekday = (word: string) => WEEKDAYS.findIndex((d) => word.startsWith(d));

/**
 * The UTC weekdays a text names, 0 (Sunday) to 6, in order: days ("Mon", "monday") and ranges ("Mon-Fri"; "Fri-Mon"
 * wraps over the weekend) separated by commas, spaces or semicolons; "every day", "all" and "daily" are the seven.
 * Null when a part is no weekday (a full name must be spelled right: "mondy" is none).
 */
export function weekdaysOf(text: string): number[] | null {
  const t = text.trim().toLowerCase();
  if (["every day", "everyday", "all", "daily"].includes(t)) return [...EVERY_DAY];
  const parts = t.split(/[,;\s]+/).filter((p) => p !== "");
  const days = new Set<number>();
  for (const part of parts) {
    const ends = part.split(/[-–]/);
    const ids = ends.map((w) => (WEEKDAYS.includes(w) || FULL_NAMES.includes(w) ? weekday(w) : -1));
    if (ids.length > 2 || ids.some((i) => i < 0)) return null;
    const [from, to = from] = ids;
    for (let d = from; ; d = (d + 1) % 7) {
      days.add(d);
      if (d === to) break;
    }
  }
  return days.size === 0 ? null : [...days].sort((a, b) => a - b);
}
const FULL_NAMES = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

function checkRange(name: string, range: InputRange): void {
  if (!Array.isArray(range.values) || range.values.length === 0 || !Array.isArray(range.values[0]))
    throw new TargetInputError(`${name}: give a range whose first row holds the headers.`);
}

/** The exposures: Market, Side (the hedge side that offsets it), Amount (USD), optionally a Value date; blank rows skipped. */
export function readExposures(range: InputRange): Exposure[] {
  checkRange("exposures", range);
  const s: Sheet = new Sheet("exposures", range, ["market", "side", "amount", "valueDate"]);
  (["market", "side", "amount"] as const).forEach((c) => s.require(c));
  const out: Exposure[] = [];
  for (const r of s.rows()) {
    const market = s.market(r);
    const side = s.side(r);
    const amountUsd = s.usd(r, "amount", { min: 0, fix: "give the USD amount, 0 or more, e.g. 250,000 (the side says which way)." });
    if (amountUsd === null) s.fail(r, "amount", "Amount is empty: give the USD amount, e.g. 250,000.");
    const valueDateMs = s.date(r, "valueDate", "give the day it is paid, an Excel date or ISO text such as 2026-12-31, or leave it empty.");
    out.push(valueDateMs === null ? { market, side, amountUsd } : { market, side, amountUsd, valueDateMs });
  }
  return out;
}

/** The policy: one row per market, "*" the default for the others. */
export function readPolicy(range: InputRange): PolicyRow[] {
  checkRange("policy", range);
  const columns = ["market", "ratio", "tenor", "roundTo", "minTrade", "maxTrade", "netSides", "rollWithin", "roll", "workingDays"] as const;
  const s: Sheet = new Sheet("policy", range, columns);
  (["market", "ratio", "tenor"] as const).forEach((c) => s.require(c));
  const out: PolicyRow[] = [];
  const seen = new Map<string, number>();
  for (const r of s.rows()) {
    const market = s.market(r, true);
    if (seen.has(market)) s.fail(r, "market", `${market} also has a policy row above: keep one row per market.`);
    seen.set(market, r);
    const ratioPct = s.usd(r, "ratio", { min: 0, fix: "give a percentage from 0 to 100, e.g. 75." });
    if (ratioPct === null) s.fail(r, "ratio", "Hedge ratio is empty: give a percentage from 0 to 100, e.g. 75.");
    if (ratioPct > 100) s.fail(r, "ratio", `${ratioPct} is more than 100: give a percentage from 0 to 100, e.g. 75.`);
    // A cell formatted as a percentage holds 0.75 for 75 %: a number between 0 and 1 would be a hedge 100 times too small.
    const typed = s.cell(r, "ratio");
    if (typeof typed === "number" && typed > 0 && typed < 1)
      s.fail(
        r,
        "ratio",
        `${typed} would be ${typed} %; a cell formatted as a percentage holds 0.75 for 75 %: type the percentage as a number (75) or as text ("75%", or "${typed}%" if you mean under one percent).`,
      );
    const tenorCell = s.cell(r, "tenor");
    const tenor = parseTenor(tenorCell as string | number); // a blank cell is no tenor
    if (tenor === null) s.fail(r, "tenor", `${isBlank(tenorCell) ? "Tenor is empty" : shown(tenorCell)}: use 1, 3 or 7 (days).`);
    const roundToUsd =
      s.usd(r, "roundTo", { min: 0.01, fix: "give the USD step to round targets to, e.g. 1,000 (0.01 at least)." }) ?? 0.01;
    const minTradeUsd =
      s.usd(r, "minTrade", { min: 0, fix: "give the smallest change worth trading in USD, e.g. 10,000 (0 trades any)." }) ?? 0;
    const maxTradeUsd = s.usd(r, "maxTrade", {
      min: 0.01,
      fix: "give the largest USD amount of one row, e.g. 500,000, or leave it empty.",
    });
    const net = s.cell(r, "netSides");
    const netText = isBlank(net) ? "yes" : String(net).trim().toLowerCase(); // TRUE and FALSE cells read "true", "false"
    let netSides: boolean;
    if (["yes", "y", "true", "1"].includes(netText)) netSides = true;
    else if (["no", "n", "false", "0"].includes(netText)) netSides = false;
    else s.fail(r, "netSides", `${shown(net)}: use yes or no (empty means yes).`);
    const rollWithinHours =
      s.usd(r, "rollWithin", {
        min: 0,
        fix: `give the hours before a maturity when the hedge is rolled, from 0 to ${ROLL_WITHIN_MAX_HOURS} (empty means ${ROLL_WITHIN_DEFAULT_HOURS}).`,
      }) ?? ROLL_WITHIN_DEFAULT_HOURS;
    if (rollWithinHours > ROLL_WITHIN_MAX_HOURS)
      s.fail(
        r,
        "rollWithin",
        `${rollWithinHours} is more than ${ROLL_WITHIN_MAX_HOURS}: give hours from 0 to ${ROLL_WITHIN_MAX_HOURS}, at most the shortest tenor, so a hedge just rolled is never rolled again at once.`,
      );
    const rollCell = s.cell(r, "roll");
    const roll = isBlank(rollCell) ? "at maturity" : rollModeOf(String(rollCell));
    if (roll === null) s.fail(r, "roll", `${shown(rollCell)}: use at maturity or early (empty means at maturity).`);
    const daysCell = s.cell(r, "workingDays");
    const workingDays = isBlank(daysCell) ? EVERY_DAY : weekdaysOf(String(daysCell));
    if (workingDays === null)
      s.fail(
        r,
        "workingDays",
        `${shown(daysCell)} names no weekdays: use days or ranges of days such as Mon-Fri or Sun-Thu, Sat (empty means every day).`,
      );
    out.push({ market, ratio: ratioPct / 100, tenor, roundToUsd, minTradeUsd, maxTradeUsd, netSides, rollWithinHours, roll, workingDays });
  }
  return out;
}

/**
 * The service's open positions (GET /positions) as holdings, read as the positions range is, with their maturity when
 * the service gives one. A line on a side the spec does not list (neither buy nor sell) is refused, naming it: a proposal
 * cannot say what to trade while it cannot tell what that line holds, and counting it as either side, or as nothing,
 * could hedge twice.
 */
export function serviceHoldings(lines: readonly Pick<Position, "market" | "side" | "size_usd" | "maturity_at">[]): Holding[] {
  const odd = lines.find((p) => !isSide(p.side));
  if (odd) {
    throw new TargetInputError(
      `The service shows an open ${odd.market} position on the side "${odd.side}", which is neither buy nor sell: no proposal is made until it is closed or the add-in understands that side.`,
    );
  }
  // A maturity the client could not read as a time is left out: that side is not rolled (never a guessed date).
  const rows = lines.map((p) => [p.market, p.side, p.size_usd, Number.isNaN(utcMs(p.maturity_at ?? "")) ? null : p.maturity_at]);
  return readHoldings({ values: [["Market", "Side", "Size", "Maturity"], ...rows] });
}

/**
 * The sides whose newest closed hedge (GET /hedges/history, newest first) settled at its maturity: the facts an
 * `at maturity` roll's next Open is named from (the rule is the desk's too: settledAtMaturity in src/trading/rolls.ts).
 * A side with an open hedge is not rolled from them (the rule checks).
 */
export function serviceMatured(history: readonly Pick<ClosedHedge, "market" | "side" | "closed_at" | "exit_type">[]): Matured[] {
  return settledAtMaturity(history);
}

/** Open hedges: Market, Side, a size and optionally a Maturity (the =HEDGE.POSITIONS() spill as it is); sizes of one side add up. */
export function readHoldings(range: InputRange): Holding[] {
  checkRange("positions", range);
  const s: Sheet = new Sheet("positions", range, ["market", "side", "size", "maturity"]);
  (["market", "side", "size"] as const).forEach((c) => s.require(c));
  const out: Holding[] = [];
  for (const r of s.rows()) {
    const sizeUsd = s.usd(r, "size", { min: 0, fix: "give the open hedge's USD size, 0 or more." }) ?? 0;
    const maturityMs = s.date(
      r,
      "maturity",
      "give the hedge's maturity, an Excel date-time or ISO text such as 2026-11-30T17:00Z, or leave it empty.",
    );
    const holding: Holding = { market: s.market(r), side: s.side(r), sizeUsd };
    out.push(maturityMs === null ? holding : { ...holding, maturityMs });
  }
  return out;
}
