// The subscription hub: one poller per distinct request (topic), fanned out to every subscriber, with pause, staleness and a request budget.
import type { HedgingClient } from "../api/client";
import type { Meta } from "../api/schemas";
import type { ApiResult } from "../api/sender";
import { systemClock, type Clock, type TimerHandle } from "./clock";
import { NO_KEY, NoKeyError, feedErrorOf, isConnectionError, type FeedError } from "./feed-error";

/** The part of HedgingClient the feeds use (a fake in unit tests). */
export type FeedClient = Pick<
  HedgingClient,
  "environment" | "markets" | "prices" | "account" | "positions" | "quote" | "list" | "get" | "history" | "requestsInLastMinute"
>;

/** Where the current client comes from: the shared runtime's Connection satisfies this. */
export interface ClientSource {
  readonly client: FeedClient | null;
  onChange(listener: (client: FeedClient | null) => void): () => void;
}

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
export const MIN_INTERVAL_MS = 1_000;
/** A value older than this is not shown any more when polls keep failing: the cell turns into #N/A. */
export const DEFAULT_STALE_AFTER_MS = 5 * 60_000;
/** All pollers together send at most this many requests per second (the client's token bucket allows 8). */
export const DEFAULT_BUDGET_PER_SECOND = 5;

export interface FetchContext {
  signal: AbortSignal;
  /** meta.allowed_markets of the account (cached; one GET /markets when unknown), or null when the service does not say. */
  allowedMarkets(): Promise<readonly string[] | null>;
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

export type EnvironmentName = "sandbox" | "live" | "none";

export interface FeedStatus {
  environment: EnvironmentName;
  /** A key is set and the latest answer was good. */
  connected: boolean;
  /** Why not connected ("" when connected). Never contains the key. */
  reason: string;
  lastError: { code: string; message: string; at: number } | null;
  /** Clock ms of the last good answer, or null. */
  lastSuccessAt: number | null;
  /** From the client: every request of the shared runtime, retries included. */
  requestsInLastMinute: number;
  paused: boolean;
  /** Topics with at least one subscriber. */
  activeTopics: number;
}

export interface TopicInfo {
  key: string;
  endpoint: Endpoint;
  subscribers: number;
  polling: boolean;
  final: boolean;
  fetchedAt: number | null;
  intervalMs: number;
}

export interface HubOptions {
  source: ClientSource;
  clock?: Clock;
  intervalsMs?: Partial<Record<Endpoint, number>>;
  staleAfterMs?: number;
  budgetPerSecond?: number;
  /** Longest wait between polls while an endpoint keeps failing. */
  maxBackoffMs?: number;
  /** Wait before asking again after a permanent error (401, 404, …). */
  permanentRetryMs?: number;
  /** How long a topic keeps its value after its last subscriber left (a re-entered formula gets it back at once). */
  lingerMs?: number;
  allowedMarketsTtlMs?: number;
  /** HEDGE.STATUS refresh while nothing else happens (requests in the last minute decay). */
  statusTickMs?: number;
}

class Topic<T> {
  readonly listeners = new Map<number, Listener<T>>();
  value: T | undefined = undefined;
  meta: Meta = {};
  fetchedAt: number | null = null;
  error: FeedError | null = null;
  lastError: FeedError | null = null;
  failures = 0;
  final = false;
  nextDueAt: number;
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
    this.final = false;
    this.nextDueAt = now;
    this.snapshot = null;
    this.controller?.abort();
    this.controller = null;
  }
}

