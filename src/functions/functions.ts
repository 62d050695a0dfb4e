// The HEDGE.* custom functions, registered as the page starts (ids and help text for functions.json come from these JSDoc tags; webpack points each helpUrl at help.html); each hands its cell to the work of engine.ts, an entry of its own (handoff.ts).
/* eslint-disable @typescript-eslint/no-explicit-any -- custom-functions-metadata reads the type `any[][]` as a matrix of any values; an alias would hide it. */
import packageJson from "../../package.json";
import { withWork, type WaitingCell } from "./handoff";
import type { Work } from "./engine";

/**
 * Hands a cell to the functions' work. This file imports nothing heavier (the page registers the functions before
 * the client, the feeds and zod have run); a cell calculated before engine.ts has run waits for it.
 */
function send(cell: WaitingCell, call: (work: Work) => void): void {
  withWork<Work>(cell, call);
}

/**
 * Latest indicative mid rate of a market, updated while the workbook is open (GET /prices).
 * @customfunction PRICE
 * @param market Market symbol, e.g. "USDTNGN".
 * @param invocation Streaming invocation.
 */
export function price(market: string, invocation: CustomFunctions.StreamingInvocation<number>): void {
  send(invocation, (w) => w.price(invocation, market));
}

/**
 * Indicative quote for a hedge: one field, or without field a two-column spill of every quote field (POST /quotes; nothing is opened).
 * @customfunction QUOTE
 * @param market Market symbol, e.g. "USDTNGN".
 * @param side "buy" or "sell".
 * @param notional_usd Hedge size in USD, greater than 0.
 * @param tenor_days Tenor in days: 1, 3 or 7.
 * @param [field] Optional quote field, e.g. "pricing.execution_price", "carry.total_usdc" or "upfront.total_upfront_usdc"; leave out for all fields.
 * @param invocation Streaming invocation.
 */
export function quote(
  market: string,
  side: string,
  notional_usd: number,
  tenor_days: number,
  field: string | undefined,
  invocation: CustomFunctions.StreamingInvocation<any[][]>,
): void {
  send(invocation, (w) => w.quote(invocation, market, side, notional_usd, tenor_days, field));
}

/**
 * Open positions, one row per market and side, with a header row (GET /positions).
 * @customfunction POSITIONS
 * @param [market] Optional market symbol to show only that market.
 * @param [side] Optional "buy" or "sell" to show only that side.
 * @param invocation Streaming invocation.
 */
export function positions(
  market: string | undefined,
  side: string | undefined,
  invocation: CustomFunctions.StreamingInvocation<any[][]>,
): void {
  send(invocation, (w) => w.positions(invocation, market, side));
}

/**
 * Account summary: one field, or without field a two-column spill of every field (GET /account).
 * @customfunction ACCOUNT
 * @param [field] Optional account field, e.g. "balance_usdc" or "available_exposure_usd"; leave out for all fields.
 * @param invocation Streaming invocation.
 */
export function account(field: string | undefined, invocation: CustomFunctions.StreamingInvocation<any[][]>): void {
  send(invocation, (w) => w.account(invocation, field));
}

/**
 * Every market with its status, price, available capacity per side (USD) and daily carry rate per side (%), with a header row (GET /markets).
 * @customfunction MARKETS
 * @param invocation Streaming invocation.
 */
export function markets(invocation: CustomFunctions.StreamingInvocation<any[][]>): void {
  send(invocation, (w) => w.markets(invocation));
}

/**
 * Most you can open now on a market and side, in USD (GET /markets: available_capacity_usd).
 * @customfunction CAPACITY
 * @param market Market symbol, e.g. "USDTNGN".
 * @param side "buy" or "sell".
 * @param invocation Streaming invocation.
 */
export function capacity(market: string, side: string, invocation: CustomFunctions.StreamingInvocation<number>): void {
  send(invocation, (w) => w.capacity(invocation, market, side));
}

/**
 * Daily carry rate of a market and side, in percent of notional, signed; positive means you pay (GET /markets: net_rate_daily_pct).
 * @customfunction CARRY
 * @param market Market symbol, e.g. "USDTNGN".
 * @param side "buy" or "sell".
 * @param invocation Streaming invocation.
 */
export function carry(market: string, side: string, invocation: CustomFunctions.StreamingInvocation<number>): void {
  send(invocation, (w) => w.carry(invocation, market, side));
}

/**
 * Your hedges, newest first, one row each with a header row (GET /hedges).
 * @customfunction HEDGES
 * @param [status] Optional status filter: submitting, submitted, filled, failed or closed.
 * @param [client_reference] Optional deal id: only hedges opened with this client reference.
 * @param [limit] Optional number of hedges, 1 to 500 (the service's default when left out).
 * @param invocation Streaming invocation.
 */
export function hedges(
  status: string | undefined,
  client_reference: string | undefined,
  limit: number | undefined,
  invocation: CustomFunctions.StreamingInvocation<any[][]>,
): void {
  send(invocation, (w) => w.hedges(invocation, status, client_reference, limit));
}

