// What each HEDGE.* function does: check its arguments, pick its topic and view, and select its cells from each update.
import type { Market, Meta, Prices, Side } from "../api/schemas";
import { ArgumentError } from "../feeds/feed-error";
import { allowedMarketsOf } from "../feeds/allowed-markets";
import {
  accountTopic,
  checkAllowedMarket,
  hedgeTopic,
  hedgesTopic,
  marketsTopic,
  positionsTopic,
  pricesTopic,
  quoteTopic,
} from "../feeds/topics";
import {
  hedgeIdArg,
  marketArg,
  notionalArg,
  optionalFieldArg,
  optionalLimitArg,
  optionalMarketArg,
  optionalReferenceArg,
  optionalSideArg,
  optionalStatusArg,
  sideArg,
  tenorArg,
} from "./args";
import {
  ACCOUNT_FIELDS,
  HEDGE_FIELDS,
  QUOTE_FIELDS,
  accountSpill,
  fieldCell,
  hedgeSpill,
  hedgesTable,
  marketsTable,
  positionsTable,
  quoteSpill,
  type Cell,
  type Spill,
} from "./cells";
import { statusSpill } from "./status";
import { Unavailable, cellErrorOfThrown, outcomeOf, type CellStreams, type Sink } from "./stream";

/** Runs a function body; anything it throws shows in the cell (a streaming function must never throw). */
function run<R>(streams: CellStreams, sink: Sink<R>, body: () => void): void {
  try {
    body();
  } catch (e) {
    streams.fail(sink, cellErrorOfThrown(e));
  }
}

/** One field as a 1×1 result, or every field as a two-column spill. */
function oneOrAll<T>(record: T, field: string | undefined, all: (record: T) => Spill): Spill {
  return field === undefined ? all(record) : [[fieldCell(record, field)]];
}

export function price(streams: CellStreams, sink: Sink<number>, market: unknown): void {
  run(streams, sink, () => {
    const m = marketArg(market);
    streams.open(sink, "price", pricesTopic(m), (s) => outcomeOf(s, (prices) => priceOf(prices, s.meta, m)));
  });
}

function priceOf(prices: Prices, meta: Meta, market: string): number {
  const entry = prices[market];
  if (entry) return entry.price;
  const rejected = Array.isArray(meta.rejected) ? meta.rejected : [];
  if (JSON.stringify(rejected).includes(`"${market}"`)) {
    throw new ArgumentError("market", `market "${market}" was rejected by the service (meta.rejected); check the symbol, e.g. "USDTNGN".`);
  }
  throw new Unavailable("price_unavailable", `GET /prices returned no price for ${market}.`);
}

export function quote(
  streams: CellStreams,
  sink: Sink<Spill>,
  market: unknown,
  side: unknown,
  notionalUsd: unknown,
  tenorDays: unknown,
  field: unknown,
): void {
  run(streams, sink, () => {
    const request = {
      market: marketArg(market),
      side: sideArg(side),
      notional_usd: notionalArg(notionalUsd),
      tenor_days: tenorArg(tenorDays),
    };
    const f = optionalFieldArg(field, QUOTE_FIELDS, "Quote");
    streams.open(sink, `quote|${f ?? "*"}`, quoteTopic(request), (s) => outcomeOf(s, (q) => oneOrAll(q, f, quoteSpill)));
  });
}

export function positions(streams: CellStreams, sink: Sink<Spill>, market: unknown, side: unknown): void {
  run(streams, sink, () => {
    const m = optionalMarketArg(market);
    const sd = optionalSideArg(side);
    if (m !== undefined) {
      checkAllowedMarket(streams.hub.knownAllowedMarkets(), m);
      // Learn the allowed markets (one cached GET /markets) so a market the account cannot use shows #VALUE!.
      streams.hub.allowedMarkets().catch(() => undefined);
    }
    streams.open(sink, `positions|${m ?? "*"}|${sd ?? "*"}`, positionsTopic(), (s) =>
      outcomeOf(s, (lines) => {
        if (m !== undefined) checkAllowedMarket(streams.hub.knownAllowedMarkets(), m);
        return positionsTable(lines.filter((p) => (m === undefined || p.market === m) && (sd === undefined || p.side === sd)));
      }),
    );
  });
}

export function account(streams: CellStreams, sink: Sink<Spill>, field: unknown): void {
  run(streams, sink, () => {
    const f = optionalFieldArg(field, ACCOUNT_FIELDS, "Account");
    streams.open(sink, `account|${f ?? "*"}`, accountTopic(), (s) => outcomeOf(s, (a) => oneOrAll(a, f, accountSpill)));
  });
}

export function markets(streams: CellStreams, sink: Sink<Spill>): void {
  run(streams, sink, () => {
    streams.open(sink, "markets", marketsTopic(), (s) => outcomeOf(s, (list) => marketsTable(list)));
  });
}

/** The market's entry in GET /markets; #VALUE! when the account may not use it or the service does not list it. */
function marketEntry(list: readonly Market[], meta: Meta, market: string): Market {
  checkAllowedMarket(allowedMarketsOf(meta), market);
  const found = list.find((m) => m.market === market);
  if (!found) {
    const listed = list.map((m) => m.market).join(", ") || "none";
    throw new ArgumentError("market", `market "${market}" is not listed by the service; markets: ${listed}.`);
  }
  return found;
}

function perSide(
  streams: CellStreams,
  sink: Sink<number>,
  name: string,
  market: unknown,
  side: unknown,
  pick: (m: Market, side: Side) => number,
): void {
  run(streams, sink, () => {
    const m = marketArg(market);
    const sd = sideArg(side);
    streams.open(sink, `${name}|${m}|${sd}`, marketsTopic(), (s) => outcomeOf(s, (list) => pick(marketEntry(list, s.meta, m), sd)));
  });
}

export function capacity(streams: CellStreams, sink: Sink<number>, market: unknown, side: unknown): void {
  perSide(streams, sink, "capacity", market, side, (m, sd) => m.available_capacity_usd[sd]);
}

export function carry(streams: CellStreams, sink: Sink<number>, market: unknown, side: unknown): void {
  perSide(streams, sink, "carry", market, side, (m, sd) => m.net_rate_daily_pct[sd]);
}

export function hedges(streams: CellStreams, sink: Sink<Spill>, status: unknown, clientReference: unknown, limit: unknown): void {
  run(streams, sink, () => {
    const query = {
      status: optionalStatusArg(status),
      client_reference: optionalReferenceArg(clientReference),
      limit: optionalLimitArg(limit),
    };
    streams.open(sink, "hedges", hedgesTopic(query), (s) => outcomeOf(s, (list) => hedgesTable(list)));
  });
}

export function hedge(streams: CellStreams, sink: Sink<Spill>, hedgeId: unknown, field: unknown): void {
  run(streams, sink, () => {
    const id = hedgeIdArg(hedgeId);
    const f = optionalFieldArg(field, HEDGE_FIELDS, "Hedge");
    streams.open(sink, `hedge|${f ?? "*"}`, hedgeTopic(id), (s) => outcomeOf(s, (h) => oneOrAll(h, f, hedgeSpill)));
  });
}

export function status(streams: CellStreams, sink: Sink<Spill>): void {
  run(streams, sink, () => {
    streams.openStatus(sink, statusSpill);
    // Check the connection once (the cached allowed-markets lookup) so STATUS alone in a workbook still says whether it works.
    streams.hub.allowedMarkets().catch(() => undefined);
  });
}

export type { Cell, Spill };
