// Zod schemas of Hedging Service v2 resources and request bodies: the single source of the client's and the sandbox's types.
import { en } from "zod/locales";
import * as z from "zod/mini";
import { lazySchema } from "./lazy-schema";
import { groupThousands } from "./digits";
import { serviceTime } from "./time";

// zod's small build (zod/mini) loads only the parts these schemas use, and no messages: the English ones are set here, so
// a bad field reads "Invalid input: expected number, received string" in the page, the sandbox and the tests alike.
// Its object schemas never compile a parser with `new Function`, so the page, whose Content-Security-Policy allows no
// eval, runs them as they are; `jitless` is set there all the same, before any schema is defined, so that nothing in
// zod even probes whether eval is allowed (the browser reports the probe as a violation).
z.config(en());
if (typeof (globalThis as { document?: unknown }).document !== "undefined") z.config({ jitless: true });

export const SIDES = ["buy", "sell"] as const;
export const TENORS = [1, 3, 7] as const;
export const HEDGE_STATUSES = ["submitting", "submitted", "filled", "failed", "closed"] as const;
/** Exit types of Closed-hedge records (the spec does not list them; see README "Service assumptions"). */
export const EXIT_TYPES = ["close", "decrease", "maturity"] as const;
export const LIST_LIMIT_MAX = 500;
export const LIST_LIMIT_DEFAULT = 100;

export type Side = (typeof SIDES)[number];
export type Tenor = (typeof TENORS)[number];
export type HedgeStatus = (typeof HEDGE_STATUSES)[number];

/**
 * A number as the service sends it. The spec says "number"; a decimal string ("1502.35") is accepted too,
 * since money APIs often send decimals as strings. Anything else is an invalid response.
 */
const num = z.union([
  z.number(), // zod 4's number is finite: Infinity and NaN are refused
  z.pipe(
    z.pipe(z.string().check(z.regex(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/, "expected a number")), z.transform(Number)),
    // "1e400" is a decimal string whose number is Infinity: not a number any amount can be.
    z.number(),
  ),
]);
const int = z.pipe(num, z.number().check(z.int()));
const TIME_ERROR = "must be an ISO 8601 timestamp (UTC unless it gives an offset), e.g. 2026-11-30T17:00:00Z";
const DATE_ERROR =
  "must be an ISO 8601 settlement date or timestamp (UTC unless it gives an offset), e.g. 2026-11-30 or 2026-11-30T17:00:00Z";
/**
 * A time as the service sends it, read by `serviceTime` (src/api/time.ts) and kept in one form: ISO 8601 with a UTC
 * offset as sent (`2026-11-30T17:00:00Z`, `…+01:00`), or, rewritten in UTC with seconds, the same without seconds or in
 * the basic format (`20261126T1402Z`) or without a zone (UTC, as the spec says every timestamp is); a settlement date
 * (`dateAlone`) may also be a date alone, read as midnight UTC. Anything else (`22/11/2026 20:00 UTC`, 30 February)
 * makes the answer invalid_response naming the field.
 * Read the value with `utcMs`, the one parser of times.
 */
const serviceTimeSchema = (dateAlone: boolean) => {
  const error = dateAlone ? DATE_ERROR : TIME_ERROR;
  return z.pipe(
    z.string({ error }),
    z.transform((text: string, ctx) => {
      const read = serviceTime(text, dateAlone);
      if (read !== null) return read;
      ctx.issues.push({ code: "invalid_format", format: "datetime", input: text, message: error });
      return z.NEVER;
    }),
  );
};
/** `opened_at`, `filled_at`, `closed_at`, a price's `timestamp`: a time. */
export const timestampSchema = serviceTimeSchema(false);
/** `maturity`, `maturity_at`: the spec says "settlement date", so a date alone is read too (midnight UTC). */
export const settlementDateSchema = serviceTimeSchema(true);
const timestamp = timestampSchema;
const settlementDate = settlementDateSchema;
const optionalString = z.nullish(z.string());
const optionalTimestamp = z.nullish(timestamp);
const optionalSettlementDate = z.nullish(settlementDate);
/** Known values are typed; an unknown future value is kept as a string rather than failing the response. */
const openEnum = <T extends readonly [string, ...string[]]>(values: T) => z.union([z.enum(values), z.string()]);