export class FeedHub {
  private readonly source: ClientSource;
  private readonly clock: Clock;
  private readonly intervals: Record<Endpoint, number>;
  private readonly staleAfterMs: number;
  private readonly budgetPerSecond: number;
  private readonly maxBackoffMs: number;
  private readonly permanentRetryMs: number;
  private readonly lingerMs: number;
  private readonly allowedTtlMs: number;
  private readonly statusTickMs: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private readonly topics = new Map<string, Topic<any>>();
  private readonly statusListeners = new Map<number, (status: FeedStatus) => void>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly detach: () => void;
  private nextId = 1;
  private generation = 0;
  private isPaused = false;
  private stretchCache: number | null = null;
  private lastSuccessAt: number | null = null;
  private lastConnectionError: { error: FeedError; at: number } | null = null;
  private allowed: { markets: readonly string[] | null; at: number } | null = null;
  private allowedRequest: Promise<readonly string[] | null> | null = null;
  private statusTimer: TimerHandle | null = null;

  constructor(options: HubOptions) {
    this.source = options.source;
    this.clock = options.clock ?? systemClock;
    this.intervals = { ...DEFAULT_INTERVALS_MS };
    for (const [endpoint, ms] of Object.entries(options.intervalsMs ?? {})) this.setInterval(endpoint as Endpoint, ms);
    this.staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    this.budgetPerSecond = options.budgetPerSecond ?? DEFAULT_BUDGET_PER_SECOND;
    this.maxBackoffMs = options.maxBackoffMs ?? 60_000;
    this.permanentRetryMs = options.permanentRetryMs ?? 60_000;
    this.lingerMs = options.lingerMs ?? 30_000;
    this.allowedTtlMs = options.allowedMarketsTtlMs ?? 5 * 60_000;
    this.statusTickMs = options.statusTickMs ?? 5_000;
    this.detach = this.source.onChange(() => this.reconnect());
  }

  // ---- subscribing ----

