// The subscription hub: one poller per distinct request (topic) while something shows it, fanned out to every subscriber, with backoff, pause, staleness, a budget that follows the client's learned rate, and a refresh after every trade. Over 600 lines because one class owns every topic's timer and each path that reschedules it (subscribe, pause, trade, recovery, reconnect); its retry rule is retry.ts, a topic's state topic.ts.
import type { Meta } from "../api/schemas";
import type { ApiResult } from "../api/sender";
import { systemClock, type Clock, type TimerHandle } from "./clock";
import {
  DEFAULT_INTERVALS_MS,
  ENDPOINTS,
  Topic,
  type Endpoint,
  type FeedClient,
  type FetchContext,
  type Listener,
  type Snapshot,
  type TopicSpec,
} from "./topic";
import { NO_KEY, NoKeyError, feedErrorOf, isConnectionError, type FeedError } from "./feed-error";
import {
  DEFAULT_MAX_BACKOFF_MS,
  DEFAULT_OUTAGE_BACKOFF_MS,
  DEFAULT_PERMANENT_RETRY_MS,
  DEFAULT_STALE_AFTER_MS,
  MIN_INTERVAL_MS,
  afterFailure,
  afterRecovery,
  afterSuccess,
  afterTrade,
  afterTradeDuringPoll,
  probeDueAt,
  type RetryLimits,
} from "./retry";

export { MIN_INTERVAL_MS } from "./retry";
export { DEFAULT_INTERVALS_MS, ENDPOINTS } from "./topic";
export type { Endpoint, FeedClient, FetchContext, Listener, Snapshot, TopicSpec } from "./topic";

/** Where the current client comes from: the shared runtime's Connection satisfies this. */
export interface ClientSource {
  readonly client: FeedClient | null;
  /** False until the saved settings have been read: without a client, cells wait (#BUSY!) instead of asking for a key. */
  readonly ready?: boolean;
  onChange(listener: (client: FeedClient | null) => void): () => void;
}

/** The feeds' budget when the client does not say what rate it has learned (requests per second). */
export const DEFAULT_BUDGET_PER_SECOND = 5;
/** The endpoints a trade changes: their topics are asked again at once after one (at most once a second each). */
export const TRADE_ENDPOINTS: readonly Endpoint[] = ["positions", "account", "hedges", "hedge", "history"];

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
  /** The request rate the client allows itself now (learned from the service's answers), requests per second. */
  ratePerSecond: number;
  /** 429 answers in the last minute (polls and actions). */
  rateLimitedInLastMinute: number;
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
  /** A fixed budget for all feeds together (requests per second); by default the client's learned rate. */
  budgetPerSecond?: number;
  /** Longest wait before a failing endpoint is asked again (by one of its topics, the probe). */
  maxBackoffMs?: number;
  /** Longest wait between polls of each failing topic while the probe keeps asking. */
  outageBackoffMs?: number;
  /** For the backoff's jitter. */
  random?: () => number;
  /** Wait before asking again after a permanent error (401, 404, …). */
  permanentRetryMs?: number;
  /** How long a topic keeps its value after its last subscriber left (a re-entered formula gets it back at once). */
  lingerMs?: number;
  allowedMarketsTtlMs?: number;
  /** HEDGE.STATUS refresh while nothing else happens (requests in the last minute decay). */
  statusTickMs?: number;
}

export class FeedHub {
  private readonly source: ClientSource;
  private readonly clock: Clock;
  private readonly intervals: Record<Endpoint, number>;
  private readonly limits: RetryLimits;
  private readonly fixedBudget: number | null;
  private readonly random: () => number;
  private readonly lingerMs: number;
  private readonly allowedTtlMs: number;
  private readonly statusTickMs: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private readonly topics = new Map<string, Topic<any>>();
  private readonly statusListeners = new Map<number, (status: FeedStatus) => void>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly detach: () => void;
  private detachTrades: () => void = () => undefined;
  private nextId = 1;
  private generation = 0;
  private isPaused = false;
  /** Requests per second all subscribed topics want at their configured intervals (null: to be recomputed). */
  private loadCache: number | null = null;
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
    const maxBackoffMs = options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
    this.limits = {
      staleAfterMs: options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS,
      maxBackoffMs,
      outageBackoffMs: Math.max(maxBackoffMs, options.outageBackoffMs ?? DEFAULT_OUTAGE_BACKOFF_MS),
      permanentRetryMs: options.permanentRetryMs ?? DEFAULT_PERMANENT_RETRY_MS,
    };
    this.fixedBudget = options.budgetPerSecond ?? null;
    this.random = options.random ?? Math.random;
    this.lingerMs = options.lingerMs ?? 30_000;
    this.allowedTtlMs = options.allowedMarketsTtlMs ?? 5 * 60_000;
    this.statusTickMs = options.statusTickMs ?? 5_000;
    this.detach = this.source.onChange(() => this.reconnect());
    this.followTrades();
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
    if (wasIdle) this.loadCache = null;