/**
 * A side in an answer: `buy` or `sell`, or a value the spec does not list, kept as text rather than failing the whole
 * answer (after a trade, the service has acted). Whatever reads it compares it with `buy` and `sell`: an unknown side
 * never matches a row, a position line or a policy of either side. Requests still send only `buy` or `sell`.
 */
export const answerSideSchema = z
  .string({ error: "must be a side as text (buy or sell)" })
  .check(z.minLength(1, "must be a side (buy or sell)"));
/** True for `buy` and `sell`: a side of an answer that a row, a position line or a policy can be compared with. */
export const isSide = (value: unknown): value is Side => value === "buy" || value === "sell";
export const hedgeStatusSchema = openEnum(HEDGE_STATUSES);

export const errorObjectSchema = lazySchema(() =>
  z.object({
    code: z.string(),
    message: z.string(),
    details: z.nullish(z.record(z.string(), z.unknown())),
  }),
);

export const metaSchema = z.record(z.string(), z.unknown());

/** The envelope around every response, before `data` is checked against the endpoint's schema. */
export const envelopeSchema = lazySchema(() =>
  z.object({
    data: z.optional(z.unknown()),
    error: z.nullish(errorObjectSchema),
    meta: z.pipe(
      z.nullish(metaSchema),
      z.transform((m) => m ?? {}),
    ),
  }),
);

export const hedgeSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    client_reference: optionalString,
    market: z.string(),
    side: answerSideSchema,
    notional_usd: num,
    tenor_days: int,
    status: hedgeStatusSchema,
    order_tx_hash: optionalString,
    fill_tx_hash: optionalString,
    struck_rate: z.nullish(num),
    units: z.nullish(num),
    order_key: optionalString,
    opened_at: optionalTimestamp,
    filled_at: optionalTimestamp,
    maturity_at: optionalSettlementDate,
  }),
);

export const quoteSchema = lazySchema(() =>
  z.object({
    market: z.string(),
    side: answerSideSchema,
    notional_usd: num,
    tenor_days: int,
    maturity: settlementDate,
    pricing: z.object({
      market_price: num,
      execution_price: num,
      price_impact_usd: num,
    }),
    carry: z.object({
      daily_usdc: num,
      daily_rate_pct: num,
      total_usdc: num,
      total_rate_pct: num,
    }),
    upfront: z.object({
      required_margin_usdc: num,
      platform_fee_usdc: num,
      total_upfront_usdc: num,
    }),
  }),
);

export const openHedgeResultSchema = lazySchema(() =>
  z.object({
    status: z.string(),
    order_tx_hash: optionalString,
    hedge_id: optionalString,
    client_reference: optionalString,
    collateral_usdc: num,
    maturity_at: optionalSettlementDate,
    quote: quoteSchema,
  }),
);

export const addResultSchema = lazySchema(() =>
  z.object({
    status: z.string(),
    order_tx_hash: optionalString,
    hedge_id: optionalString,
    market: z.string(),
    side: answerSideSchema,
    additional_notional_usd: num,
    collateral_usdc: z.nullish(num),
    new_notional_usd: z.nullish(num),
    maturity_at: optionalSettlementDate,
  }),
);

/**
 * POST /hedges/{hedge_id}/add: the spec does not show its answer. Read as POST /hedges/add's (an add result), or as the
 * hedge after the add (`id` and `notional_usd`, no `additional_notional_usd`); an answer that is neither is invalid,
 * naming the field of the shape it came closest to (a hedge when it has an `id` and no `additional_notional_usd`).
 */
export const addByIdResultSchema = lazySchema(() =>
  z.pipe(
    z.unknown(),
    z.transform((value: unknown, ctx): AddResult | Hedge => {
      const o = value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
      const asHedge = "id" in o && !("additional_notional_usd" in o);
      const read = z.safeParse<z.ZodMiniType<AddResult | Hedge>>(asHedge ? hedgeSchema : addResultSchema, value);
      if (read.success) return read.data;
      for (const { path, message } of read.error.issues) ctx.issues.push({ code: "custom", path, message, input: value });
      return z.NEVER;
    }),
  ),
);

/**
 * An add-by-id answer as an add result. From a hedge: its id, market, side and maturity, the amount asked as the amount
 * added, and `submitted` (the service accepted the add). Not taken from it: its `order_tx_hash` (the open's order, not the
 * add's) and its `notional_usd` (it may not include the add until the add fills), so both are null.
 */
