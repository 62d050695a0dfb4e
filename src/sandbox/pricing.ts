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

const { sqrt, floor, exp } = Math; // module-scope copies (see random.ts)

export const TICK_MS = 1000;
const TICKS_PER_HOUR = 3600;
const HOUR_STREAM_SALT = 0x68f1b3c5;

/**
 * Log-price path X(k), one step per second of clock time, with the law of a Brownian motion of σ per √second.
 * Built in two levels so that any time is cheap to reach, even after moving the clock by months:
 * - hour boundaries: X(3600·(h+1)) = X(3600·h) + σ·√3600·Z_h, with Z_h a normal draw hashed from (seed, market, h);
 * - inside hour h: a Brownian bridge between the two boundary values, from per-second draws hashed from (seed, market, k).
 * Every value is a pure function of (seed, market, k): asking in another order or after a restart gives the same path.
 */
class RandomWalk {
  private readonly hourStarts: number[] = [0];
  private cachedHour = -1;
  /** Prefix sums of the raw per-second draws of the cached hour, W(0..3600). */
  private readonly prefix = new Float64Array(TICKS_PER_HOUR + 1);

  constructor(
    private readonly seed: number,
    private readonly stream: number,
    private readonly sigmaPerTick: number,
  ) {}

  private hourStart(hour: number): number {
    const starts = this.hourStarts;
    const step = this.sigmaPerTick * sqrt(TICKS_PER_HOUR);
    for (let h = starts.length - 1; h < hour; h++) starts.push(starts[h] + step * normalAt(this.seed, this.stream ^ HOUR_STREAM_SALT, h));
    return starts[hour];
  }

  at(tick: number): number {
    if (tick <= 0) return 0;
    const hour = floor(tick / TICKS_PER_HOUR);
    const second = tick - hour * TICKS_PER_HOUR;
    const start = this.hourStart(hour);
    if (second === 0) return start;
    const end = this.hourStart(hour + 1);
    if (this.cachedHour !== hour) {
      const base = hour * TICKS_PER_HOUR;
      let w = 0;
      for (let j = 1; j <= TICKS_PER_HOUR; j++) {
        w += this.sigmaPerTick * normalAt(this.seed, this.stream, base + j);
        this.prefix[j] = w;
      }
      this.cachedHour = hour;
    }
    const f = second / TICKS_PER_HOUR;
    return start + this.prefix[second] - f * this.prefix[TICKS_PER_HOUR] + f * (end - start);
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
      this.walks.set(market.symbol, {
        market,
        walk: new RandomWalk(seed >>> 0, hashString(market.symbol), sigma),
        last: { tick: -1, price: 0, timestampMs: 0, timestamp: "" },
      });
    }
  }

  has(symbol: string): boolean {
    return this.walks.has(symbol);
  }

  tickOf(timeMs: number): number {
    return Math.max(0, floor((timeMs - this.originMs) / TICK_MS));
  }

  /** The mid rate of a market at a clock time. */
  at(symbol: string, timeMs: number): PricePoint {
    const entry = this.walks.get(symbol);
    if (!entry) throw new Error(`unknown market ${symbol}`);
    const tick = this.tickOf(timeMs);
    if (tick !== entry.last.tick) {
      const timestampMs = this.originMs + tick * TICK_MS;
      const price = roundTo(entry.market.spot * exp(entry.walk.at(tick)), entry.market.price_decimals);
      entry.last = { tick, price, timestampMs, timestamp: new Date(timestampMs).toISOString() };
    }
    return entry.last;
  }
}