    if (!this.source.client) {
      // Until the saved settings are read the cell shows nothing yet (#BUSY!), not "set your key".
      if (this.settingsRead()) safely(listener, this.noKeySnapshot(t));
    } else if (t.snapshot) safely(listener, t.snapshot);
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

  /**
   * After a trade: every topic of what a trade changes (positions, account, hedge lists, hedges, history) is asked
   * again at once (a topic polled less than a second ago: a second after that poll), paused or not; one with a poll in
   * flight asks again when it ends; one nobody shows any more is forgotten, so a new cell never gets its old answer.
   */
  refreshAfterTrade(): void {
    const now = this.clock.now();
    for (const topic of [...this.topics.values()]) {
      if (!TRADE_ENDPOINTS.includes(topic.spec.endpoint) || topic.final) continue;
      if (topic.listeners.size === 0) {
        if (topic.inFlight) continue;
        if (topic.lingerTimer !== null) this.clock.clearTimeout(topic.lingerTimer);
        this.topics.delete(topic.spec.key);
      } else if (topic.inFlight) {
        topic.again = true;
      } else {
        topic.nextDueAt = afterTrade(now, topic.nextDueAt, topic.lastStartedAt);
        this.schedule(topic, topic.nextDueAt - now);
      }
    }
  }

  // ---- intervals ----

  /** Sets an endpoint's poll interval (at least MIN_INTERVAL_MS); it applies from each topic's next poll. */
  setInterval(endpoint: Endpoint, ms: number): void {
    if (!ENDPOINTS.includes(endpoint)) throw new RangeError(`Unknown endpoint "${endpoint}"; use one of ${ENDPOINTS.join(", ")}.`);
    if (!Number.isFinite(ms)) throw new RangeError(`Poll interval of ${endpoint} must be a number of milliseconds.`);
    this.intervals[endpoint] = Math.max(MIN_INTERVAL_MS, ms);
    this.loadCache = null;
  }

  /** Configured intervals per endpoint (before any stretching to stay within the budget). */
  intervalsMs(): Readonly<Record<Endpoint, number>> {
    return { ...this.intervals };
  }

  /** The interval a topic of this endpoint polls at now: the configured one, stretched when all pollers together would exceed the budget. */
  effectiveIntervalMs(endpoint: Endpoint): number {
    return Math.round(this.intervals[endpoint] * this.stretch());
  }

  /**
   * Requests per second all feeds together may send: the client's learned rate (shared with trading, which goes
   * first in the client's queue), or the fixed budget given to the hub.
   */
  budgetPerSecond(): number {
    if (this.fixedBudget !== null) return this.fixedBudget;
    const rate = this.source.client?.flowState().ratePerSecond;
    return rate !== undefined && rate > 0 ? rate : DEFAULT_BUDGET_PER_SECOND;
  }

  // ---- status ----

