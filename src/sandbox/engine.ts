// The sandbox's engine: one object that wires its rooms over shared books and answers for them (hedges: hedges.ts; fills, settlement and positions: settlement.ts; quotes and prices: quotes.ts; when events happen: scheduler.ts; the books: books.ts; accounts and keys: account-book.ts), and saves and restores the whole state.
import { randomBytes } from "node:crypto";
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
  Quote,
  QuoteRequest,
} from "../api/schemas";
import type { AccountConfig, KeyConfig } from "./accounts";
import { HedgeBooks } from "./books";
import type { SandboxClock } from "./clock";
import { DEFAULT_ECONOMICS, type Economics } from "./economics";
import { HedgeDesk, type OpenTicket } from "./hedges";
import { DEFAULT_MARKETS, type MarketConfig } from "./pricing";
import { QuoteDesk, type PricesResult } from "./quotes";
import { Scheduler } from "./scheduler";
import { Settlement } from "./settlement";
import { ok, type AccountState, type Credential, type EngineSnapshot, type HedgeState, type Outcome } from "./state";

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

export const DEFAULT_SEED = 1;
export const DEFAULT_FILL_MS = 1500;

const randomHex = (bytes: number): string => randomBytes(bytes).toString("hex");

export class Engine {
  readonly clock: SandboxClock;
  readonly economics: Economics;
  readonly markets: ReadonlyMap<string, MarketConfig>;
  readonly seed: number;
  readonly priceOriginMs: number;
  /** Fill delay and open failure probability, read by the rooms at each order (the fault API changes them). */
  private readonly settings: { fillMs: number; failRate: number };
  private readonly initialAccounts: AccountConfig[];
  private readonly initialFill: { fillMs: number; failRate: number };
  private readonly books: HedgeBooks;
  private readonly scheduler: Scheduler;
  private readonly quotes: QuoteDesk;
  private readonly settlement: Settlement;
  private readonly hedges: HedgeDesk;
  private readonly changeListeners = new Set<() => void>();
  private readonly stopClock: () => void;

  constructor(options: EngineOptions) {
    this.clock = options.clock;
    this.economics = { ...DEFAULT_ECONOMICS, ...options.economics };
    this.markets = new Map((options.markets ?? DEFAULT_MARKETS).map((m) => [m.symbol, m]));
    this.settings = { fillMs: options.fillMs ?? DEFAULT_FILL_MS, failRate: options.failRate ?? 0 };
    const snap = options.snapshot;
    this.seed = snap?.seed ?? options.seed ?? DEFAULT_SEED;
    this.priceOriginMs = snap?.priceOriginMs ?? options.priceOriginMs ?? Math.floor(this.clock.now() / 1000) * 1000;
    this.books = new HedgeBooks(this.markets, options.randomHex ?? randomHex);
    this.scheduler = new Scheduler(this.clock, this.books.active, {
      fill: (h, time) => this.fillOrder(h, time),
      mature: (h, time) => this.settlement.settleAtMaturity(h, time),
      changed: () => this.changed(),
    });
    this.quotes = new QuoteDesk(this.books, this.economics, this.scheduler, this.seed, this.priceOriginMs);
    const release = (h: HedgeState, acct: AccountState) => this.dropOrders(h, acct);
    this.settlement = new Settlement(this.books, this.quotes, this.economics, this.settings, snap?.rngState ?? this.seed, release);
    this.hedges = new HedgeDesk(this.clock, this.books, this.quotes, this.economics, this.settings, {
      changed: () => this.changed(),
      pump: () => this.pump(),
    });
    this.initialAccounts = options.accounts;
    this.initialFill = { ...this.settings };
    if (snap) this.restore(snap, options.accounts);
    else for (const config of options.accounts) this.books.accounts.open(config);
    this.stopClock = this.clock.onAdvance(() => this.pump());
  }

  get fillMs(): number {
    return this.settings.fillMs;
  }

  set fillMs(ms: number) {
    this.settings.fillMs = ms;
  }

  get failRate(): number {
    return this.settings.failRate;
  }

  set failRate(rate: number) {
    this.settings.failRate = rate;
  }

  // ---------------------------------------------------------------- lifecycle, conditions, scheduler (scheduler.ts)

  /** Starts the real timer that fires fills and maturities when their clock time comes. */
  start(): void {
    this.scheduler.start();
  }

  stop(): void {
    this.scheduler.stop();
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
    return this.scheduler.fillsStalled;
  }

  get priceUnavailable(): boolean {
    return this.scheduler.priceUnavailable;
  }

  /** Pauses fills (orders stay `submitted`); on resume, overdue fills happen at the resume time. */
  setFillsStalled(stalled: boolean): void {
    this.scheduler.setFillsStalled(stalled);
  }

  /** Takes the price feed down: prices, quotes and trades answer 503 price_unavailable, marks freeze, fills wait. */
  setPriceUnavailable(down: boolean): void {
    this.scheduler.setPriceUnavailable(down);
  }

