// The topics the feeds poll, one per distinct request: the key names the request, fetch makes it.
import { allowedMarketsOf } from "./allowed-markets";
import type { Account, Hedge, HistoryQuery, ListQuery, Market, Position, Prices, Quote, QuoteRequest, ClosedHedge } from "../api/schemas";
import type { ApiResult } from "../api/sender";
import { ArgumentError } from "./feed-error";
import type { FetchContext, TopicSpec } from "./topic";

/** Throws an ArgumentError (shown as #VALUE!) when the account's allowed markets are known and exclude `market`. */
export async function requireAllowedMarket(context: FetchContext, market: string): Promise<void> {
  const allowed = await context.allowedMarkets();
  checkAllowedMarket(allowed, market);
}

export function checkAllowedMarket(allowed: readonly string[] | null, market: string): void {
  if (allowed && !allowed.includes(market)) {
    const list = allowed.length > 0 ? allowed.join(", ") : "none";
    throw new ArgumentError("market", `market "${market}" is not enabled for this account; allowed markets: ${list}.`);
  }
}

/**
 * GET /prices is asked at once, without waiting for the allowed markets (a read; its answer carries
 * meta.allowed_markets itself): a market a known list excludes is refused before the request, as before; else the
 * answer's own list is checked (the account's when it carries none), and a failed request checks the account's list
 * first, so a market outside it still fails as an argument error (src/functions/README.md "When the page starts").
 */
export function pricesTopic(market: string): TopicSpec<Prices> {
  return {
    key: `prices:${market}`,
    endpoint: "prices",
    async fetch(client, context) {
      checkAllowedMarket(context.knownAllowedMarkets(), market);
      let result: ApiResult<Prices>;
      try {
        result = await client.prices(market, context.signal);
      } catch (e) {
        checkAllowedMarket(await context.allowedMarkets().catch(() => null), market);
        throw e;
      }
      checkAllowedMarket(allowedMarketsOf(result.meta) ?? (await context.allowedMarkets()), market);
      return result;
    },
  };
}

export function quoteTopic(request: QuoteRequest): TopicSpec<Quote> {
  const { market, side, notional_usd, tenor_days } = request;
  return {
    key: `quote:${market}|${side}|${notional_usd}|${tenor_days}`,
    endpoint: "quote",
    async fetch(client, context) {
      await requireAllowedMarket(context, market);
      return client.quote({ market, side, notional_usd, tenor_days }, context.signal);
    },
  };
}

export function positionsTopic(): TopicSpec<Position[]> {
  return { key: "positions", endpoint: "positions", fetch: (client, context) => client.positions(context.signal) };
}

export function accountTopic(): TopicSpec<Account> {
  return { key: "account", endpoint: "account", fetch: (client, context) => client.account(context.signal) };
}

/** GET /markets: the source of HEDGE.MARKETS, HEDGE.CAPACITY and HEDGE.CARRY (and of the allowed markets). */
export function marketsTopic(): TopicSpec<Market[]> {
  return { key: "markets", endpoint: "markets", fetch: (client, context) => client.markets(context.signal) };
}

export function hedgesTopic(query: ListQuery): TopicSpec<Hedge[]> {
  const q: ListQuery = {};
  if (query.status !== undefined) q.status = query.status;
  if (query.client_reference !== undefined) q.client_reference = query.client_reference;
  if (query.limit !== undefined) q.limit = query.limit;
  return {
    key: `hedges:${q.status ?? ""}|${q.client_reference ?? ""}|${q.limit ?? ""}`,
    endpoint: "hedges",
    fetch: (client, context) => client.list(q, context.signal),
  };
}

/** Statuses after which a hedge never changes again: its topic stops polling. */
export const FINAL_HEDGE_STATUSES: readonly string[] = ["closed", "failed"];

export function hedgeTopic(hedgeId: string): TopicSpec<Hedge> {
  return {
    key: `hedge:${hedgeId}`,
    endpoint: "hedge",
    fetch: (client, context) => client.get(hedgeId, context.signal),
    isFinal: (hedge) => FINAL_HEDGE_STATUSES.includes(hedge.status),
  };
}

export function historyTopic(query: HistoryQuery = {}): TopicSpec<ClosedHedge[]> {
  return {
    key: `history:${query.from ?? ""}|${query.to ?? ""}|${query.limit ?? ""}`,
    endpoint: "history",
    fetch: (client, context) => client.history(query, context.signal),
  };
}
