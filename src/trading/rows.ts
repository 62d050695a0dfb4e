// Reading trade rows: column mapping by header (with synonyms), per-action required fields, and validation of every row with the fix named.
import { roundToCent } from "../api/cents";
import { MAX_AMOUNT_USD, SIDES, TENORS, type Side, type Tenor } from "../api/schemas";
import type { CellValue } from "./cells";
import type { SelectedRows } from "./workbook";
import { ACTIONS, type Action, type BatchAction, type ReadResult, type RowField, type RowProblem, type TradeRow } from "./types";

/**
 * The trade columns of a proposal (HEDGE.TARGET's spill and the pane's Hedge Proposal sheet), by the field each one is:
 * a proposal is read back as trade rows by these very headers, before any synonym.
 */
export const PROPOSAL_TRADE_COLUMNS = {
  action: "Action",
  market: "Market",
  side: "Side",
  notional: "Amount (USD)",
  tenor: "Tenor (days)",
  clientReference: "Client reference",
} as const satisfies Record<RowField, string>;

/** A proposal's header row: its trade columns in their order, then what only a person reads (ignored as trade rows). */
export const PROPOSAL_HEADERS = [
  PROPOSAL_TRADE_COLUMNS.action,
  PROPOSAL_TRADE_COLUMNS.market,
  PROPOSAL_TRADE_COLUMNS.side,
  PROPOSAL_TRADE_COLUMNS.notional,
  PROPOSAL_TRADE_COLUMNS.tenor,
  PROPOSAL_TRADE_COLUMNS.clientReference,
  "Current (USD)",
  "Target (USD)",
  "Reason",
] as const;

/** Header synonyms per field, compared after normaliseHeader(). */
export const HEADER_SYNONYMS: Record<RowField, readonly string[]> = {
  action: ["action"],
  market: ["market", "pair", "symbol"],
  side: ["side", "direction"],
  notional: ["notional", "notionalusd", "amount", "amountusd"],
  tenor: ["tenor", "tenordays"],
  clientReference: ["clientreference", "dealid", "reference"],
};

/** Fields each action needs (the Action column itself is never required: without it the batch's choice applies). */
const REQUIRED_FIELDS: Record<Action, readonly RowField[]> = {
  open: ["market", "side", "notional", "tenor", "clientReference"],
  add: ["market", "side", "notional"],
  reduce: ["market", "side", "notional"],
  close: ["market", "side"],
};

/** Fields read (when present) per action: required ones plus an optional client reference. */
const READ_FIELDS: Record<Action, readonly RowField[]> = {
  open: REQUIRED_FIELDS.open,
  add: [...REQUIRED_FIELDS.add, "clientReference"],
  reduce: [...REQUIRED_FIELDS.reduce, "clientReference"],
  close: [...REQUIRED_FIELDS.close, "clientReference"],
};

/** Field names as the user reads them in messages. */
export const FIELD_LABELS: Record<RowField, string> = {
  action: "Action",
  market: "Market",
  side: "Side",
  notional: "Notional",
  tenor: "Tenor",
  clientReference: "Client reference",
};

/** What the amount column is called in messages: an Open's notional, an Add's or Reduce's amount (a Close has none). */
const amountLabel = (action: Action) => (action === "open" ? "Notional" : "Amount");

/** An amount rounded to the cent, as it is shown and sent: the one rule, in src/api/cents.ts (HEDGE.* cells send by it too). */
export { roundToCent };

/** Two amounts are the same to the cent: they round to the same cent (sums of cents carry binary noise: 150,000.1 + 0.2). */
export function sameCent(a: number, b: number): boolean {
  return roundToCent(a) === roundToCent(b);
}
const CLIENT_REFERENCE_MAX = 128;

/** Case-, space-, underscore- and punctuation-insensitive: "Notional (USD)" → "notionalusd", "Deal_ID" → "dealid". */
export function normaliseHeader(header: string): string {
  return header.toLowerCase().replace(/[^a-z0-9]/g, "");
}

interface ColumnMap {
  /** Column index of each field found. */
  index: Partial<Record<RowField, number>>;
  /** The header text each field was read from. */
  header: Partial<Record<RowField, string>>;
  /** Two columns meaning the same field, e.g. "Notional" and "Amount". */
  conflicts: Array<{ field: RowField; headers: string[] }>;
}

export function mapColumns(headers: readonly string[]): ColumnMap {
  const map: ColumnMap = { index: {}, header: {}, conflicts: [] };
  const seen = new Map<RowField, string[]>();
  headers.forEach((h, i) => {
    const n = normaliseHeader(h); // a blank header ("") is no field's synonym
    const fields = Object.keys(HEADER_SYNONYMS) as RowField[];
    // A proposal's own header first (exactly as written), then the synonyms.
    const field = fields.find((f) => PROPOSAL_TRADE_COLUMNS[f] === h.trim()) ?? fields.find((f) => HEADER_SYNONYMS[f].includes(n));
    if (!field) return;
    const list = seen.get(field) ?? [];
    list.push(h);
    seen.set(field, list);
    if (map.index[field] === undefined) {
      map.index[field] = i;
      map.header[field] = h;
    }
  });
  for (const [field, list] of seen) if (list.length > 1) map.conflicts.push({ field, headers: list });
  return map;
}

