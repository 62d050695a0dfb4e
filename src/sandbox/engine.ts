// The sandbox's state machine: hedges and their queued orders, fills, maturity, positions, history and money (accounts and keys: account-book.ts; the tests' dump: state-dump.ts). Over 600 lines because every change and every view reads the same private books (open interest, capacity, the order queue), which a split would expose.
import { randomBytes } from "node:crypto";
import type { Environment } from "../api/environment";
import { utcMs } from "../api/time";
import type {
  Account,
  AddByIdRequest,
  AddRequest,
  AddResult,
  ClosedHedge,
  CloseRequest,
  CloseResult,
  DecreaseRequest,
  DecreaseResult,
  Hedge,
  HistoryQuery,
  ListQuery,
  Market,
  OpenHedgeResult,
  OpenRequest,
  Position,
  Prices,
  Quote,
  QuoteRequest,
  Side,
} from "../api/schemas";
import { LIST_LIMIT_DEFAULT, SIDES } from "../api/schemas";
import type { AccountConfig, KeyConfig } from "./accounts";
import { AccountBook } from "./account-book";
import { DAY_MS, iso, type SandboxClock } from "./clock";
import { buildQuote, DEFAULT_ECONOMICS, executionPrice, pricePnl, upfront, type Economics } from "./economics";
import { fromMicro, MICRO_PER_CENT, MICRO_PER_USD, proportion, toMicro, type Micro } from "./money";
import { DEFAULT_MARKETS, PriceFeed, type MarketConfig } from "./pricing";
import { SeededRandom } from "./random";
import {
  fail,
  isClosing,
  isOpen,
  ok,
  type AccountState,
  type Credential,
  type ClosedRecord,
  type EngineSnapshot,
  type ExitType,
  type HedgeState,
  type Outcome,
  type PendingOrder,
} from "./state";
import { accruedCarry, hedgeView, positionView, recordView, unrealizedPnl } from "./views";

export interface EngineOptions {
  clock: SandboxClock;
  accounts: AccountConfig[];
  /** Seeds the price walk and the fill-failure draws. */
  seed?: number;
  /** Time from submission to fill, in sandbox-clock milliseconds. */
  fillMs?: number;
  /** Probability that the fill of an open fails. */
  failRate?: number;
  economics?: Partial<Economics>;
  markets?: readonly MarketConfig[];
  /** Clock time at which the price walk starts from spot; defaults to the clock's now. */
  priceOriginMs?: number;
  /** Restores a saved state instead of starting from the accounts. */
  snapshot?: EngineSnapshot;
  /** Source of hedge ids and transaction hashes (hex of n random bytes); the trading simulation passes a seeded one. */
  randomHex?: (bytes: number) => string;
}

/** What an accepted open is waiting for: the hedge in `submitting` and the terms agreed at acceptance. */
export interface OpenTicket {
  hedge: HedgeState;
  quote: Quote;
}

export interface PricesResult {
  data: Prices;
  meta: { allowed_markets: string[]; rejected: Array<{ market: string; code: string; message: string }> };
}

export const DEFAULT_SEED = 1;
export const DEFAULT_FILL_MS = 1500;
const MIN_NOTIONAL: Micro = MICRO_PER_CENT;
const MAX_TIMER_MS = 2 ** 31 - 1;

const randomHex = (bytes: number): string => randomBytes(bytes).toString("hex");

/** A reduction leaving less than this is "roughly the whole position": it closes the hedge. */
function closeTolerance(notional: Micro): Micro {
  return Math.max(MICRO_PER_USD, Math.round(notional / 1000));
}

export class Engine {
  readonly clock: SandboxClock;
  readonly economics: Economics;
  readonly markets: ReadonlyMap<string, MarketConfig>;
  fillMs: number;
  failRate: number;
  readonly seed: number;
  readonly priceOriginMs: number;
  private readonly feed: PriceFeed;
  private rng: SeededRandom;
  private seq = 0;
  private readonly initialAccounts: AccountConfig[];
  private readonly initialFill: { fillMs: number; failRate: number };
  private readonly book = new AccountBook();
  private readonly hedgesById = new Map<string, HedgeState>();
  private readonly active = new Set<HedgeState>();
  private readonly openIndex = new Map<string, HedgeState>();
  private stalled = false;
  private outageSince: number | null = null;
  private blockedUntil = 0;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private pumping = false;
  private readonly changeListeners = new Set<() => void>();
  private readonly stopClock: () => void;
  private readonly hex: (bytes: number) => string;

