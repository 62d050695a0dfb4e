// A scripted stand-in for HedgingClient (the FeedClient part) and a switchable client source, for hub and function unit tests.
import { HedgingApiError } from "../../src/api/errors";
import type { Account, Hedge, ListQuery, Market, Position, Prices, Quote, QuoteRequest } from "../../src/api/schemas";
import type { ApiResult, TradeEvent } from "../../src/api/sender";
import type { FlowState } from "../../src/api/throttle";
import type { ClientSource } from "../../src/feeds/hub";
import type { FeedClient } from "../../src/feeds/topic";

type Method = "markets" | "prices" | "account" | "positions" | "quote" | "list" | "get" | "history";

export const ALLOWED = ["USDTNGN"];

export function market(overrides: Partial<Market> = {}): Market {
  return {
    market: "USDTNGN",
    status: "open",
    price: 1502.35,
    available_capacity_usd: { buy: 250_000, sell: 180_000 },
    net_rate_daily_pct: { buy: 0.0123, sell: -0.0045 },
    ...overrides,
  };
}

export function position(overrides: Partial<Position> = {}): Position {
  return {
    market: "USDTNGN",
    side: "buy",
    size_usd: 10_000,
    collateral_usdc: 1_050,
    entry_price: 1500,
    mark_price: 1502.35,
    gross_pnl_usd: 15.64,
    accrued_carry_usd: -1.23,
    net_pnl_usd: 14.41,
    closing_fee_usd: 5,
    net_margin_usd: 1_059.41,
    maturity_at: "2025-01-13T09:00:00Z",
    ...overrides,
  };
}

export function account(overrides: Partial<Account> = {}): Account {
  return {
    account_address: "0xabc",
    balance_usdc: 50_000,
    margin_used_usdc: 1_050,
    exposure_usd: 10_000,
    unrealized_pnl_usd: 14.41,
    open_positions: 1,
    max_exposure_usd: 1_000_000,
    available_exposure_usd: 990_000,
    ...overrides,
  };
}

export function hedgeRecord(overrides: Partial<Hedge> = {}): Hedge {
  return {
    id: "h_1",
    client_reference: "DEAL-1",
    market: "USDTNGN",
    side: "buy",
    notional_usd: 10_000,
    tenor_days: 7,
    status: "filled",
    order_tx_hash: "0xorder",
    fill_tx_hash: "0xfill",
    struck_rate: 1500,
    units: 6.67,
    order_key: "k1",
    opened_at: "2025-01-06T09:00:00Z",
    filled_at: "2025-01-06T09:00:03Z",
    maturity_at: "2025-01-13T09:00:00Z",
    ...overrides,
  };
}

/** A quote priced from the request, so distinct questions get distinct answers. */
export function quoteFor(request: QuoteRequest, rate = 1502.35): Quote {
  const daily = request.notional_usd * 0.000123;
  return {
    market: request.market,
    side: request.side,
    notional_usd: request.notional_usd,
    tenor_days: request.tenor_days,
    maturity: "2025-01-13T09:00:00Z",
    pricing: { market_price: rate, execution_price: rate * 1.001, price_impact_usd: -request.notional_usd * 0.001 },
    carry: {
      daily_usdc: daily,
      daily_rate_pct: 0.0123,
      total_usdc: daily * request.tenor_days,
      total_rate_pct: 0.0123 * request.tenor_days,
    },
    upfront: {
      required_margin_usdc: request.notional_usd * 0.1,
      platform_fee_usdc: 10,
      total_upfront_usdc: request.notional_usd * 0.1 + 10,
    },
  };
}

export function apiError(code: string, status: number | null, message = `${code} from the fake`): HedgingApiError {
  return new HedgingApiError({ code, status, message });
}

export interface FakeCall {
  method: Method;
  args: unknown[];
  /** "poll" when made through polling() (as the hub does), else "action". */
  kind: "action" | "poll";
  /** The abort signal the caller passed, if any. */
  signal?: AbortSignal;
}

export class FakeClient implements FeedClient {
  readonly calls: FakeCall[] = [];
  /** What flowState() reports as the learned rate (the hub's budget follows it). */
  ratePerSecond = 5;
  rateLimitedInLastMinute = 0;
  private kind: "action" | "poll" = "action";
  private pollView: FakeClient | null = null;
  private readonly tradeListeners = new Set<(event: TradeEvent) => void>();
  private gate: Promise<void> | null = null;
  allowed: string[] | undefined = [...ALLOWED];
  rate = 1502.35;
  markets_: Market[] = [market()];
  positions_: Position[] = [position()];
  account_: Account = account();
  hedges_: Hedge[] = [hedgeRecord()];
  private readonly failures = new Map<Method, HedgingApiError[]>();
  private readonly always = new Map<Method, HedgingApiError>();

  constructor(readonly environment: "sandbox" | "production" = "sandbox") {}

  count(method?: Method): number {
    return method ? this.calls.filter((c) => c.method === method).length : this.calls.length;
  }