  /** Processes every event due by now, in clock order, then arms the timer for the next one. */
  pump(): void {
    this.scheduler.pump();
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  /**
   * Every order's fate passes through these two seams (a fill or an open's failure; the orders a hedge's end drops,
   * their reservations released): the trading simulation (test/trading/sim/service.ts) watches them.
   */
  private fillOrder(h: HedgeState, time: number): void {
    this.settlement.fillOrder(h, time);
  }

  private dropOrders(h: HedgeState, acct: AccountState): void {
    for (const o of h.orders) acct.balance += o.margin + o.openFee + o.closeFee;
    h.orders = [];
  }

  // ---------------------------------------------------------------- accounts (account-book.ts)

  /** The account of a key (its own api_key or one of its further keys). */
  authenticate(apiKey: string): AccountState | undefined {
    return this.books.accounts.credential(apiKey)?.acct;
  }

  /** A key, its account and its own scopes; a key is revoked when it or its account is. */
  credential(apiKey: string): Credential | undefined {
    return this.books.accounts.credential(apiKey);
  }

  /** Adds a further key to the account of `accountKey` (POST /_sandbox/accounts/keys); dropped again by reset. */
  addKey(accountKey: string, key: KeyConfig): "added" | "no_account" | "exists" | "other_environment" {
    const outcome = this.books.accounts.addKey(accountKey, key);
    if (outcome === "added") this.changed();
    return outcome;
  }

  accountState(apiKey: string): AccountState | undefined {
    return this.books.accounts.byOwnKey(apiKey);
  }

  allAccounts(): AccountState[] {
    return this.books.accounts.all();
  }

  /** Adds an account at run time (POST /_sandbox/accounts); false when the key exists. */
  addAccount(config: AccountConfig): boolean {
    if (!this.books.accounts.add(config)) return false;
    this.changed();
    return true;
  }

  /** Back to the accounts and fill settings the engine started with: no hedges, no history, starting balances, no conditions. */
  reset(): void {
    Object.assign(this.settings, this.initialFill);
    this.books.accounts.clear();
    this.books.clearHedges();
    this.settlement.reseed(this.seed);
    this.scheduler.clearConditions();
    for (const config of this.initialAccounts) this.books.accounts.open(config);
    this.changed();
    this.scheduler.arm();
  }

  // ---------------------------------------------------------------- market data and quotes (quotes.ts)

  /** Mid rate at a clock time. */
  midAt(symbol: string, time: number): number {
    return this.quotes.midAt(symbol, time);
  }

  prices(acct: AccountState, requested: string[] | null): Outcome<PricesResult> {
    return this.quotes.prices(acct, requested, this.clock.now());
  }

  marketList(acct: AccountState): { data: Market[]; meta: { allowed_markets: string[]; source: string } } {
    return this.quotes.marketList(acct, this.clock.now());
  }

  /** `meta.source`: the environment that answered. */
  source(acct: AccountState): string {
    return acct.env;
  }

  quote(acct: AccountState, req: QuoteRequest): Outcome<Quote> {
    return this.quotes.quote(acct, req, this.clock.now());
  }

  // ---------------------------------------------------------------- account and positions (settlement.ts)

  account(acct: AccountState): Account {
    return this.settlement.account(acct, this.clock.now());
  }

  positions(acct: AccountState): Position[] {
    return this.settlement.positions(acct, this.clock.now());
  }

  // ---------------------------------------------------------------- trading and reading hedges (hedges.ts)

  /** Accepts an open: the hedge exists in `submitting` with its collateral reserved; `submitOpen` sends the order. */
  beginOpen(acct: AccountState, req: OpenRequest): Outcome<OpenTicket> {
    return this.hedges.beginOpen(acct, req);
  }

  /** Sends the create-order of an accepted open: `submitting` → `submitted`; the fill follows after `fillMs`. */
  submitOpen(ticket: OpenTicket): OpenHedgeResult {
    return this.hedges.submitOpen(ticket);
  }

  open(acct: AccountState, req: OpenRequest): Outcome<OpenHedgeResult> {
    const ticket = this.beginOpen(acct, req);
    return ticket.ok ? ok(this.submitOpen(ticket.data)) : ticket;
  }

  add(acct: AccountState, req: AddRequest): Outcome<AddResult> {
    return this.hedges.add(acct, req);
  }

  addById(acct: AccountState, hedgeId: string, req: AddByIdRequest): Outcome<AddResult> {
    return this.hedges.addById(acct, hedgeId, req);
  }

  decrease(acct: AccountState, req: DecreaseRequest): Outcome<DecreaseResult> {
    return this.hedges.decrease(acct, req);
  }

  close(acct: AccountState, req: CloseRequest): Outcome<CloseResult> {
    return this.hedges.close(acct, req);
  }

  listHedges(acct: AccountState, query: ListQuery): Hedge[] {
    return this.hedges.listHedges(acct, query);
  }

  getHedge(acct: AccountState, hedgeId: string): Outcome<Hedge> {
    return this.hedges.getHedge(acct, hedgeId);
  }

  history(acct: AccountState, query: HistoryQuery): ClosedHedge[] {
    return this.hedges.history(acct, query);
  }

  // ---------------------------------------------------------------- persistence

  snapshot(): EngineSnapshot {
    return structuredClone({
      seed: this.seed,
      priceOriginMs: this.priceOriginMs,
      clockOffsetMs: this.clock.offsetMs,
      rngState: this.settlement.rngState,
      seq: this.books.seq,
      accounts: this.books.accounts.all(),
    });
  }

  private restore(snap: EngineSnapshot, configured: AccountConfig[]): void {
    this.books.seq = snap.seq;
    const submitting: HedgeState[] = [];
    for (const saved of structuredClone(snap.accounts)) {
      this.books.accounts.put(saved);
      for (const h of saved.hedges) {
        this.books.track(h);
        if (h.status === "submitting") submitting.push(h);
      }
    }
    // Accounts of the accounts file that the saved state does not know yet join with their starting balance.
    for (const config of configured) if (!this.books.accounts.byOwnKey(config.api_key)) this.books.accounts.open(config);
    // An open accepted but not yet sent when the process stopped is sent now.
    for (const h of submitting) {
      const quote = this.quotes.quoteAt(this.books.marketOf(h), h.side, h.notional, h.tenorDays, h.openedAt);
      this.submitOpen({ hedge: h, quote });
    }
  }
}