  constructor(options: EngineOptions) {
    this.hex = options.randomHex ?? randomHex;
    this.clock = options.clock;
    this.economics = { ...DEFAULT_ECONOMICS, ...options.economics };
    this.markets = new Map((options.markets ?? DEFAULT_MARKETS).map((m) => [m.symbol, m]));
    this.fillMs = options.fillMs ?? DEFAULT_FILL_MS;
    this.failRate = options.failRate ?? 0;
    const snap = options.snapshot;
    this.seed = snap?.seed ?? options.seed ?? DEFAULT_SEED;
    this.priceOriginMs = snap?.priceOriginMs ?? options.priceOriginMs ?? Math.floor(this.clock.now() / 1000) * 1000;
    this.feed = new PriceFeed(this.seed, this.priceOriginMs, [...this.markets.values()]);
    this.rng = new SeededRandom(snap?.rngState ?? this.seed);
    this.initialAccounts = options.accounts;
    this.initialFill = { fillMs: this.fillMs, failRate: this.failRate };
    if (snap) this.restore(snap, options.accounts);
    else for (const config of options.accounts) this.book.open(config);
    this.stopClock = this.clock.onAdvance(() => this.pump());
  }

  private txHash(): string {
    return `0x${this.hex(32)}`;
  }

  // ---------------------------------------------------------------- lifecycle, conditions, scheduler

  /** Starts the real timer that fires fills and maturities when their clock time comes. */
  start(): void {
    this.running = true;
    this.pump();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  dispose(): void {
    this.stop();
    this.stopClock();
  }

  now(): number {
    return this.clock.now();
  }

  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  get fillsStalled(): boolean {
    return this.stalled;
  }

  get priceUnavailable(): boolean {
    return this.outageSince !== null;
  }

  /** Pauses fills (orders stay `submitted`); on resume, overdue fills happen at the resume time. */
  setFillsStalled(stalled: boolean): void {
    if (stalled === this.stalled) return;
    const wasBlocked = this.blocked();
    this.stalled = stalled;
    this.afterConditionChange(wasBlocked);
  }

  /** Takes the price feed down: prices, quotes and trades answer 503 price_unavailable, marks freeze, fills wait. */
  setPriceUnavailable(down: boolean): void {
    if (down === this.priceUnavailable) return;
    const wasBlocked = this.blocked();
    this.outageSince = down ? this.clock.now() : null;
    this.afterConditionChange(wasBlocked);
  }

  private blocked(): boolean {
    return this.stalled || this.outageSince !== null;
  }

  private afterConditionChange(wasBlocked: boolean): void {
    if (wasBlocked && !this.blocked()) this.blockedUntil = this.clock.now();
    this.pump();
  }

  /** Processes every event due by now, in clock order, then arms the timer for the next one. */
  pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    let processed = 0;
    try {
      const now = this.clock.now();
      for (;;) {
        const next = this.nextEvent();
        if (!next || next.time > now) break;
        if (next.kind === "order") this.fillOrder(next.hedge, next.time);
        else this.settleAtMaturity(next.hedge, next.time);
        processed++;
      }
    } finally {
      this.pumping = false;
    }
    if (processed > 0) this.changed();
    this.arm();
  }