  /** The next `times` calls of `method` fail with `error`. */
  failNext(method: Method, error: HedgingApiError, times = 1): void {
    this.failures.set(method, [...(this.failures.get(method) ?? []), ...Array<HedgingApiError>(times).fill(error)]);
  }

  /** Every call of `method` fails with `error` until cleared with null. */
  failAlways(method: Method, error: HedgingApiError | null): void {
    if (error) this.always.set(method, error);
    else this.always.delete(method);
  }

  requestsInLastMinute(): number {
    return this.calls.length;
  }

  flowState(): FlowState {
    return {
      ratePerSecond: this.ratePerSecond,
      adaptive: true,
      probing: false,
      learnedLimitPerSecond: null,
      rateLimitedInLastMinute: this.rateLimitedInLastMinute,
      waiting: { trade: 0, feed: 0 },
      inFlight: 0,
    };
  }

  /** Like HedgingClient.polling(): the same fake (same calls, answers and failures) whose calls are recorded as polls. */
  polling(): FakeClient {
    if (this.kind === "poll") return this;
    if (!this.pollView) {
      const view = Object.create(this) as FakeClient;
      view.kind = "poll";
      view.pollView = view;
      this.pollView = view;
    }
    return this.pollView;
  }

  onTrade(listener: (event: TradeEvent) => void): () => void {
    this.tradeListeners.add(listener);
    return () => this.tradeListeners.delete(listener);
  }

  /** What the real client does after an open, add, reduce or close went through. */
  trade(path = "/hedges"): void {
    for (const listener of this.tradeListeners) listener({ path, idempotencyKey: `k-${this.calls.length}`, ok: true });
  }

  /** Calls made from now on wait until the returned function is called (to catch a request in flight). */
  hold(): () => void {
    let release: () => void = () => undefined;
    this.gate = new Promise<void>((resolve) => (release = resolve));
    return () => {
      this.gate = null;
      release();
    };
  }

  markets(signal?: AbortSignal) {
    return this.answer("markets", [], () => ({ data: this.markets_, meta: this.meta({ source: "fake" }) }), signal);
  }

  prices(marketSymbol: string, signal?: AbortSignal) {
    return this.answer(
      "prices",
      [marketSymbol],
      () => {
        const known = this.markets_.some((m) => m.market === marketSymbol);
        const data: Prices = known ? { [marketSymbol]: { pair: marketSymbol, price: this.rate, timestamp: "2025-01-06T09:00:00Z" } } : {};
        return { data, meta: this.meta({ rejected: known ? [] : [marketSymbol] }) };
      },
      signal,
    );
  }

  account(signal?: AbortSignal) {
    return this.answer("account", [], () => ({ data: this.account_, meta: { source: "fake" } }), signal);
  }

  positions(signal?: AbortSignal) {
    return this.answer("positions", [], () => ({ data: this.positions_, meta: { source: "fake" } }), signal);
  }

  quote(request: QuoteRequest, signal?: AbortSignal) {
    return this.answer("quote", [request], () => ({ data: quoteFor(request, this.rate), meta: { source: "fake" } }), signal);
  }

  list(query: ListQuery = {}, signal?: AbortSignal) {
    return this.answer(
      "list",
      [query],
      () => ({
        data: this.hedges_
          .filter(
            (h) =>
              (!query.status || h.status === query.status) && (!query.client_reference || h.client_reference === query.client_reference),
          )
          .slice(0, query.limit ?? 100),
        meta: {},
      }),
      signal,
    );
  }

  get(hedgeId: string, signal?: AbortSignal) {
    return this.answer(
      "get",
      [hedgeId],
      () => {
        const found = this.hedges_.find((h) => h.id === hedgeId);
        if (!found) throw apiError("hedge_not_found", 404, "No hedge with that id on the account.");
        return { data: found, meta: {} };
      },
      signal,
    );
  }

  history(_query?: unknown, signal?: AbortSignal) {
    return this.answer("history", [], () => ({ data: [], meta: {} }), signal);
  }

  private meta(extra: Record<string, unknown>): Record<string, unknown> {
    return this.allowed === undefined ? extra : { allowed_markets: this.allowed, ...extra };
  }

  private async answer<T>(method: Method, args: unknown[], make: () => ApiResult<T>, signal?: AbortSignal): Promise<ApiResult<T>> {
    this.calls.push({ method, args, kind: this.kind, signal });
    await Promise.resolve();
    if (this.gate) {
      // Held: wait for release, or stop at once when the caller aborts (as fetch does).
      const aborted = new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true }));
      await Promise.race([this.gate, aborted]);
    }
    if (signal?.aborted) throw signal.reason;
    const queued = this.failures.get(method);
    if (queued && queued.length > 0) throw queued.shift();
    const always = this.always.get(method);
    if (always) throw always;
    return structuredClone(make());
  }
}

/** A connection stand-in: the current client and its change listeners. */
export class FakeSource implements ClientSource {
  private readonly listeners = new Set<(client: FeedClient | null) => void>();

  constructor(public client: FeedClient | null) {}

  onChange(listener: (client: FeedClient | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  set(client: FeedClient | null): void {
    this.client = client;
    for (const listener of this.listeners) listener(client);
  }
}
