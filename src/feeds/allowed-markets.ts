// The markets the key may trade (meta.allowed_markets), cached per connection: read from any answer's meta, or asked once with GET /markets (shared by concurrent callers) when unknown.
import type { Meta } from "../api/schemas";
import type { Clock } from "./clock";
import { NoKeyError, feedErrorOf, isConnectionError, type FeedError } from "./feed-error";
import type { FeedClient } from "./topic";

/** meta.allowed_markets when the service sent a list of symbols, else null. */
export function allowedMarketsOf(meta: Meta): readonly string[] | null {
  const list = meta.allowed_markets;
  return Array.isArray(list) && list.every((m) => typeof m === "string") ? (list as string[]) : null;
}

/** What the cache needs of the hub: the current client, and where a GET /markets' answer or connection error goes. */
interface AllowedMarketsPorts {
  client(): FeedClient | null;
  answered(): void;
  connectionFailed(error: FeedError): void;
}

export class AllowedMarkets {
  private allowed: { markets: readonly string[] | null; at: number } | null = null;
  private request: Promise<readonly string[] | null> | null = null;
  /** Bumped by `forget`: an answer to an older connection's request is not kept. */
  private generation = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly ports: AllowedMarketsPorts,
  ) {}

  /** meta.allowed_markets, cached per connection; one GET /markets (shared by concurrent callers) when unknown. */
  get(): Promise<readonly string[] | null> {
    if (this.allowed && this.clock.now() - this.allowed.at < this.ttlMs) return Promise.resolve(this.allowed.markets);
    if (this.request) return this.request;
    const client = this.ports.client();
    if (!client) return Promise.reject(new NoKeyError());
    const generation = this.generation;
    const request = client
      .polling()
      .markets()
      .then(
        (result) => {
          if (generation === this.generation) {
            this.note(result.meta, true);
            this.ports.answered();
          }
          return allowedMarketsOf(result.meta);
        },
        (e: unknown) => {
          const error = feedErrorOf(e);
          if (generation === this.generation && isConnectionError(error)) this.ports.connectionFailed(error);
          throw e;
        },
      );
    this.request = request;
    const clear = () => {
      if (this.request === request) this.request = null;
    };
    request.then(clear, clear);
    return request;
  }

  /** The cached allowed markets, or null when not known yet (no request is made). */
  known(): readonly string[] | null {
    return this.allowed?.markets ?? null;
  }

  /** The cached allowed markets while they are fresh (the same time to live as `get`), else null (no request is made). */
  fresh(): readonly string[] | null {
    return this.allowed && this.clock.now() - this.allowed.at < this.ttlMs ? this.allowed.markets : null;
  }

  /** Keeps the list an answer's meta carries (`force`: keep "unknown" too, from GET /markets itself). */
  note(meta: Meta, force: boolean): void {
    const markets = allowedMarketsOf(meta);
    if (markets || force) this.allowed = { markets, at: this.clock.now() };
  }

  /** A new connection: nothing known, and an answer still on its way is not kept. */
  forget(): void {
    this.generation += 1;
    this.allowed = null;
    this.request = null;
  }
}