/**
 * One hedge by id: one field, or without field a two-column spill; stops updating once the hedge is closed or failed (GET /hedges/{hedge_id}).
 * @customfunction HEDGE
 * @param hedge_id The hedge's id, as returned when it was opened.
 * @param [field] Optional hedge field, e.g. "status", "struck_rate" or "filled_at"; leave out for all fields.
 * @param invocation Streaming invocation.
 */
export function hedge(hedge_id: string, field: string | undefined, invocation: CustomFunctions.StreamingInvocation<any[][]>): void {
  send(invocation, (w) => w.hedge(invocation, hedge_id, field));
}

/**
 * State of the add-in's connection: environment (sandbox or live), connected or not and why, last successful update, requests in the last minute, the request rate allowed now and 429s in the last minute, paused or not.
 * @customfunction STATUS
 * @param invocation Streaming invocation.
 */
export function status(invocation: CustomFunctions.StreamingInvocation<any[][]>): void {
  send(invocation, (w) => w.status(invocation));
}

/**
 * Closed hedges with realized P&L, carry and fees, newest first, with a header row; the window filters on closed_at (GET /hedges/history, refreshed every minute).
 * @customfunction HISTORY
 * @param [from] Optional start of the window (UTC): an Excel date such as DATE(2026,11,1), or ISO text such as "2026-11-01".
 * @param [to] Optional end of the window (UTC): a date alone includes that whole day; a date with a time ends just before it.
 * @param invocation Streaming invocation.
 */
export function history(from: any, to: any, invocation: CustomFunctions.StreamingInvocation<any[][]>): void {
  send(invocation, (w) => w.history(invocation, from, to));
}

/**
 * Hedge to target: the Open, Add, Reduce, Close and roll rows that bring your hedges to the policy's targets, with a header row; places no orders (trade them from the pane).
 * @customfunction TARGET
 * @param exposures Range with a header row: Market, Side (the hedge side that offsets the exposure: buy or sell), Amount (USD), and optionally Value date (a row counts until then).
 * @param policy Range with a header row: Market (* for every other market), Hedge ratio (%), Tenor (days), and optionally Round to (USD), Min trade (USD), Max trade (USD), Net sides (yes/no), Roll within (hours), Roll (at maturity/early), Working days (e.g. Mon-Fri).
 * @param [positions] Optional range with Market, Side, Size (USD) and optionally Maturity, e.g. the =HEDGE.POSITIONS() spill; leave out for the live positions.
 * @param [as_of] Optional instant of the proposal, an Excel date-time in UTC; leave out for now.
 * @param invocation Streaming invocation.
 * @requiresParameterAddresses
 */
export function target(
  exposures: any[][],
  policy: any[][],
  positions: any[][], // optional by its JSDoc; not `any[][] | undefined`, which functions.json would declare a scalar
  as_of: any,
  invocation: CustomFunctions.StreamingInvocation<any[][]>,
): void {
  send(invocation, (w) => w.target(invocation, exposures, policy, positions, invocation.parameterAddresses ?? [], as_of));
}

/**
 * The cost of staying hedged for a number of days as the desk runs it (the tenor rule, rolled at maturity or early, split by Max trade): hedges, tenors used, fees, carry, price impact, total and yearly rate, early closes and their exit impact, and a warning row when the notional is above the capacity or headroom, from one quote per question (POST /quotes, shared with HEDGE.QUOTE).
 * @customfunction ROLLCOST
 * @param market Market symbol, e.g. "USDTNGN".
 * @param side Hedge side: "buy" or "sell".
 * @param notional_usd Hedge size in USD, greater than 0.
 * @param days How many days to stay hedged: a whole number from 1 to 3650, e.g. 90.
 * @param [tenor_days] Optional longest tenor: 1, 3 or 7 (default 7); the last hedges are shorter when fewer days are left (10 days at 7: 7 + 3).
 * @param [roll] Optional roll mode, as the policy's Roll: "at maturity" (default; each hedge held to maturity) or "early" (closed Roll within before it).
 * @param [roll_within_hours] Optional hours before a maturity when an early roll is made, 0 to 24 (default 24), as the policy's Roll within.
 * @param [max_trade_usd] Optional largest USD amount of one trade, as the policy's Max trade: each hedge is priced as its Open and Adds.
 * @param invocation Streaming invocation.
 */
export function rollcost(
  market: string,
  side: string,
  notional_usd: number,
  days: number,
  tenor_days: number | undefined,
  roll: string | undefined,
  roll_within_hours: number | undefined,
  max_trade_usd: number | undefined,
  invocation: CustomFunctions.StreamingInvocation<any[][]>,
): void {
  send(invocation, (w) => w.rollcost(invocation, market, side, notional_usd, days, tenor_days, roll, roll_within_hours, max_trade_usd));
}

/**
 * Version of the Hedge add-in, for support requests; recalculated with the workbook, so it shows the running version after an update.
 * @customfunction VERSION
 * @volatile
 * @returns The add-in version, for example "0.1.0".
 */
export function version(): string {
  return packageJson.version;
}