  private nextEvent(): { time: number; hedge: HedgeState; kind: "order" | "maturity" } | null {
    let best: { time: number; hedge: HedgeState; kind: "order" | "maturity" } | null = null;
    const blocked = this.blocked();
    for (const h of this.active) {
      let candidate: { time: number; kind: "order" | "maturity" } | null = null;
      if (h.status !== "submitting" && h.orders.length > 0 && !blocked) {
        candidate = { time: Math.max(h.orders[0].dueAt, this.blockedUntil, h.lastEventAt), kind: "order" };
      }
      if (h.status === "filled") {
        const t = Math.max(h.maturityAt, h.lastEventAt);
        if (!candidate || t < candidate.time) candidate = { time: t, kind: "maturity" };
      }
      if (candidate && (!best || candidate.time < best.time || (candidate.time === best.time && h.seq < best.hedge.seq))) {
        best = { ...candidate, hedge: h };
      }
    }
    return best;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.running) return;
    const next = this.nextEvent();
    if (!next) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, next.time - this.clock.now()));
    this.timer = setTimeout(() => this.pump(), delay);
    this.timer.unref();
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  // ---------------------------------------------------------------- accounts (account-book.ts)

  /** The account of a key (its own api_key or one of its further keys). */
  authenticate(apiKey: string): AccountState | undefined {
    return this.book.credential(apiKey)?.acct;
  }

  /** A key, its account and its own scopes; a key is revoked when it or its account is. */
  credential(apiKey: string): Credential | undefined {
    return this.book.credential(apiKey);
  }

  /** Adds a further key to the account of `accountKey` (POST /_sandbox/accounts/keys); dropped again by reset. */
  addKey(accountKey: string, key: KeyConfig): "added" | "no_account" | "exists" | "other_environment" {
    const outcome = this.book.addKey(accountKey, key);
    if (outcome === "added") this.changed();
    return outcome;
  }

  accountState(apiKey: string): AccountState | undefined {
    return this.book.byOwnKey(apiKey);
  }

  allAccounts(): AccountState[] {
    return this.book.all();
  }

  /** Adds an account at run time (POST /_sandbox/accounts); false when the key exists. */
  addAccount(config: AccountConfig): boolean {
    if (!this.book.add(config)) return false;
    this.changed();
    return true;
  }

  /** Back to the accounts and fill settings the engine started with: no hedges, no history, starting balances, no conditions. */
  reset(): void {
    this.fillMs = this.initialFill.fillMs;
    this.failRate = this.initialFill.failRate;
    this.book.clear();
    this.hedgesById.clear();
    this.active.clear();
    this.openIndex.clear();
    this.rng = new SeededRandom(this.seed);
    this.stalled = false;
    this.outageSince = null;
    this.blockedUntil = 0;
    for (const config of this.initialAccounts) this.book.open(config);
    this.changed();
    this.arm();
  }

  // ---------------------------------------------------------------- market data

  private perHedgeLimit(acct: AccountState): Micro {
    return toMicro(acct.config.per_hedge_limit_usd ?? this.economics.per_hedge_limit_usd);
  }

  /** Mid rate at a clock time. */
  midAt(symbol: string, time: number): number {
    return this.feed.at(symbol, time).price;
  }

  /** Mid rate used for marks: frozen at the start of a price outage. */
  private mark(symbol: string, now: number): number {
    return this.feed.at(symbol, this.outageSince ?? now).price;
  }

  private allowedMarkets(acct: AccountState): string[] {
    return acct.config.allowed_markets.filter((m) => this.markets.has(m));
  }

  private tradable(acct: AccountState, symbol: string): Outcome<MarketConfig> {
    const market = this.markets.get(symbol);
    if (!market || !acct.config.allowed_markets.includes(symbol)) {
      return fail(
        "market_not_allowed",
        `Market ${symbol} is not enabled for this account; enabled: ${this.allowedMarkets(acct).join(", ") || "none"}.`,
      );
    }
    return ok(market);
  }

  private priceCheck(): Outcome<true> {
    return this.priceUnavailable ? fail("price_unavailable", "The price feed is temporarily unavailable; retry shortly.") : ok(true);
  }

  prices(acct: AccountState, requested: string[] | null): Outcome<PricesResult> {
    const price = this.priceCheck();
    if (!price.ok) return price;
    const allowed = this.allowedMarkets(acct);
    const now = this.clock.now();
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

  /** Notional a hedge will have once its queued orders fill (0 when it is closing). */
  private expectedNotional(h: HedgeState): Micro {
    if (isClosing(h)) return 0;
    let n = h.notional;
    for (const o of h.orders) {
      if (o.kind === "add") n += o.notional;
      if (o.kind === "decrease") n = Math.max(0, n - o.notional);
    }
    return n;
  }

  /** Exposure a hedge holds against caps: filled notional plus queued adds. */
  private reservedNotional(h: HedgeState): Micro {
    let n = h.notional;
    for (const o of h.orders) if (o.kind === "add") n += o.notional;
    return n;
  }

  private openInterest(env: Environment, market: string, side: Side): Micro {
    let total = 0;
    for (const h of this.active) {
      if (h.market === market && h.side === side && this.book.byOwnKey(h.owner)?.env === env) total += this.reservedNotional(h);
    }
    return total;
  }

  private marketHeadroom(env: Environment, market: MarketConfig, side: Side): Micro {
    return Math.max(0, toMicro(market.headroom_usd) - this.openInterest(env, market.symbol, side));
  }

  private exposure(acct: AccountState): Micro {
    let total = 0;
    for (const h of acct.hedges) if (isOpen(h)) total += this.reservedNotional(h);
    return total;
  }

  private capacity(acct: AccountState, market: MarketConfig, side: Side): Micro {
    const existing = this.openHedge(acct, market.symbol, side);
    const perHedge = this.perHedgeLimit(acct) - (existing ? this.expectedNotional(existing) : 0);
    return Math.max(0, Math.min(this.marketHeadroom(acct.env, market, side), perHedge));
  }

  marketList(acct: AccountState): { data: Market[]; meta: { allowed_markets: string[]; source: string } } {
    const now = this.clock.now();
    const data = [...this.markets.values()].map((m) => ({
      market: m.symbol,
      status: this.priceUnavailable ? "halted" : "open",
      price: this.mark(m.symbol, now),
      available_capacity_usd: { buy: fromMicro(this.capacity(acct, m, "buy")), sell: fromMicro(this.capacity(acct, m, "sell")) },
      net_rate_daily_pct: { ...m.net_rate_daily_pct },
    }));
    return { data, meta: { allowed_markets: this.allowedMarkets(acct), source: this.source(acct) } };
  }

  /** `meta.source`: the environment that answered. */
  source(acct: AccountState): string {
    return acct.env;
  }

  // ---------------------------------------------------------------- account

  account(acct: AccountState): Account {
    const now = this.clock.now();
    let marginUsed = 0;
    let unrealized = 0;
    let positions = 0;
    for (const h of acct.hedges) {
      if (!isOpen(h)) continue;
      marginUsed += h.margin + h.openFee + h.closeFee;
      for (const o of h.orders) marginUsed += o.margin + o.openFee + o.closeFee;
      if (h.status === "filled") {
        positions++;
        const market = this.markets.get(h.market);
        if (market) unrealized += unrealizedPnl(h, market, this.mark(h.market, now), now);
      }
    }
    const exposure = this.exposure(acct);
    const max = toMicro(acct.config.max_exposure_usd);
    return {
      account_address: acct.config.account_address,
      balance_usdc: fromMicro(acct.balance),
      margin_used_usdc: fromMicro(marginUsed),
      exposure_usd: fromMicro(exposure),
      unrealized_pnl_usd: fromMicro(unrealized),
      open_positions: positions,
      max_exposure_usd: fromMicro(max),
      available_exposure_usd: fromMicro(Math.max(0, max - exposure)),
    };
  }

  positions(acct: AccountState): Position[] {
    const now = this.clock.now();
    const lines: Position[] = [];
    for (const h of acct.hedges) {
      const market = this.markets.get(h.market);
      if (h.status === "filled" && market) lines.push(positionView(h, market, this.mark(h.market, now), now));
    }
    return lines.sort((a, b) =>
      a.market === b.market
        ? (SIDES as readonly string[]).indexOf(a.side) - (SIDES as readonly string[]).indexOf(b.side)
        : a.market < b.market
          ? -1
          : 1,
    );
  }

  // ---------------------------------------------------------------- quotes

  private notionalOf(value: number, field: string): Outcome<Micro> {
    const micro = toMicro(value);
    return micro < MIN_NOTIONAL
      ? fail("validation_error", `${field} must be at least 0.01.`, { fields: { [field]: "must be at least 0.01" } })
      : ok(micro);
  }

  quote(acct: AccountState, req: QuoteRequest): Outcome<Quote> {
    const notional = this.notionalOf(req.notional_usd, "notional_usd");
    if (!notional.ok) return notional;
    const market = this.tradable(acct, req.market);
    if (!market.ok) return market;
    const price = this.priceCheck();
    if (!price.ok) return price;
    const now = this.clock.now();
    return ok(buildQuote(this.economics, market.data, req.side, notional.data, req.tenor_days, this.midAt(req.market, now), now));
  }

  // ---------------------------------------------------------------- trading

  private openKey(owner: string, market: string, side: Side): string {
    return `${owner}\n${market}\n${side}`;
  }

  private openHedge(acct: AccountState, market: string, side: Side): HedgeState | undefined {
    return this.openIndex.get(this.openKey(acct.config.api_key, market, side));
  }

  private configured(acct: AccountState): Outcome<true> {
    return acct.config.account_address
      ? ok(true)
      : fail("account_not_configured", "This account has no on-chain account set yet; finish its set-up before trading.");
  }

  /** Capacity, exposure and collateral checks for `notional` more on a side; returns the collateral to reserve. */
  private fundingCheck(
    acct: AccountState,
    market: MarketConfig,
    side: Side,
    notional: Micro,
  ): Outcome<{ margin: Micro; openFee: Micro; closeFee: Micro }> {
    const max = toMicro(acct.config.max_exposure_usd);
    const exposure = this.exposure(acct);
    const existing = this.openHedge(acct, market.symbol, side);
    const bounds: Array<[string, Micro]> = [
      ["max_exposure", Math.max(0, max - exposure)],
      ["market_headroom", this.marketHeadroom(acct.env, market, side)],
      ["per_hedge_limit", Math.max(0, this.perHedgeLimit(acct) - (existing ? this.expectedNotional(existing) : 0))],
    ];
    const [bound, available] = bounds.reduce((a, b) => (b[1] < a[1] ? b : a));
    if (notional > available) {
      return fail(
        "exposure_exceeded",
        `${fromMicro(notional)} USD more on ${market.symbol} ${side} exceeds the ${bound.replace(/_/g, " ")}; at most ${fromMicro(available)} USD can be added now.`,
        {
          available_headroom_usd: fromMicro(available),
          limit: bound,
          exposure_usd: fromMicro(exposure),
          max_exposure_usd: fromMicro(max),
        },
      );
    }
    const costs = upfront(this.economics, notional);
    const required = costs.margin + costs.openFee + costs.closeFee;
    if (required > acct.balance) {
      return fail(
        "insufficient_collateral",
        `Opening ${fromMicro(notional)} USD needs ${fromMicro(required)} USDC of collateral; the free balance is ${fromMicro(acct.balance)} USDC.`,
        {
          required_usdc: fromMicro(required),
          balance_usdc: fromMicro(acct.balance),
        },
      );
    }
    return ok(costs);
  }

  /** Accepts an open: the hedge exists in `submitting` with its collateral reserved; `submitOpen` sends the order. */
  beginOpen(acct: AccountState, req: OpenRequest): Outcome<OpenTicket> {
    const notional = this.notionalOf(req.notional_usd, "notional_usd");
    if (!notional.ok) return notional;
    const configured = this.configured(acct);
    if (!configured.ok) return configured;
    const market = this.tradable(acct, req.market);
    if (!market.ok) return market;
    const price = this.priceCheck();
    if (!price.ok) return price;
    const existing = this.openHedge(acct, req.market, req.side);
    if (existing) {
      return fail(
        "hedge_exists",
        `Hedge ${existing.id} is already open on ${req.market} ${req.side}; add to it, or settle it before opening another.`,
        {
          hedge_id: existing.id,
        },
      );
    }
    const funding = this.fundingCheck(acct, market.data, req.side, notional.data);
    if (!funding.ok) return funding;
    const now = this.clock.now();
    const { margin, openFee, closeFee } = funding.data;
    acct.balance -= margin + openFee + closeFee;
    const hedge: HedgeState = {
      id: `hdg_${this.hex(12)}`,
      seq: ++this.seq,
      owner: acct.config.api_key,
      clientReference: req.client_reference ?? null,
      market: req.market,
      side: req.side,
      tenorDays: req.tenor_days,
      status: "submitting",
      notional: notional.data,
      margin,
      openFee,
      closeFee,
      entry: null,
      orderTx: null,
      fillTx: null,
      orderKey: this.txHash(),
      openedAt: now,
      filledAt: null,
      maturityAt: now + req.tenor_days * DAY_MS,
      closedAt: null,
      carry: 0,
      carryFrom: now,
      lastEventAt: now,
      orders: [],
    };
    acct.hedges.push(hedge);
    this.hedgesById.set(hedge.id, hedge);
    this.active.add(hedge);
    this.openIndex.set(this.openKey(acct.config.api_key, hedge.market, hedge.side), hedge);
    const quote = buildQuote(this.economics, market.data, req.side, notional.data, req.tenor_days, this.midAt(req.market, now), now);
    this.changed();
    return ok({ hedge, quote });
  }

  /** Sends the create-order of an accepted open: `submitting` → `submitted`; the fill follows after `fillMs`. */
  submitOpen(ticket: OpenTicket): OpenHedgeResult {
    const h = ticket.hedge;
    if (h.status === "submitting") {
      const now = this.clock.now();
      h.orderTx = this.txHash();
      h.status = "submitted";
      h.orders.unshift({
        kind: "open",
        orderTx: h.orderTx,
        submittedAt: now,
        dueAt: now + this.fillMs,
        notional: h.notional,
        margin: 0,
        openFee: 0,
        closeFee: 0,
      });
      this.changed();
      this.pump();
    }
    return {
      status: "submitted",
      order_tx_hash: h.orderTx,
      hedge_id: h.id,
      client_reference: h.clientReference,
      collateral_usdc: ticket.quote.upfront.total_upfront_usdc,
      maturity_at: iso(h.maturityAt),
      quote: ticket.quote,
    };
  }

  open(acct: AccountState, req: OpenRequest): Outcome<OpenHedgeResult> {
    const ticket = this.beginOpen(acct, req);
    return ticket.ok ? ok(this.submitOpen(ticket.data)) : ticket;
  }

  private tradeChecks(acct: AccountState, symbol: string): Outcome<MarketConfig> {
    const configured = this.configured(acct);
    if (!configured.ok) return configured;
    const market = this.tradable(acct, symbol);
    if (!market.ok) return market;
    const price = this.priceCheck();
    return price.ok ? market : price;
  }

  private liveHedge(acct: AccountState, market: string, side: Side, action: string): Outcome<HedgeState> {
    const h = this.openHedge(acct, market, side);
    if (!h) return fail("no_open_hedge", `There is no open hedge on ${market} ${side} to ${action}.`);
    if (isClosing(h))
      return fail("no_open_hedge", `The hedge on ${market} ${side} (${h.id}) is being closed; there is nothing left to ${action}.`, {
        hedge_id: h.id,
      });
    return ok(h);
  }

  add(acct: AccountState, req: AddRequest): Outcome<AddResult> {
    const notional = this.notionalOf(req.additional_notional_usd, "additional_notional_usd");
    if (!notional.ok) return notional;
    const market = this.tradeChecks(acct, req.market);
    if (!market.ok) return market;
    const h = this.liveHedge(acct, req.market, req.side, "add to");
    if (!h.ok) return h;
    return this.addTo(acct, market.data, h.data, notional.data);
  }

  addById(acct: AccountState, hedgeId: string, req: AddByIdRequest): Outcome<AddResult> {
    const notional = this.notionalOf(req.additional_notional_usd, "additional_notional_usd");
    if (!notional.ok) return notional;
    const configured = this.configured(acct);
    if (!configured.ok) return configured;
    const h = this.hedgesById.get(hedgeId);
    if (!h || h.owner !== acct.config.api_key) return fail("hedge_not_found", `No hedge ${hedgeId} on this account.`);
    if (!isOpen(h) || isClosing(h)) {
      return fail("hedge_not_open", `Hedge ${hedgeId} is ${isOpen(h) ? "being closed" : h.status}, so it cannot be added to.`, {
        hedge_id: h.id,
        status: h.status,
      });
    }
    const market = this.tradeChecks(acct, h.market);
    if (!market.ok) return market;
    return this.addTo(acct, market.data, h, notional.data);
  }

  private addTo(acct: AccountState, market: MarketConfig, h: HedgeState, notional: Micro): Outcome<AddResult> {
    const funding = this.fundingCheck(acct, market, h.side, notional);
    if (!funding.ok) return funding;
    const { margin, openFee, closeFee } = funding.data;
    const order = this.enqueue(h, { kind: "add", notional, margin, openFee, closeFee });
    acct.balance -= margin + openFee + closeFee;
    this.changed();
    this.pump();
    return ok({
      status: "submitted",
      order_tx_hash: order.orderTx,
      hedge_id: h.id,
      market: h.market,
      side: h.side,
      additional_notional_usd: fromMicro(notional),
      collateral_usdc: fromMicro(margin + openFee + closeFee),
      new_notional_usd: fromMicro(this.expectedNotional(h)),
      maturity_at: iso(h.maturityAt),
    });
  }

  decrease(acct: AccountState, req: DecreaseRequest): Outcome<DecreaseResult> {
    const requested = this.notionalOf(req.reduce_notional_usd, "reduce_notional_usd");
    if (!requested.ok) return requested;
    const market = this.tradeChecks(acct, req.market);
    if (!market.ok) return market;
    const found = this.liveHedge(acct, req.market, req.side, "reduce");
    if (!found.ok) return found;
    const h = found.data;
    const expected = this.expectedNotional(h);
    const reduced = Math.min(requested.data, expected);
    const full = expected - reduced < closeTolerance(expected);
    const order = this.enqueue(h, { kind: "decrease", notional: full ? expected : reduced, full });
    this.changed();
    this.pump();
    return ok({
      status: "submitted",
      order_tx_hash: order.orderTx,
      hedge_id: h.id,
      market: h.market,
      side: h.side,
      reduced_notional_usd: fromMicro(full ? expected : reduced),
      new_notional_usd: full ? 0 : fromMicro(expected - reduced),
      maturity_at: iso(h.maturityAt),
    });
  }

  close(acct: AccountState, req: CloseRequest): Outcome<CloseResult> {
    const market = this.tradeChecks(acct, req.market);
    if (!market.ok) return market;
    const found = this.liveHedge(acct, req.market, req.side, "close");
    if (!found.ok) return found;
    const order = this.enqueue(found.data, { kind: "close", notional: 0 });
    this.changed();
    this.pump();
    return ok({ status: "submitted", order_tx_hash: order.orderTx, hedge_id: found.data.id, market: req.market, side: req.side });
  }

  private enqueue(h: HedgeState, order: Pick<PendingOrder, "kind" | "notional"> & Partial<PendingOrder>): PendingOrder {
    const now = this.clock.now();
    const full: PendingOrder = {
      margin: 0,
      openFee: 0,
      closeFee: 0,
      ...order,
      orderTx: this.txHash(),
      submittedAt: now,
      dueAt: now + this.fillMs,
    };
    h.orders.push(full);
    return full;
  }

  // ---------------------------------------------------------------- fills and settlement

  private ownerOf(h: HedgeState): AccountState {
    const acct = this.book.byOwnKey(h.owner);
    if (!acct) throw new Error(`hedge ${h.id} has no account`);
    return acct;
  }

  private marketOf(h: HedgeState): MarketConfig {
    const market = this.markets.get(h.market);
    if (!market) throw new Error(`hedge ${h.id} is on unknown market ${h.market}`);
    return market;
  }

  private fillOrder(h: HedgeState, time: number): void {
    const order = h.orders.shift();
    if (!order) return;
    h.lastEventAt = time;
    const market = this.marketOf(h);
    const mid = this.midAt(h.market, time);
    switch (order.kind) {
      case "open": {
        // One draw per open fill, whatever the rate, so that a run is reproducible for a given seed.
        if (this.rng.next() < this.failRate) {
          this.failOpen(h);
          return;
        }
        h.entry = executionPrice(this.economics, market, h.side, h.notional, mid);
        h.status = "filled";
        h.fillTx = this.txHash();
        h.filledAt = time;
        return;
      }
      case "add": {
        this.accrueCarry(h, time);
        const price = executionPrice(this.economics, market, h.side, order.notional, mid);
        const entry = h.entry ?? price;
        h.entry = (h.notional * entry + order.notional * price) / (h.notional + order.notional);
        h.notional += order.notional;
        h.margin += order.margin;
        h.openFee += order.openFee;
        h.closeFee += order.closeFee;
        return;
      }
      case "decrease": {
        const reduce = Math.min(order.notional, h.notional);
        if (order.full || h.notional - reduce < closeTolerance(h.notional)) {
          this.settle(h, time, "decrease", executionPrice(this.economics, market, h.side, h.notional, mid, false));
        } else {
          this.reducePartly(h, time, reduce, executionPrice(this.economics, market, h.side, reduce, mid, false));
        }
        return;
      }
      case "close":
        this.settle(h, time, "close", executionPrice(this.economics, market, h.side, h.notional, mid, false));
        return;
    }
  }

  private settleAtMaturity(h: HedgeState, time: number): void {
    h.lastEventAt = time;
    // Settles at the mid of the maturity time: a fixing, with no impact.
    this.settle(h, time, "maturity", this.midAt(h.market, time));
  }

  private failOpen(h: HedgeState): void {
    const acct = this.ownerOf(h);
    acct.balance += h.margin + h.openFee + h.closeFee;
    h.margin = h.openFee = h.closeFee = 0;
    h.status = "failed";
    this.dropOrders(h, acct);
    this.retire(h);
  }

  /** Releases what queued orders reserved (adds), when the hedge ends before they fill. */
  private dropOrders(h: HedgeState, acct: AccountState): void {
    for (const o of h.orders) acct.balance += o.margin + o.openFee + o.closeFee;
    h.orders = [];
  }

  private retire(h: HedgeState): void {
    this.active.delete(h);
    const key = this.openKey(h.owner, h.market, h.side);
    if (this.openIndex.get(key) === h) this.openIndex.delete(key);
  }

  private accrueCarry(h: HedgeState, time: number): void {
    const until = Math.min(time, h.maturityAt);
    if (until <= h.carryFrom) return;
    h.carry = accruedCarry(h, this.marketOf(h), until);
    h.carryFrom = until;
  }

  /** Closes the whole hedge at `exit`: realizes price P&L, carry and both fees, returns margin and P&L to the balance. */
  private settle(h: HedgeState, time: number, exitType: ExitType, exit: number): void {
    const acct = this.ownerOf(h);
    this.accrueCarry(h, time);
    const entry = h.entry ?? exit;
    const gross = pricePnl(h.side, h.notional, entry, exit);
    const fees = h.openFee + h.closeFee;
    const net = gross + h.carry - fees;
    acct.balance += h.margin + fees + net;
    this.record(acct, h, {
      size: h.notional,
      collateral: h.margin + fees,
      entry,
      exit,
      closedAt: time,
      exitType,
      gross,
      carry: h.carry,
      fees,
      net,
    });
    h.margin = h.openFee = h.closeFee = 0;
    h.carry = 0;
    h.status = "closed";
    h.closedAt = time;
    this.dropOrders(h, acct);
    this.retire(h);
  }

  /** Removes `reduce` of the notional: margin, fees and carry leave in proportion; realized P&L goes to the balance. */
  private reducePartly(h: HedgeState, time: number, reduce: Micro, exit: number): void {
    const acct = this.ownerOf(h);
    this.accrueCarry(h, time);
    const entry = h.entry ?? exit;
    const gross = pricePnl(h.side, reduce, entry, exit);
    const margin = proportion(h.margin, reduce, h.notional);
    const openFee = proportion(h.openFee, reduce, h.notional);
    const closeFee = proportion(h.closeFee, reduce, h.notional);
    const carry = proportion(h.carry, reduce, h.notional);
    const fees = openFee + closeFee;
    const net = gross + carry - fees;
    acct.balance += margin + fees + net;
    this.record(acct, h, {
      size: reduce,
      collateral: margin + fees,
      entry,
      exit,
      closedAt: time,
      exitType: "decrease",
      gross,
      carry,
      fees,
      net,
    });
    h.notional -= reduce;
    h.margin -= margin;
    h.openFee -= openFee;
    h.closeFee -= closeFee;
    h.carry -= carry;
  }

  private record(
    acct: AccountState,
    h: HedgeState,
    r: Omit<ClosedRecord, "seq" | "hedgeId" | "clientReference" | "market" | "side" | "openedAt">,
  ): void {
    acct.history.push({
      seq: ++this.seq,
      hedgeId: h.id,
      clientReference: h.clientReference,
      market: h.market,
      side: h.side,
      openedAt: h.openedAt,
      ...r,
    });
  }

  // ---------------------------------------------------------------- reading hedges

  listHedges(acct: AccountState, query: ListQuery): Hedge[] {
    const limit = query.limit ?? LIST_LIMIT_DEFAULT;
    const out: Hedge[] = [];
    // starting_after: the page after that hedge (newest first); an id this account does not have lists nothing.
    let from = acct.hedges.length - 1;
    if (query.starting_after !== undefined) from = acct.hedges.findIndex((h) => h.id === query.starting_after) - 1;
    for (let i = from; i >= 0 && out.length < limit; i--) {
      const h = acct.hedges[i];
      if (query.status && h.status !== query.status) continue;
      if (query.client_reference !== undefined && h.clientReference !== query.client_reference) continue;
      out.push(hedgeView(h));
    }
    return out;
  }

  getHedge(acct: AccountState, hedgeId: string): Outcome<Hedge> {
    const h = this.hedgesById.get(hedgeId);
    if (!h || h.owner !== acct.config.api_key) return fail("hedge_not_found", `No hedge ${hedgeId} on this account.`);
    return ok(hedgeView(h));
  }

  history(acct: AccountState, query: HistoryQuery): ClosedHedge[] {
    const from = query.from ? utcMs(query.from) : -Infinity;
    const to = query.to ? utcMs(query.to) : Infinity;
    const limit = query.limit ?? LIST_LIMIT_DEFAULT;
    return acct.history
      .filter((r) => r.closedAt >= from && r.closedAt < to)
      .sort((a, b) => b.closedAt - a.closedAt || b.seq - a.seq)
      .slice(0, limit)
      .map(recordView);
  }

  // ---------------------------------------------------------------- persistence and inspection

  snapshot(): EngineSnapshot {
    return structuredClone({
      seed: this.seed,
      priceOriginMs: this.priceOriginMs,
      clockOffsetMs: this.clock.offsetMs,
      rngState: this.rng.state,
      seq: this.seq,
      accounts: this.book.all(),
    });
  }

  private restore(snap: EngineSnapshot, configured: AccountConfig[]): void {
    this.seq = snap.seq;
    const submitting: HedgeState[] = [];
    for (const saved of structuredClone(snap.accounts)) {
      this.book.put(saved);
      for (const h of saved.hedges) {
        this.hedgesById.set(h.id, h);
        if (isOpen(h)) {
          this.active.add(h);
          this.openIndex.set(this.openKey(h.owner, h.market, h.side), h);
        }
        if (h.status === "submitting") submitting.push(h);
      }
    }
    // Accounts of the accounts file that the saved state does not know yet join with their starting balance.
    for (const config of configured) if (!this.book.byOwnKey(config.api_key)) this.book.open(config);
    // An open accepted but not yet sent when the process stopped is sent now.
    for (const h of submitting) {
      const market = this.marketOf(h);
      this.submitOpen({
        hedge: h,
        quote: buildQuote(this.economics, market, h.side, h.notional, h.tenorDays, this.midAt(h.market, h.openedAt), h.openedAt),
      });
    }
  }
}
