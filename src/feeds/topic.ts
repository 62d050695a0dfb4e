// A topic of the feed hub: the request it stands for (TopicSpec, its endpoint and default interval), what its subscribers get (Snapshot), and its own polling state (Topic).
import type { HedgingClient } from "../api/client";
import type { Meta } from "../api/schemas";
import type { ApiResult } from "../api/sender";
import type { TimerHandle } from "./clock";
import type { FeedError } from "./feed-error";

/** The part of HedgingClient the feeds use (a fake in unit tests). */
export type FeedClient = Pick<
  HedgingClient,
  | "environment"
  | "markets"
  | "prices"
  | "account"
  | "positions"
  | "quote"
  | "list"
  | "get"
  | "history"
  | "requestsInLastMinute"
  | "flowState"
  | "onTrade"
> & {
  /** The view of the client the hub polls through: one attempt per read, behind every action (HedgingClient.polling). */
  polling(): FeedClient;
};

export const ENDPOINTS = ["prices", "quote", "positions", "account", "markets", "hedges", "hedge", "history"] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/** Default poll intervals; the spec calls anything faster than every second or two unnecessary. */
export const DEFAULT_INTERVALS_MS: Readonly<Record<Endpoint, number>> = {
  prices: 2_000,
  quote: 5_000,
  positions: 2_000,
  account: 2_000,
  markets: 5_000,
  hedges: 3_000,
  hedge: 2_000,
  history: 60_000,
};
export interface FetchContext {
  signal: AbortSignal;
  /** meta.allowed_markets of the account (cached; one GET /markets when unknown), or null when the service does not say. */
  allowedMarkets(): Promise<readonly string[] | null>;
  /** The allowed markets when known and fresh (cached), else null; asks nothing. */
  knownAllowedMarkets(): readonly string[] | null;
}

export interface TopicSpec<T> {
  /** The request this topic stands for, e.g. "prices:USDTNGN" or "quote:USDTNGN|buy|10000|7". */
  key: string;
  endpoint: Endpoint;
  fetch(client: FeedClient, context: FetchContext): Promise<ApiResult<T>>;
  /** True when the value cannot change any more (a closed or failed hedge): polling stops. */
  isFinal?(value: T): boolean;
}

export interface Snapshot<T> {
  key: string;
  /** The last good value, if any. */
  value: T | undefined;
  meta: Meta;
  /** When the last good value arrived (clock ms). */
  fetchedAt: number | null;
  /** Set when subscribers should show this error instead of the value. */
  error: FeedError | null;
  /** The last poll's error even while the value is still shown (transient trouble within the staleness limit). */
  lastError: FeedError | null;
}

export type Listener<T> = (snapshot: Snapshot<T>) => void;

export class Topic<T> {
  readonly listeners = new Map<number, Listener<T>>();
  value: T | undefined = undefined;
  meta: Meta = {};
  fetchedAt: number | null = null;
  error: FeedError | null = null;
  lastError: FeedError | null = null;
  failures = 0;
  /** When the current run of failures began (clock ms), or null. */
  failingSince: number | null = null;
  final = false;
  nextDueAt: number;
  /** When the last poll was sent, or null. */
  lastStartedAt: number | null = null;
  /** A trade happened while a poll was in flight: ask again when it ends (its answer may predate the trade). */
  again = false;
  /** The service's Retry-After: not asked again before this (clock ms). */
  notBefore = 0;
  timer: TimerHandle | null = null;
  lingerTimer: TimerHandle | null = null;
  controller: AbortController | null = null;
  snapshot: Snapshot<T> | null = null;

  constructor(
    readonly spec: TopicSpec<T>,
    now: number,
  ) {
    this.nextDueAt = now;
  }

  get inFlight(): boolean {
    return this.controller !== null;
  }

  reset(now: number): void {
    this.value = undefined;
    this.meta = {};
    this.fetchedAt = null;
    this.error = null;
    this.lastError = null;
    this.failures = 0;
    this.failingSince = null;
    this.final = false;
    this.nextDueAt = now;
    this.lastStartedAt = null;
    this.again = false;
    this.notBefore = 0;
    this.snapshot = null;
    this.controller?.abort();
    this.controller = null;
  }
}