export function addResultOf(answer: AddByIdResult, added: number): AddResult {
  if (!("id" in answer)) return answer;
  return {
    status: "submitted",
    order_tx_hash: null,
    hedge_id: answer.id,
    market: answer.market,
    side: answer.side,
    additional_notional_usd: added,
    collateral_usdc: null,
    new_notional_usd: null,
    maturity_at: answer.maturity_at,
  };
}

export const decreaseResultSchema = lazySchema(() =>
  z.object({
    status: z.string(),
    order_tx_hash: optionalString,
    hedge_id: optionalString,
    market: z.string(),
    side: answerSideSchema,
    reduced_notional_usd: num,
    new_notional_usd: z.nullish(num),
    maturity_at: optionalSettlementDate,
  }),
);

export const closeResultSchema = lazySchema(() =>
  z.object({
    status: z.string(),
    order_tx_hash: optionalString,
    /** Not in the spec's close result; the sandbox adds it so a close can be polled by id. */
    hedge_id: optionalString,
    market: z.string(),
    side: answerSideSchema,
  }),
);

export const positionSchema = lazySchema(() =>
  z.object({
    market: z.string(),
    side: answerSideSchema,
    size_usd: num,
    collateral_usdc: num,
    entry_price: num,
    mark_price: num,
    gross_pnl_usd: num,
    accrued_carry_usd: num,
    net_pnl_usd: num,
    closing_fee_usd: num,
    net_margin_usd: num,
    maturity_at: settlementDate,
  }),
);

export const closedHedgeSchema = lazySchema(() =>
  z.object({
    market: z.string(),
    side: answerSideSchema,
    size_usd: num,
    collateral_usdc: num,
    entry_price: num,
    exit_price: num,
    opened_at: timestamp,
    closed_at: timestamp,
    exit_type: openEnum(EXIT_TYPES),
    gross_pnl_usd: num,
    net_pnl_usd: num,
    carry_usd: num,
    fees_usd: num,
    /** Not in the spec's record; the sandbox adds both so month-end matching can use them when present. */
    hedge_id: optionalString,
    client_reference: optionalString,
  }),
);

export const accountSchema = lazySchema(() =>
  z.object({
    account_address: z.nullable(z.string()),
    balance_usdc: num,
    margin_used_usdc: num,
    exposure_usd: num,
    unrealized_pnl_usd: num,
    open_positions: int,
    max_exposure_usd: num,
    available_exposure_usd: num,
  }),
);

/**
 * The scopes of the key that asked, from `meta.key_scopes` of GET /account (beyond the spec, which does not show scope
 * names): lower-cased and trimmed; null (unknown) when the service does not say or says it in another shape.
 */
export function keyScopesOf(meta: Meta): string[] | null {
  const raw = meta.key_scopes;
  if (!Array.isArray(raw) || !raw.every((s): s is string => typeof s === "string")) return null;
  return raw.map((s) => s.trim().toLowerCase()).filter((s) => s !== "");
}

const perSide = z.object({ buy: num, sell: num });

export const marketSchema = lazySchema(() =>
  z.object({
    market: z.string(),
    status: z.string(),
    price: num,
    available_capacity_usd: perSide,
    net_rate_daily_pct: perSide,
  }),
);

export const priceEntrySchema = lazySchema(() =>
  z.object({
    pair: z.string(),
    price: num,
    timestamp,
  }),
);

export const pricesSchema = lazySchema(() => z.record(z.string(), priceEntrySchema));

// ---- request bodies (what the client sends and the sandbox checks) ----

/**
 * The largest amount a request may carry: far above any hedge the service allows (its per-hedge limits are in the
 * millions), and small enough that money kept in micro-units stays exact. A quote for 1e308 is a validation_error,
 * not an answer full of nulls.
 */
export const MAX_AMOUNT_USD = 1_000_000_000;
/**
 * "1,000,000,000": grouped by hand, not with toLocaleString, whose first call in a page starts the browser's number
 * formatting (ICU), tens of ms at load that the first values of the cells would wait for (issue 41).
 */
const MAX_AMOUNT_TEXT = groupThousands(String(MAX_AMOUNT_USD));
const positiveAmount = z
  .number()
  .check(z.positive("must be greater than 0"), z.maximum(MAX_AMOUNT_USD, `must be at most ${MAX_AMOUNT_TEXT} USD`));
