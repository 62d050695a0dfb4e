// Checks and normalises custom-function arguments before anything is sent; a bad one is an ArgumentError naming it and what is allowed.
import { roundToCent } from "../api/cents";
import { HEDGE_STATUSES, LIST_LIMIT_MAX, SIDES, TENORS, type HedgeStatus, type Side, type Tenor } from "../api/schemas";
import { ArgumentError } from "../feeds/feed-error";

/** Excel passes an omitted optional argument as null (older hosts: undefined); an empty cell or "" counts as omitted too. */
export function isOmitted(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
}

function shown(value: unknown): string {
  return typeof value === "string" ? `"${value}"` : String(value);
}

function text(value: unknown, name: string, example: string): string {
  if (isOmitted(value)) throw new ArgumentError(name, `${name} is required, e.g. ${example}.`);
  if (typeof value !== "string" && typeof value !== "number") throw new ArgumentError(name, `${name} must be text, e.g. ${example}.`);
  return String(value).trim();
}

/** A market symbol, upper-cased ("usdtngn" → "USDTNGN"). Whether the account may use it is checked against meta.allowed_markets later. */
export function marketArg(value: unknown, name = "market"): string {
  const market = text(value, name, `"USDTNGN"`).toUpperCase();
  if (!/^[A-Z0-9._-]{1,32}$/.test(market))
    throw new ArgumentError(name, `${name} ${shown(value)} is not a market symbol; use one such as "USDTNGN".`);
  return market;
}

export function optionalMarketArg(value: unknown, name = "market"): string | undefined {
  return isOmitted(value) ? undefined : marketArg(value, name);
}

export function sideArg(value: unknown, name = "side"): Side {
  const side = text(value, name, `"buy"`).toLowerCase();
  if (!(SIDES as readonly string[]).includes(side)) throw new ArgumentError(name, `${name} must be "buy" or "sell"; got ${shown(value)}.`);
  return side as Side;
}

export function optionalSideArg(value: unknown, name = "side"): Side | undefined {
  return isOmitted(value) ? undefined : sideArg(value, name);
}

function numberOf(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string" && value.trim() !== "") return Number(value.trim().replace(/[,_]/g, ""));
  return Number.NaN;
}

/** A USD amount, rounded to the cent as it is sent (src/api/cents.ts); one that rounds to 0.00 is refused. */
export function notionalArg(value: unknown, name = "notional_usd"): number {
  if (isOmitted(value)) throw new ArgumentError(name, `${name} is required: the hedge size in USD, greater than 0.`);
  const n = numberOf(value);
  if (!Number.isFinite(n) || n <= 0) throw new ArgumentError(name, `${name} must be a number of USD greater than 0; got ${shown(value)}.`);
  const cents = roundToCent(n);
  if (!(cents >= 0.01))
    throw new ArgumentError(name, `${name} must be at least 0.01 USD (amounts are sent to the cent); got ${shown(value)}.`);
  return cents;
}

export function tenorArg(value: unknown, name = "tenor_days"): Tenor {
  if (isOmitted(value)) throw new ArgumentError(name, `${name} is required: one of ${TENORS.join(", ")}.`);
  const n = numberOf(value);
  if (!(TENORS as readonly number[]).includes(n))
    throw new ArgumentError(name, `${name} must be one of ${TENORS.join(", ")} (days); got ${shown(value)}.`);
  return n as Tenor;
}

export function optionalStatusArg(value: unknown, name = "status"): HedgeStatus | undefined {
  if (isOmitted(value)) return undefined;
  const status = text(value, name, `"filled"`).toLowerCase();
  if (!(HEDGE_STATUSES as readonly string[]).includes(status)) {
    throw new ArgumentError(name, `${name} must be one of ${HEDGE_STATUSES.join(", ")}; got ${shown(value)}.`);
  }
  return status as HedgeStatus;
}

export function optionalReferenceArg(value: unknown, name = "client_reference"): string | undefined {
  return isOmitted(value) ? undefined : text(value, name, `"DEAL-2025-001"`);
}

export function optionalLimitArg(value: unknown, name = "limit"): number | undefined {
  if (isOmitted(value)) return undefined;
  const n = numberOf(value);
  if (!Number.isInteger(n) || n < 1 || n > LIST_LIMIT_MAX) {
    throw new ArgumentError(name, `${name} must be a whole number from 1 to ${LIST_LIMIT_MAX}; got ${shown(value)}.`);
  }
  return n;
}

export function hedgeIdArg(value: unknown, name = "hedge_id"): string {
  return text(value, name, "the id returned when the hedge was opened");
}

/**
 * One of `fields` (case-insensitive), or undefined when omitted. A nested field may be named by its last part alone
 * ("execution_price" for "pricing.execution_price") when that part names exactly one field.
 */
export function optionalFieldArg(value: unknown, fields: readonly string[], what: string, name = "field"): string | undefined {
  if (isOmitted(value)) return undefined;
  const wanted = text(value, name, `"${fields[0]}"`).toLowerCase();
  const bySuffix = fields.filter((f) => f.toLowerCase().endsWith(`.${wanted}`));
  const found = fields.find((f) => f.toLowerCase() === wanted) ?? (bySuffix.length === 1 ? bySuffix[0] : undefined);
  if (!found)
    throw new ArgumentError(
      name,
      `${name} ${shown(value)} is not a ${what} field; use one of ${fields.join(", ")}, or leave it out for all of them.`,
    );
  return found;
}
