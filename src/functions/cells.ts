// Shapes service data into Excel cells: date serials for timestamps, tables with a header row, two-column field/value spills.
import type { Account, Hedge, Market, Position, Quote } from "../api/schemas";
import { utcMs } from "../api/time";

export type Cell = string | number | boolean;
export type Spill = Cell[][];

const MS_PER_DAY = 86_400_000;
/** Days from Excel's day 0 (1899-12-30) to the Unix epoch. */
const EPOCH_SERIAL = 25_569;

/** Excel date serial (days since 1899-12-30, fraction = time of day) of a UTC instant in ms; not rounded. */
export function serialFromMs(ms: number): number {
  return ms / MS_PER_DAY + EPOCH_SERIAL;
}

/** Excel date serial of an ISO 8601 timestamp, read as UTC when it has no offset; text that is not a date stays text. */
export function excelSerial(iso: string): number | string {
  const ms = utcMs(iso);
  return Number.isNaN(ms) ? iso : serialFromMs(ms);
}

/** Fields whose values are timestamps and become date serials. */
const TIME_FIELDS = new Set(["maturity", "maturity_at", "opened_at", "filled_at", "closed_at", "timestamp"]);

/** One value as a cell: timestamps as serials, null/missing as an empty cell, objects never (they are flattened first). */
export function toCell(field: string, value: unknown): Cell {
  if (value === null || value === undefined) return "";
  const leaf = field.slice(field.lastIndexOf(".") + 1);
  if (typeof value === "string" && TIME_FIELDS.has(leaf)) return excelSerial(value);
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  return JSON.stringify(value);
}

/** The value at a dotted path such as "pricing.execution_price". */
function valueAt(record: unknown, path: string): unknown {
  let current: unknown = record;
  for (const part of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export const QUOTE_FIELDS = [
  "market",
  "side",
  "notional_usd",
  "tenor_days",
  "maturity",
  "pricing.market_price",
  "pricing.execution_price",
  "pricing.price_impact_usd",
  "carry.daily_usdc",
  "carry.daily_rate_pct",
  "carry.total_usdc",
  "carry.total_rate_pct",
  "upfront.required_margin_usdc",
  "upfront.platform_fee_usdc",
  "upfront.total_upfront_usdc",
] as const;

const POSITION_FIELDS = [
  "market",
  "side",
  "size_usd",
  "collateral_usdc",
  "entry_price",
  "mark_price",
  "gross_pnl_usd",
  "accrued_carry_usd",
  "net_pnl_usd",
  "closing_fee_usd",
  "net_margin_usd",
  "maturity_at",
] as const;

export const ACCOUNT_FIELDS = [
  "account_address",
  "balance_usdc",
  "margin_used_usdc",
  "exposure_usd",
  "unrealized_pnl_usd",
  "open_positions",
  "max_exposure_usd",
  "available_exposure_usd",
] as const;

export const HEDGE_FIELDS = [
  "id",
  "client_reference",
  "market",
  "side",
  "notional_usd",
  "tenor_days",
  "status",
  "order_tx_hash",
  "fill_tx_hash",
  "struck_rate",
  "units",
  "order_key",
  "opened_at",
  "filled_at",
  "maturity_at",
] as const;

const MARKET_COLUMNS = [
  "market",
  "status",
  "price",
  "available_capacity_usd.buy",
  "available_capacity_usd.sell",
  "net_rate_daily_pct.buy",
  "net_rate_daily_pct.sell",
] as const;

/** A table: the header row of `fields`, then one row per record. */
export function table(records: readonly unknown[], fields: readonly string[]): Spill {
  return [[...fields], ...records.map((r) => fields.map((f) => toCell(f, valueAt(r, f))))];
}

/** Two columns: each field name and its value. */
export function fieldValues(record: unknown, fields: readonly string[]): Spill {
  return fields.map((f) => [f, toCell(f, valueAt(record, f))]);
}

/** One field's value as a cell. */
export function fieldCell(record: unknown, field: string): Cell {
  return toCell(field, valueAt(record, field));
}

export const quoteSpill = (quote: Quote): Spill => fieldValues(quote, QUOTE_FIELDS);
export const positionsTable = (positions: readonly Position[]): Spill => table(positions, POSITION_FIELDS);
export const accountSpill = (account: Account): Spill => fieldValues(account, ACCOUNT_FIELDS);
export const hedgeSpill = (hedge: Hedge): Spill => fieldValues(hedge, HEDGE_FIELDS);
export const hedgesTable = (hedges: readonly Hedge[]): Spill => table(hedges, HEDGE_FIELDS);
export const marketsTable = (markets: readonly Market[]): Spill => table(markets, MARKET_COLUMNS);