const tenor = z.union(TENORS.map((t) => z.literal(t)) as [z.ZodMiniLiteral<1>, z.ZodMiniLiteral<3>, z.ZodMiniLiteral<7>], {
  error: "must be one of 1, 3, 7",
});
const marketSymbol = z.string().check(z.minLength(1, "must be a market symbol such as USDTNGN"));
const side = z.enum(SIDES, { error: "must be buy or sell" });

export const quoteRequestSchema = lazySchema(() =>
  z.object({
    market: marketSymbol,
    side,
    notional_usd: positiveAmount,
    tenor_days: tenor,
  }),
);

export const openRequestSchema = lazySchema(() =>
  z.extend(quoteRequestSchema, {
    client_reference: z.nullish(z.string().check(z.maxLength(128, "must be at most 128 characters"))),
  }),
);

export const addRequestSchema = lazySchema(() =>
  z.object({
    market: marketSymbol,
    side,
    additional_notional_usd: positiveAmount,
  }),
);

export const addByIdRequestSchema = lazySchema(() =>
  z.object({
    additional_notional_usd: positiveAmount,
  }),
);

export const decreaseRequestSchema = lazySchema(() =>
  z.object({
    market: marketSymbol,
    side,
    reduce_notional_usd: positiveAmount,
  }),
);

export const closeRequestSchema = lazySchema(() =>
  z.object({
    market: marketSymbol,
    side,
  }),
);

const listLimit = z
  .number()
  .check(
    z.int("must be a whole number"),
    z.minimum(1, "must be at least 1"),
    z.maximum(LIST_LIMIT_MAX, `must be at most ${LIST_LIMIT_MAX}`),
  );
const isoTimestamp = z.iso.datetime({ offset: true, error: "must be an ISO 8601 UTC timestamp" });

export const listQuerySchema = lazySchema(() =>
  z.object({
    status: z.optional(z.enum(HEDGE_STATUSES, { error: `must be one of ${HEDGE_STATUSES.join(", ")}` })),
    client_reference: z.optional(z.string().check(z.minLength(1))),
    limit: z.optional(listLimit),
    /** Paging (not in the spec; see README "Service assumptions"): hedges listed after this hedge id, newest first. */
    starting_after: z.optional(z.string().check(z.minLength(1))),
  }),
);

export const historyQuerySchema = lazySchema(() =>
  z.object({
    from: z.optional(isoTimestamp),
    to: z.optional(isoTimestamp),
    limit: z.optional(listLimit),
  }),
);

export type ErrorObject = z.infer<typeof errorObjectSchema>;
export type Meta = z.infer<typeof metaSchema>;
export type Hedge = z.infer<typeof hedgeSchema>;
export type Quote = z.infer<typeof quoteSchema>;
export type OpenHedgeResult = z.infer<typeof openHedgeResultSchema>;
export type AddResult = z.infer<typeof addResultSchema>;
export type AddByIdResult = z.infer<typeof addByIdResultSchema>;
export type DecreaseResult = z.infer<typeof decreaseResultSchema>;
export type CloseResult = z.infer<typeof closeResultSchema>;
export type Position = z.infer<typeof positionSchema>;
export type ClosedHedge = z.infer<typeof closedHedgeSchema>;
export type Account = z.infer<typeof accountSchema>;
export type Market = z.infer<typeof marketSchema>;
export type PriceEntry = z.infer<typeof priceEntrySchema>;
export type Prices = z.infer<typeof pricesSchema>;
export type QuoteRequest = z.infer<typeof quoteRequestSchema>;
export type OpenRequest = z.infer<typeof openRequestSchema>;
export type AddRequest = z.infer<typeof addRequestSchema>;
export type AddByIdRequest = z.infer<typeof addByIdRequestSchema>;
export type DecreaseRequest = z.infer<typeof decreaseRequestSchema>;
export type CloseRequest = z.infer<typeof closeRequestSchema>;
export type ListQuery = z.infer<typeof listQuerySchema>;
export type HistoryQuery = z.infer<typeof historyQuerySchema>;

/** "pricing.execution_price" style paths of a zod issue, as the spec's field names read. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map(String).join(".") || "(root)";
}

/** Field errors as `{ "notional_usd": "must be greater than 0" }`, the shape of `details.fields`; `input` is what was checked. */
export function fieldErrors(error: z.core.$ZodError, input?: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issuePath(issue.path);
    const missing = input !== undefined && valueAt(input, issue.path) === undefined; // at the root (no path), valueAt is the input itself
    if (!(key in fields)) fields[key] = missing ? "is required" : issue.message;
  }
  return fields;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