  status(): FeedStatus {
    const client = this.source.client;
    const environment: EnvironmentName = !client ? "none" : client.environment === "production" ? "live" : "sandbox";
    const err = this.lastConnectionError;
    const failing = this.failing();
    let reason = "";
    if (!client && !this.settingsRead()) reason = "Reading the saved settings";
    else if (!client) reason = `No API key: ${NO_KEY.message}`;
    else if (failing && err) reason = `${err.error.code}: ${err.error.message}`;
    else if (this.lastSuccessAt === null) reason = "No answer yet";
    let active = 0;
    for (const topic of this.topics.values()) if (topic.listeners.size > 0) active++;
    const flow = client?.flowState();
    return {
      environment,
      connected: client !== null && !failing && this.lastSuccessAt !== null,
      reason,
      lastError: err ? { code: err.error.code, message: err.error.message, at: err.at } : null,
      lastSuccessAt: this.lastSuccessAt,
      requestsInLastMinute: client ? client.requestsInLastMinute() : 0,
      ratePerSecond: flow ? Math.round(flow.ratePerSecond * 10) / 10 : 0,
      rateLimitedInLastMinute: flow ? flow.rateLimitedInLastMinute : 0,
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
    const request = client
      .polling()
      .markets()
      .then(
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
    this.detachTrades();
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

  /** The source has read the saved settings (a source that does not say is taken as ready). */
  private settingsRead(): boolean {
    return this.source.ready !== false;
  }

  private start<T>(topic: Topic<T>): void {
    if (!this.source.client || topic.final || topic.inFlight || topic.timer !== null) return;
    if (this.isPaused) {
      // Paused: a question with no answer yet is still asked once; nothing is polled.
      if (topic.value === undefined && topic.error === null) this.poll(topic);
      return;
    }
    this.schedule(topic, topic.nextDueAt - this.clock.now());
  }

  /** The last subscriber left: no more polls, and a poll only it was waiting for is aborted (its request too, if no one else shares it). */
  private idle<T>(topic: Topic<T>): void {
    this.clearTimer(topic);
    this.loadCache = null;
    if (topic.controller) {
      topic.controller.abort(new Error("No cell or pane shows this any more."));
      topic.controller = null;
      topic.again = false;
      topic.nextDueAt = Math.min(topic.nextDueAt, this.clock.now()); // whoever comes back gets a fresh answer at once
    }
    if (topic.failures > 0) this.keepProbing(topic.spec.endpoint, this.clock.now()); // it may have been the probe
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
    topic.lastStartedAt = startedAt;
    const context: FetchContext = { signal: controller.signal, allowedMarkets: () => this.allowedMarkets() };
    const run = (async () => {
      let result: ApiResult<T> | undefined;
      let failure: FeedError | undefined;
      try {
        result = await topic.spec.fetch(client.polling(), context);
      } catch (e) {
        failure = feedErrorOf(e);
      }
      // The connection changed, or nobody waits for this answer any more.
      if (generation !== this.generation || topic.controller !== controller) return;
      topic.controller = null;
      const wasFailing = topic.failures > 0;
      if (result) this.succeeded(topic, result, startedAt);
      else if (failure) this.failed(topic, failure);
      if (topic.again) {
        topic.again = false;
        topic.nextDueAt = afterTradeDuringPoll(topic.nextDueAt, startedAt);
      }
      if (topic.listeners.size > 0 && !this.isPaused && !topic.final) this.schedule(topic, topic.nextDueAt - this.clock.now());
      else if (topic.listeners.size === 0 && topic.lingerTimer === null) this.idle(topic);
      if (failure?.retryable) this.keepProbing(topic.spec.endpoint, this.clock.now());
      if (result && wasFailing) this.recovered(topic);
      this.emitStatus();
    })();
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  /** The last connection-level error is newer than the last good answer. */
  private failing(): boolean {
    const err = this.lastConnectionError;
    return err !== null && (this.lastSuccessAt === null || err.at >= this.lastSuccessAt);
  }

  /**
   * A topic that was failing answers again: the service is back, so every other topic still backing off asks at once
   * instead of waiting out its backoff (one still failing for its own reason just fails once more).
   */
  private recovered<T>(answered: Topic<T>): void {
    if (this.isPaused) return;
    const now = this.clock.now();
    for (const topic of this.topics.values()) {
      if (topic === answered || !this.backingOff(topic)) continue;
      topic.nextDueAt = afterRecovery(now, topic.notBefore);
      this.schedule(topic, topic.nextDueAt - now);
    }
  }

  /** A subscribed topic waiting out transient trouble (not a permanent error, not in flight). */
  private backingOff<T>(topic: Topic<T>): boolean {
    if (topic.failures === 0 || topic.inFlight || topic.listeners.size === 0 || topic.final) return false;
    return topic.lastError === null || topic.lastError.retryable;
  }

  /**
   * Keeps one probe per failing endpoint: if none of its backing-off topics is due within the probe interval (the
   * 15 s cap, with jitter, and never before a Retry-After), the one due soonest is brought forward to it.
   */
  private keepProbing(endpoint: Endpoint, now: number): void {
    let soonest: Topic<unknown> | null = null;
    for (const topic of this.topics.values()) {
      if (topic.spec.endpoint !== endpoint || !this.backingOff(topic)) continue;
      if (soonest === null || topic.nextDueAt < soonest.nextDueAt) soonest = topic;
    }
    if (soonest === null || this.isPaused) return;
    const probeAt = probeDueAt(this.limits, soonest, now, this.effectiveIntervalMs(endpoint), this.random());
    if (probeAt === null) return;
    soonest.nextDueAt = probeAt;
    if (soonest.timer !== null) this.schedule(soonest, probeAt - now);
  }

  private succeeded<T>(topic: Topic<T>, result: ApiResult<T>, startedAt: number): void {
    const now = this.clock.now();
    topic.value = result.data;
    topic.meta = result.meta;
    topic.fetchedAt = now;
    topic.error = null;
    topic.lastError = null;
    topic.failures = 0;
    topic.failingSince = null;
    const wasFinal = topic.final;
    topic.final = topic.spec.isFinal?.(result.data) ?? false;
    if (topic.final !== wasFinal) this.loadCache = null;
    topic.nextDueAt = afterSuccess(startedAt, this.effectiveIntervalMs(topic.spec.endpoint));
    this.lastSuccessAt = now;
    this.noteAllowed(result.meta, false);
    this.publish(topic);
  }

  /** A failed poll: the retry rule (retry.ts, afterFailure) says when it asks again and whether the cells show the error. */
  private failed<T>(topic: Topic<T>, error: FeedError): void {
    const now = this.clock.now();
    topic.lastError = error;
    topic.failures += 1;
    topic.failingSince ??= now;
    if (isConnectionError(error)) this.lastConnectionError = { error, at: now };
    const failing = {
      failures: topic.failures,
      failingSince: topic.failingSince,
      fetchedAt: topic.fetchedAt,
      hasValue: topic.value !== undefined,
    };
    const next = afterFailure(this.limits, failing, error, now, this.effectiveIntervalMs(topic.spec.endpoint), this.random());
    topic.error = next.showError ? error : null;
    if (error.retryable) topic.notBefore = next.notBefore;
    topic.nextDueAt = next.nextDueAt;
    if (next.publish) this.publish(topic);
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

  /** Refreshes what trades change after every trade made through the current client. */
  private followTrades(): void {
    this.detachTrades();
    this.detachTrades = this.source.client?.onTrade(() => this.refreshAfterTrade()) ?? (() => undefined);
  }

  /** A new client (new key or base URL) or none: every topic forgets its value and asks again, or shows "set your key". */
  private reconnect(): void {
    this.generation += 1;
    this.allowed = null;
    this.allowedRequest = null;
    this.lastSuccessAt = null;
    this.lastConnectionError = null;
    this.followTrades();
    const now = this.clock.now();
    const client = this.source.client;
    for (const topic of this.topics.values()) {
      this.clearTimer(topic);
      topic.reset(now);
      if (topic.listeners.size === 0) continue;
      if (!client) {
        if (!this.settingsRead()) continue;
        const snapshot = this.noKeySnapshot(topic);
        for (const listener of topic.listeners.values()) safely(listener, snapshot);
      } else {
        // A new key is checked once even while paused; not paused, it is asked at once too (a timer would wait behind
        // the page's start: src/functions/README.md "When the page starts"), and polled on from there.
        this.poll(topic);
      }
    }
    this.loadCache = null;
    this.emitStatus();
  }

  private noteAllowed(meta: Meta, force: boolean): void {
    const markets = allowedMarketsOf(meta);
    if (markets || force) this.allowed = { markets, at: this.clock.now() };
  }

  /** How much every interval is stretched so that all subscribed topics together stay within the budget (at least 1). */
  private stretch(): number {
    if (this.loadCache === null) {
      let load = 0;
      for (const topic of this.topics.values()) {
        if (topic.listeners.size > 0 && !topic.final) load += 1000 / this.intervals[topic.spec.endpoint];
      }
      this.loadCache = load;
    }
    return Math.max(1, this.loadCache / this.budgetPerSecond());
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