  /**
   * Subscribes to the topic of `spec.key` (created on first use). The listener gets the cached snapshot at once
   * when there is one, then every update. The returned function unsubscribes; calling it again does nothing, so a
   * late onCanceled of a replaced cell never removes the cell that replaced it.
   */
  subscribe<T>(spec: TopicSpec<T>, listener: Listener<T>): () => void {
    let topic = this.topics.get(spec.key) as Topic<T> | undefined;
    if (!topic) {
      topic = new Topic(spec, this.clock.now());
      this.topics.set(spec.key, topic);
    }
    const t = topic;
    if (t.lingerTimer !== null) {
      this.clock.clearTimeout(t.lingerTimer);
      t.lingerTimer = null;
    }
    const id = this.nextId++;
    const wasIdle = t.listeners.size === 0;
    t.listeners.set(id, listener);
    if (wasIdle) this.stretchCache = null;

    if (!this.source.client) safely(listener, this.noKeySnapshot(t));
    else if (t.snapshot) safely(listener, t.snapshot);
    if (wasIdle) this.start(t);
    this.emitStatus();

    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      t.listeners.delete(id);
      if (t.listeners.size === 0) this.idle(t);
    };
  }

  /** The topic's current snapshot without subscribing, or undefined. */
  peek<T>(key: string): Snapshot<T> | undefined {
    return (this.topics.get(key)?.snapshot ?? undefined) as Snapshot<T> | undefined;
  }

  // ---- pause, resume, refresh ----

  get paused(): boolean {
    return this.isPaused;
  }

  /** Stops every poll; values stay. A new question asked while paused is still answered once. */
  pause(): void {
    if (this.isPaused) return;
    this.isPaused = true;
    for (const topic of this.topics.values()) this.clearTimer(topic);
    this.emitStatus();
  }

  /** Restarts polling where each topic left off (an overdue topic polls at once). */
  resume(): void {
    if (!this.isPaused) return;
    this.isPaused = false;
    for (const topic of this.topics.values()) if (topic.listeners.size > 0) this.start(topic);
    this.emitStatus();
  }

  togglePause(): boolean {
    if (this.isPaused) this.resume();
    else this.pause();
    return this.isPaused;
  }

  /** Polls every subscribed topic now (the pane's "Refresh"), paused or not. */
  refresh(): void {
    for (const topic of this.topics.values()) {
      if (topic.listeners.size === 0 || topic.inFlight) continue;
      this.clearTimer(topic);
      topic.final = false;
      this.poll(topic);
    }
  }

  // ---- intervals ----

  /** Sets an endpoint's poll interval (at least MIN_INTERVAL_MS); it applies from each topic's next poll. */
  setInterval(endpoint: Endpoint, ms: number): void {
    if (!ENDPOINTS.includes(endpoint)) throw new RangeError(`Unknown endpoint "${endpoint}"; use one of ${ENDPOINTS.join(", ")}.`);
    if (!Number.isFinite(ms)) throw new RangeError(`Poll interval of ${endpoint} must be a number of milliseconds.`);
    this.intervals[endpoint] = Math.max(MIN_INTERVAL_MS, ms);
    this.stretchCache = null;
  }

  /** Configured intervals per endpoint (before any stretching to stay within the budget). */
  intervalsMs(): Readonly<Record<Endpoint, number>> {
    return { ...this.intervals };
  }

  /** The interval a topic of this endpoint polls at now: the configured one, stretched when all pollers together would exceed the budget. */
  effectiveIntervalMs(endpoint: Endpoint): number {
    return Math.round(this.intervals[endpoint] * this.stretch());
  }

  // ---- status ----

  status(): FeedStatus {
    const client = this.source.client;
    const environment: EnvironmentName = !client ? "none" : client.environment === "production" ? "live" : "sandbox";
    const err = this.lastConnectionError;
    const failing = err !== null && (this.lastSuccessAt === null || err.at >= this.lastSuccessAt);
    let reason = "";
    if (!client) reason = `No API key: ${NO_KEY.message}`;
    else if (failing) reason = `${err.error.code}: ${err.error.message}`;
    else if (this.lastSuccessAt === null) reason = "No answer yet";
    let active = 0;
    for (const topic of this.topics.values()) if (topic.listeners.size > 0) active++;
    return {
      environment,
      connected: client !== null && !failing && this.lastSuccessAt !== null,
      reason,
      lastError: err ? { code: err.error.code, message: err.error.message, at: err.at } : null,
      lastSuccessAt: this.lastSuccessAt,
      requestsInLastMinute: client ? client.requestsInLastMinute() : 0,
      paused: this.isPaused,
      activeTopics: active,
    };
  }

  /** Calls the listener now and on every change of status (and every few seconds while subscribed). */
  onStatus(listener: (status: FeedStatus) => void): () => void {
    const id = this.nextId++;
    this.statusListeners.set(id, listener);
    safely(listener, this.status());
    this.tickStatus();
    return () => {
      this.statusListeners.delete(id);
      if (this.statusListeners.size === 0 && this.statusTimer !== null) {
        this.clock.clearTimeout(this.statusTimer);
        this.statusTimer = null;
      }
    };
  }

  /** Every topic the hub knows, for the pane's diagnostics and for tests. */
  topicInfo(): TopicInfo[] {
    return [...this.topics.values()].map((t) => ({
      key: t.spec.key,
      endpoint: t.spec.endpoint,
      subscribers: t.listeners.size,
      polling: t.timer !== null || t.inFlight,
      final: t.final,
      fetchedAt: t.fetchedAt,
      intervalMs: this.effectiveIntervalMs(t.spec.endpoint),
    }));
  }

  // ---- allowed markets ----

  /** meta.allowed_markets, cached per connection; one GET /markets (shared by concurrent callers) when unknown. */
  allowedMarkets(): Promise<readonly string[] | null> {
    if (this.allowed && this.clock.now() - this.allowed.at < this.allowedTtlMs) return Promise.resolve(this.allowed.markets);
    if (this.allowedRequest) return this.allowedRequest;
    const client = this.source.client;
    if (!client) return Promise.reject(new NoKeyError());
    const generation = this.generation;
    const request = client.markets().then(
      (result) => {
        if (generation === this.generation) {
          this.noteAllowed(result.meta, true);
          this.lastSuccessAt = this.clock.now();
          this.emitStatus();
        }
        return allowedMarketsOf(result.meta);
      },
      (e: unknown) => {
        const error = feedErrorOf(e);
        if (generation === this.generation && isConnectionError(error)) {
          this.lastConnectionError = { error, at: this.clock.now() };
          this.emitStatus();
        }
        throw e;
      },
    );
    this.allowedRequest = request;
    const clear = () => {
      if (this.allowedRequest === request) this.allowedRequest = null;
    };
    request.then(clear, clear);
    return request;
  }

  /** The cached allowed markets, or null when not known yet (no request is made). */
  knownAllowedMarkets(): readonly string[] | null {
    return this.allowed?.markets ?? null;
  }

  // ---- tests and benchmarks ----

  /** Resolves once no poll is in flight. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Stops every timer and forgets every topic. */
  dispose(): void {
    this.detach();
    for (const topic of this.topics.values()) {
      this.clearTimer(topic);
      if (topic.lingerTimer !== null) this.clock.clearTimeout(topic.lingerTimer);
      topic.controller?.abort();
    }
    this.topics.clear();
    this.statusListeners.clear();
    if (this.statusTimer !== null) this.clock.clearTimeout(this.statusTimer);
    this.statusTimer = null;
  }

  // ---- internals ----

  private start<T>(topic: Topic<T>): void {
    if (!this.source.client || topic.final || topic.inFlight || topic.timer !== null) return;
    if (this.isPaused) {
      // Paused: a question with no answer yet is still asked once; nothing is polled.
      if (topic.value === undefined && topic.error === null) this.poll(topic);
      return;
    }
    this.schedule(topic, topic.nextDueAt - this.clock.now());
  }

  private idle<T>(topic: Topic<T>): void {
    this.clearTimer(topic);
    this.stretchCache = null;
    this.emitStatus();
    topic.lingerTimer = this.clock.setTimeout(() => {
      topic.lingerTimer = null;
      if (topic.listeners.size === 0 && !topic.inFlight) this.topics.delete(topic.spec.key);
    }, this.lingerMs);
  }

  private schedule<T>(topic: Topic<T>, delayMs: number): void {
    this.clearTimer(topic);
    topic.timer = this.clock.setTimeout(
      () => {
        topic.timer = null;
        this.poll(topic);
      },
      Math.max(0, delayMs),
    );
  }

  private clearTimer<T>(topic: Topic<T>): void {
    if (topic.timer === null) return;
    this.clock.clearTimeout(topic.timer);
    topic.timer = null;
  }

  private poll<T>(topic: Topic<T>): void {
    const client = this.source.client;
    if (!client || topic.inFlight) return;
    const controller = new AbortController();
    topic.controller = controller;
    const generation = this.generation;
    const startedAt = this.clock.now();
    const context: FetchContext = { signal: controller.signal, allowedMarkets: () => this.allowedMarkets() };
    const run = (async () => {
      let result: ApiResult<T> | undefined;
      let failure: FeedError | undefined;
      try {
        result = await topic.spec.fetch(client, context);
      } catch (e) {
        failure = feedErrorOf(e);
      }
      if (generation !== this.generation || topic.controller !== controller) return; // the connection changed meanwhile
      topic.controller = null;
      if (result) this.succeeded(topic, result, startedAt);
      else if (failure) this.failed(topic, failure);
      if (topic.listeners.size > 0 && !this.isPaused && !topic.final) this.schedule(topic, topic.nextDueAt - this.clock.now());
      else if (topic.listeners.size === 0 && topic.lingerTimer === null) this.idle(topic);
      this.emitStatus();
    })();
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  private succeeded<T>(topic: Topic<T>, result: ApiResult<T>, startedAt: number): void {
    const now = this.clock.now();
    topic.value = result.data;
    topic.meta = result.meta;
    topic.fetchedAt = now;
    topic.error = null;
    topic.lastError = null;
    topic.failures = 0;
    const wasFinal = topic.final;
    topic.final = topic.spec.isFinal?.(result.data) ?? false;
    if (topic.final !== wasFinal) this.stretchCache = null;
    topic.nextDueAt = startedAt + this.effectiveIntervalMs(topic.spec.endpoint);
    this.lastSuccessAt = now;
    this.noteAllowed(result.meta, false);
    this.publish(topic);
  }

  private failed<T>(topic: Topic<T>, error: FeedError): void {
    const now = this.clock.now();
    topic.lastError = error;
    topic.failures += 1;
    if (isConnectionError(error)) this.lastConnectionError = { error, at: now };
    const interval = this.effectiveIntervalMs(topic.spec.endpoint);
    if (error.retryable) {
      const tooOld = topic.fetchedAt === null || now - topic.fetchedAt > this.staleAfterMs;
      topic.error = tooOld ? error : null;
      topic.nextDueAt = now + Math.min(this.maxBackoffMs, interval * 2 ** (topic.failures - 1));
    } else {
      topic.error = error;
      topic.nextDueAt = now + Math.max(interval, this.permanentRetryMs);
    }
    this.publish(topic);
  }

  private publish<T>(topic: Topic<T>): void {
    const snapshot: Snapshot<T> = {
      key: topic.spec.key,
      value: topic.value,
      meta: topic.meta,
      fetchedAt: topic.fetchedAt,
      error: topic.error,
      lastError: topic.lastError,
    };
    topic.snapshot = snapshot;
    for (const listener of topic.listeners.values()) safely(listener, snapshot);
  }

  private noKeySnapshot<T>(topic: Topic<T>): Snapshot<T> {
    return { key: topic.spec.key, value: undefined, meta: {}, fetchedAt: null, error: NO_KEY, lastError: NO_KEY };
  }

  /** A new client (new key or base URL) or none: every topic forgets its value and asks again, or shows "set your key". */
  private reconnect(): void {
    this.generation += 1;
    this.allowed = null;
    this.allowedRequest = null;
    this.lastSuccessAt = null;
    this.lastConnectionError = null;
    const now = this.clock.now();
    const client = this.source.client;
    for (const topic of this.topics.values()) {
      this.clearTimer(topic);
      topic.reset(now);
      if (topic.listeners.size === 0) continue;
      if (!client) {
        const snapshot = this.noKeySnapshot(topic);
        for (const listener of topic.listeners.values()) safely(listener, snapshot);
      } else if (this.isPaused) {
        this.poll(topic); // a new key is checked once even while paused
      } else {
        this.start(topic);
      }
    }
    this.stretchCache = null;
    this.emitStatus();
  }

  private noteAllowed(meta: Meta, force: boolean): void {
    const markets = allowedMarketsOf(meta);
    if (markets || force) this.allowed = { markets, at: this.clock.now() };
  }

  private stretch(): number {
    if (this.stretchCache !== null) return this.stretchCache;
    let load = 0;
    for (const topic of this.topics.values()) {
      if (topic.listeners.size > 0 && !topic.final) load += 1000 / this.intervals[topic.spec.endpoint];
    }
    this.stretchCache = Math.max(1, load / this.budgetPerSecond);
    return this.stretchCache;
  }

  private emitStatus(): void {
    if (this.statusListeners.size === 0) return;
    const status = this.status();
    for (const listener of this.statusListeners.values()) safely(listener, status);
  }

  private tickStatus(): void {
    if (this.statusTimer !== null || this.statusListeners.size === 0) return;
    this.statusTimer = this.clock.setTimeout(() => {
      this.statusTimer = null;
      this.emitStatus();
      this.tickStatus();
    }, this.statusTickMs);
  }
}

/** meta.allowed_markets when the service sent a list of symbols, else null. */
export function allowedMarketsOf(meta: Meta): readonly string[] | null {
  const list = meta.allowed_markets;
  return Array.isArray(list) && list.every((m) => typeof m === "string") ? (list as string[]) : null;
}

function safely<A>(listener: (arg: A) => void, arg: A): void {
  try {
    listener(arg);
  } catch {
    // One broken subscriber must not stop the others.
  }
}
