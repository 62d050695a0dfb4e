// Quotes and pricing: mids and marks from the price walk, the markets an account may trade, their capacity, GET /prices, GET /markets and POST /quotes.
import type { Environment } from "../api/environment";
import type { Market, Prices, Quote, QuoteRequest, Side } from "../api/schemas";
import { expectedNotional, type HedgeBooks } from "./books";
import { buildQuote, type Economics } from "./economics";
import { fromMicro, MICRO_PER_CENT, toMicro, type Micro } from "./money";
import { PriceFeed, type MarketConfig } from "./pricing";
import type { Scheduler } from "./scheduler";
import { fail, ok, type AccountState, type Outcome } from "./state";

export interface PricesResult {
  data: Prices;
  meta: { allowed_markets: string[]; rejected: Array<{ market: string; code: string; message: string }> };
}

const MIN_NOTIONAL: Micro = MICRO_PER_CENT;

/** A notional in micro-USD, or the 400 naming its field when under a cent. */
export function notionalOf(value: number, field: string): Outcome<Micro> {
  const micro = toMicro(value);
  return micro < MIN_NOTIONAL
    ? fail("validation_error", `${field} must be at least 0.01.`, { fields: { [field]: "must be at least 0.01" } })
    : ok(micro);
}

export class QuoteDesk {
  private readonly feed: PriceFeed;

  constructor(
    private readonly books: HedgeBooks,
    private readonly economics: Economics,
    /** Tells whether the price feed is down (and since when). */
    private readonly conditions: Pick<Scheduler, "priceUnavailable" | "priceDownSince">,
    seed: number,
    priceOriginMs: number,
  ) {
    this.feed = new PriceFeed(seed, priceOriginMs, [...books.markets.values()]);
  }

  private get markets(): ReadonlyMap<string, MarketConfig> {
    return this.books.markets;
  }

  /** Mid rate at a clock time. */
  midAt(symbol: string, time: number): number {
    return this.feed.at(symbol, time).price;
  }

  /** Mid rate used for marks: frozen at the start of a price outage. */
  mark(symbol: string, now: number): number {
    return this.feed.at(symbol, this.conditions.priceDownSince ?? now).price;
  }

  /** The quote of an accepted open or a POST /quotes, at the mid of `now`. */
  quoteAt(market: MarketConfig, side: Side, notional: Micro, tenorDays: QuoteRequest["tenor_days"], now: number): Quote {
    return buildQuote(this.economics, market, side, notional, tenorDays, this.midAt(market.symbol, now), now);
  }

  allowedMarkets(acct: AccountState): string[] {
    return acct.config.allowed_markets.filter((m) => this.markets.has(m));
  }

  tradable(acct: AccountState, symbol: string): Outcome<MarketConfig> {
    const market = this.markets.get(symbol);
    if (!market || !acct.config.allowed_markets.includes(symbol)) {
      return fail(
        "market_not_allowed",
        `Market ${symbol} is not enabled for this account; enabled: ${this.allowedMarkets(acct).join(", ") || "none"}.`,
      );
    }
    return ok(market);
  }

  priceCheck(): Outcome<true> {
    return this.conditions.priceUnavailable
      ? fail("price_unavailable", "The price feed is temporarily unavailable; retry shortly.")
      : ok(true);
  }

  prices(acct: AccountState, requested: string[] | null, now: number): Outcome<PricesResult> {
    const price = this.priceCheck();
    if (!price.ok) return price;
    const allowed = this.allowedMarkets(acct);
    const data: Prices = {};
    const rejected: PricesResult["meta"]["rejected"] = [];
    for (const symbol of requested ?? allowed) {
      const market = this.markets.get(symbol);
      if (market && acct.config.allowed_markets.includes(symbol)) {
        const point = this.feed.at(symbol, now);
        data[symbol] = { pair: market.pair, price: point.price, timestamp: point.timestamp };
      } else if (!rejected.some((r) => r.market === symbol)) {
        rejected.push({
          market: symbol,
          code: "market_not_allowed",
          message: market ? "Market not enabled for this account." : "Unknown market.",
        });
      }
    }
    return ok({ data, meta: { allowed_markets: allowed, rejected } });
  }

  perHedgeLimit(acct: AccountState): Micro {
    return toMicro(acct.config.per_hedge_limit_usd ?? this.economics.per_hedge_limit_usd);
  }

  /** What is left of a market side's open interest for an environment. */
  marketHeadroom(env: Environment, market: MarketConfig, side: Side): Micro {
    return Math.max(0, toMicro(market.headroom_usd) - this.books.openInterest(env, market.symbol, side));
  }

  private capacity(acct: AccountState, market: MarketConfig, side: Side): Micro {
    const existing = this.books.openHedge(acct, market.symbol, side);
    const perHedge = this.perHedgeLimit(acct) - (existing ? expectedNotional(existing) : 0);
    return Math.max(0, Math.min(this.marketHeadroom(acct.env, market, side), perHedge));
  }

  marketList(acct: AccountState, now: number): { data: Market[]; meta: { allowed_markets: string[]; source: string } } {
    const data = [...this.markets.values()].map((m) => ({
      market: m.symbol,
      status: this.conditions.priceUnavailable ? "halted" : "open",
      price: this.mark(m.symbol, now),
      available_capacity_usd: { buy: fromMicro(this.capacity(acct, m, "buy")), sell: fromMicro(this.capacity(acct, m, "sell")) },
      net_rate_daily_pct: { ...m.net_rate_daily_pct },
    }));
    return { data, meta: { allowed_markets: this.allowedMarkets(acct), source: acct.env } };
  }

  quote(acct: AccountState, req: QuoteRequest, now: number): Outcome<Quote> {
    const notional = notionalOf(req.notional_usd, "notional_usd");
    if (!notional.ok) return notional;
    const market = this.tradable(acct, req.market);
    if (!market.ok) return market;
    const price = this.priceCheck();
    if (!price.ok) return price;
    return ok(this.quoteAt(market.data, req.side, notional.data, req.tenor_days, now));
  }
}