const isBlank = (v: CellValue | undefined) => v === null || v === undefined || (typeof v === "string" && v.trim() === "");
const shown = (v: CellValue | undefined) => (v === null || v === undefined ? "" : String(v).trim());

/**
 * A positive USD amount from a number or text: "1,250,000", "1 250 000", "1250000.50", "$1,250,000", "1,250,000 USD", "USDC 1,250,000",
 * rounded to the cent, between 0.01 and MAX_AMOUNT_USD. Returns a reason when it is not one.
 */
export function parseAmount(v: CellValue): { value: number } | { reason: string } {
  const parsed = parseRawAmount(v);
  if ("reason" in parsed) return parsed;
  if (parsed.value > MAX_AMOUNT_USD)
    return {
      reason: `is more than the ${MAX_AMOUNT_USD.toLocaleString("en-US")} USD one row may carry: check the amount, or split the trade`,
    };
  const value = roundToCent(parsed.value);
  return value >= 0.01 ? { value } : { reason: "rounds to 0.00: the smallest amount is 0.01" };
}

function parseRawAmount(v: CellValue): { value: number } | { reason: string } {
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return { reason: "is not a number" };
    return v > 0 ? { value: v } : { reason: "must be greater than 0" };
  }
  if (typeof v === "boolean") return { reason: "is not a number" };
  // Only cells that are not blank come here (a null would read "null": not an amount either).
  const text = String(v)
    .trim()
    .replace(/^(usdc|usd|\$)\s*/i, "")
    .replace(/\s*(usdc|usd)$/i, "")
    .replace(/[\s\u00a0\u202f_']/g, "");
  if (/^-/.test(text)) return { reason: "must be greater than 0" };
  if (!/^(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$/.test(text))
    return { reason: "is not an amount: use digits, with , for thousands and . for decimals (1,250,000.00)" };
  const value = Number(text.replace(/,/g, ""));
  return value > 0 ? { value } : { reason: "must be greater than 0" };
}

/** 1, 3 or 7 from a number or text ("7", "7d", "7 days"). */
export function parseTenor(v: CellValue): Tenor | null {
  const text = String(v ?? "")
    .trim()
    .toLowerCase()
    .replace(/\s*(d|day|days)$/, "");
  const n = Number(text);
  return (TENORS as readonly number[]).includes(n) ? (n as Tenor) : null; // an empty text reads 0: not a tenor
}

export function parseSide(v: CellValue): Side | null {
  const text = String(v ?? "")
    .trim()
    .toLowerCase();
  return (SIDES as readonly string[]).includes(text) ? (text as Side) : null;
}

/** Market symbols are compared upper-case and without spaces or slashes ("usdt/ngn" → "USDTNGN"). */
export function parseMarket(v: CellValue): string | null {
  const text = String(v ?? "")
    .toUpperCase()
    .replace(/[\s/_-]/g, ""); // every blank goes, those around it too
  return /^[A-Z0-9]{3,20}$/.test(text) ? text : null;
}

/**
 * Reads and validates every row of a selection for an action. When the selection has an Action column (a proposal from
 * HEDGE.TARGET or Propose), each row's action comes from it and the result's action is "column". Nothing here talks to the service.
 */
export function readTradeRows(chosen: Action, selection: SelectedRows): ReadResult {
  const columns = mapColumns(selection.headers);
  const fromColumn = columns.index.action !== undefined;
  const result: ReadResult = {
    action: fromColumn ? "column" : chosen,
    sheetName: selection.sheetName,
    address: selection.address,
    tableName: selection.tableName,
    columns: columns.header,
    rows: [],
    problems: [],
    blankRows: [],
    hiddenRowsSkipped: selection.hiddenRowsSkipped ?? 0,
  };
  const actionOf = (values: CellValue[]) => (fromColumn ? parseAction(values[columns.index.action!]) : chosen);
  const present = new Set<Action>(
    fromColumn ? selection.rows.map((r) => actionOf(r.values)).filter((a): a is Action => a !== null) : [chosen],
  );
  result.problems.push(...headerProblems(columns, present, result.action, selection.headerRowNumber));
  if (result.problems.length > 0) return result; // without the columns no row can be judged; report the header only

  const referenceRows = new Map<string, number>();
  for (const { rowNumber, values } of selection.rows) {
    const read = readRow(columns, rowNumber, values, fromColumn ? null : chosen, referenceRows);
    if (read === "blank") result.blankRows.push(rowNumber);
    else if ("problems" in read) result.problems.push(...read.problems);
    else result.rows.push(read);
  }
  return result;
}

/** Open, Add, Reduce or Close from a cell, in any case; null when it is none of them. */
function parseAction(v: CellValue | undefined): Action | null {
  const text = String(v ?? "")
    .trim()
    .toLowerCase();
  return (ACTIONS as readonly string[]).includes(text) ? (text as Action) : null;
}

/** The header's problems: a column the actions present need and do not find, or two columns meaning one field. */
function headerProblems(columns: ColumnMap, actions: ReadonlySet<Action>, batch: BatchAction, headerRow: number): RowProblem[] {
  const problems: RowProblem[] = [];
  const problem = (message: string) =>
    problems.push({ rowNumber: headerRow, field: "columns", value: "", message: `Row ${headerRow}: ${message}` });
  const needs = (f: RowField) => [...actions].filter((a) => REQUIRED_FIELDS[a].includes(f));
  for (const f of (Object.keys(HEADER_SYNONYMS) as RowField[]).filter((f) => columns.index[f] === undefined && needs(f).length > 0)) {
    const names = HEADER_SYNONYMS[f].filter((s) => s !== "notionalusd" && s !== "amountusd" && s !== "tenordays").map(titleCase);
    const who = batch === "column" ? `${needs(f).map(capitalise).join(" and ")} rows need one` : `${capitalise(needs(f)[0])} needs one`;
    problem(`no ${FIELD_LABELS[f]} column — ${who}: add a column headed ${names.join(", ").replace(/, ([^,]*)$/, " or $1")}.`);
  }
  const read = new Set([...actions].flatMap((a) => READ_FIELDS[a]).concat(batch === "column" ? ["action"] : []));
  for (const c of columns.conflicts.filter((c) => read.has(c.field))) {
    problem(`columns ${c.headers.join(" and ")} both mean ${FIELD_LABELS[c.field]} — rename or remove all but one.`);
  }
  return problems;
}

/**
 * One row: blank (nothing this action reads), its problems, or the validated row. `chosen` is the batch's action, or null
 * when the row's own Action cell says it. Open rows' client references must differ (`referenceRows` remembers them).
 */
function readRow(
  columns: ColumnMap,
  rowNumber: number,
  values: CellValue[],
  chosen: Action | null,
  referenceRows: Map<string, number>,
): TradeRow | "blank" | { problems: RowProblem[] } {
  const cell = (f: RowField) => (columns.index[f] === undefined ? null : values[columns.index[f]!]);
  const action = chosen ?? parseAction(cell("action"));
  const relevant = (action ? READ_FIELDS[action] : READ_FIELDS.open).map(cell);
  if (values.every(isBlank) || (relevant.every(isBlank) && (chosen !== null || isBlank(cell("action"))))) return "blank";
  const problems: RowProblem[] = [];
  const problem = (field: RowField, message: string) =>
    problems.push({ rowNumber, field, value: shown(cell(field)), message: `Row ${rowNumber}: ${message}` });
  if (!action) {
    problem(
      "action",
      `${isBlank(cell("action")) ? "Action is empty" : `Action "${shown(cell("action"))}"`} — use Open, Add, Reduce or Close.`,
    );
    return { problems };
  }
  const need = (f: RowField) => REQUIRED_FIELDS[action].includes(f);

  const market = parseMarket(cell("market"));
  if (isBlank(cell("market"))) problem("market", "Market is empty — give the market symbol, e.g. USDTNGN.");
  else if (!market) problem("market", `Market "${shown(cell("market"))}" — give a market symbol such as USDTNGN.`);

  const side = parseSide(cell("side"));
  if (isBlank(cell("side"))) problem("side", "Side is empty — use buy or sell.");
  else if (!side) problem("side", `Side "${shown(cell("side"))}" — use buy or sell.`);

  let notional: number | null = null;
  if (need("notional")) {
    const label = amountLabel(action);
    if (isBlank(cell("notional"))) problem("notional", `${label} is empty — give the USD amount, e.g. 250,000.`);
    else {
      const parsed = parseAmount(cell("notional"));
      if ("value" in parsed) notional = parsed.value;
      else problem("notional", `${label} ${shown(cell("notional"))} ${parsed.reason}.`);
    }
  }

  let tenor: Tenor | null = null;
  if (need("tenor")) {
    if (isBlank(cell("tenor"))) problem("tenor", "Tenor is empty — use 1, 3 or 7 (days).");
    else {
      tenor = parseTenor(cell("tenor"));
      if (tenor === null) problem("tenor", `Tenor ${shown(cell("tenor"))} — use 1, 3 or 7.`);
    }
  }

  const reference = isBlank(cell("clientReference")) ? null : shown(cell("clientReference"));
  if (need("clientReference") && reference === null) {
    problem("clientReference", "Client reference is empty — give the deal id; every open carries one.");
  } else if (reference !== null && reference.length > CLIENT_REFERENCE_MAX) {
    problem("clientReference", `Client reference is ${reference.length} characters — use at most ${CLIENT_REFERENCE_MAX}.`);
  } else if (reference !== null && action === "open") {
    const earlier = referenceRows.get(reference);
    if (earlier !== undefined)
      problem("clientReference", `Client reference ${reference} is also on row ${earlier} — give each deal its own reference.`);
    else referenceRows.set(reference, rowNumber);
  }

  if (problems.length > 0 || !market || !side) return { problems };
  return { rowNumber, action, market, side, notional, tenor, clientReference: reference };
}

function titleCase(s: string): string {
  const words: Record<string, string> = { clientreference: "Client reference", dealid: "Deal id" };
  return words[s] ?? capitalise(s);
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
