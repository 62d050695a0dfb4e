// Market prices: a seeded, per-second random walk per market, a pure function of (seed, origin, clock time).
import { DAY_MS } from "./clock";
import { hashString, normalAt } from "./random";
import { roundTo } from "./money";

export interface MarketConfig {
  /** Symbol, e.g. USDTNGN. */
  symbol: string;
  /** Pair as the price entry shows it, e.g. USDT/NGN. */
  pair: string;
  /** Mid rate at the price origin (quote currency per USDT). */
  spot: number;
  /** Standard deviation of the log price over one day, in percent. */
  vol_daily_pct: number;
  /** Decimals of the quoted rates. */
  price_decimals: number;
  /** Daily carry per side in percent of notional, signed: positive means the caller pays. */
  net_rate_daily_pct: { buy: number; sell: number };
  /** Market-wide open interest allowed per side (USD), across all accounts of one environment. */
  headroom_usd: number;
}

export const DEFAULT_MARKETS: readonly MarketConfig[] = [
  {
    symbol: "USDTNGN",
    pair: "USDT/NGN",
    spot: 1500,
    vol_daily_pct: 0.5,
    price_decimals: 4,
    net_rate_daily_pct: { buy: 0.05, sell: -0.03 },
    headroom_usd: 5_000_000,
  },
];

export const TICK_MS = 1000;
const CHECKPOINT_TICKS = 3600;

/**
 * Log-price path X(k) = σ·(z₁ + … + z_k), one step per second of clock time, with zⱼ a normal draw hashed
 * from (seed, market, j). Partial sums are always accumulated in the same order, so X(k) is the same whichever
 * times were asked before; hourly checkpoints keep a jump of days after a clock advance cheap.
 */
class RandomWalk {
  private readonly checkpoints: number[] = [0];
  private lastTick = 0;
  private lastValue = 0;

  constructor(
    private readonly seed: number,
    private readonly stream: number,
    private readonly sigmaPerTick: number,
  ) {}

  at(tick: number): number {
    if (tick <= 0) return 0;
    if (tick === this.lastTick) return this.lastValue;
    let from: number;
    let x: number;
    const checkpoint = Math.min(Math.floor(tick / CHECKPOINT_TICKS), this.checkpoints.length - 1);
    if (this.lastTick < tick && this.lastTick >= checkpoint * CHECKPOINT_TICKS) {
      from = this.lastTick;
      x = this.lastValue;
    } else {
      from = checkpoint * CHECKPOINT_TICKS;
      x = this.checkpoints[checkpoint];
    }
    for (let j = from + 1; j <= tick; j++) {
      x += this.sigmaPerTick * normalAt(this.seed, this.stream, j);
      if (j % CHECKPOINT_TICKS === 0 && j / CHECKPOINT_TICKS === this.checkpoints.length) this.checkpoints.push(x);
    }
    this.lastTick = tick;
    this.lastValue = x;
    return x;
  }
}

export interface PricePoint {
  price: number;
  /** Start of the one-second tick the price belongs to. */
  timestampMs: number;
  /** The same instant as ISO 8601 UTC. */
  timestamp: string;
}

export class PriceFeed {
  private readonly walks = new Map<string, { market: MarketConfig; walk: RandomWalk; last: PricePoint & { tick: number } }>();

  constructor(
    readonly seed: number,
    /** Clock time at which every walk starts from its spot. */
    readonly originMs: number,
    markets: readonly MarketConfig[],
  ) {
    for (const market of markets) {
      const sigma = market.vol_daily_pct / 100 / Math.sqrt(DAY_MS / TICK_MS);
      this.walks.set(market.symbol, { market, walk: new RandomWalk(seed >>> 0, hashString(market.symbol), sigma), last: { tick: -1, price: 0, timestampMs: 0, timestamp: "" } });
    }
  }

  has(symbol: string): boolean {
    return this.walks.has(symbol);
  }

  tickOf(timeMs: number): number {
    return Math.max(0, Math.floor((timeMs - this.originMs) / TICK_MS));
  }

  /** The mid rate of a market at a clock time. */
  at(symbol: string, timeMs: number): PricePoint {
    const entry = this.walks.get(symbol);
    if (!entry) throw new Error(`unknown market ${symbol}`);
    const tick = this.tickOf(timeMs);
    if (tick !== entry.last.tick) {
      const timestampMs = this.originMs + tick * TICK_MS;
      const price = roundTo(entry.market.spot * Math.exp(entry.walk.at(tick)), entry.market.price_decimals);
      entry.last = { tick, price, timestampMs, timestamp: new Date(timestampMs).toISOString() };
    }
    return entry.last;
  }
}
