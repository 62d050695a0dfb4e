// The subscription hub: one poller per distinct request (topic) while something shows it, fanned out to every subscriber; pause, refresh, a refresh after every trade, and a new start at every new key. Each topic's poll cycle is polls.ts (its retry rule retry.ts, its state topic.ts), the budget budget.ts, the status feed-status.ts, the allowed markets allowed-markets.ts.
import { AllowedMarkets } from "./allowed-markets";
import { PollBudget } from "./budget";
import { systemClock, type Clock } from "./clock";
import { FeedHealth, feedStatus, safely, StatusListeners, type FeedStatus, type TopicInfo } from "./feed-status";
import { noKeySnapshot, Poller } from "./polls";
import {
  DEFAULT_MAX_BACKOFF_MS,
  DEFAULT_OUTAGE_BACKOFF_MS,
  DEFAULT_PERMANENT_RETRY_MS,
  DEFAULT_STALE_AFTER_MS,
  afterTrade,
  type RetryLimits,
} from "./retry";
import { Topic, type Endpoint, type FeedClient, type Listener, type Snapshot, type TopicSpec } from "./topic";

/** Where the current client comes from: the shared runtime's Connection satisfies this. */
export interface ClientSource {
  readonly client: FeedClient | null;
  /** False until the saved settings have been read: without a client, cells wait (#BUSY!) instead of asking for a key. */
  readonly ready?: boolean;
  onChange(listener: (client: FeedClient | null) => void): () => void;
}

/** The endpoints a trade changes: their topics are asked again at once after one (at most once a second each). */
export const TRADE_ENDPOINTS: readonly Endpoint[] = ["positions", "account", "hedges", "hedge", "history"];

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
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private readonly topics = new Map<string, Topic<any>>();
  private readonly budget: PollBudget;
  private readonly health = new FeedHealth();
  private readonly allowed: AllowedMarkets;
  private readonly statusListeners: StatusListeners;
  private readonly poller: Poller;
  private readonly detach: () => void;
  private detachTrades: () => void = () => undefined;
  private nextId = 1;
  private isPaused = false;

  constructor(options: HubOptions) {
    this.source = options.source;
    this.clock = options.clock ?? systemClock;
    const client = () => this.source.client;
    this.budget = new PollBudget(this.topics, client, options.budgetPerSecond ?? null);
    for (const [endpoint, ms] of Object.entries(options.intervalsMs ?? {})) this.setInterval(endpoint as Endpoint, ms);
    const maxBackoffMs = options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
    const limits: RetryLimits = {
      staleAfterMs: options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS,
      maxBackoffMs,
      outageBackoffMs: Math.max(maxBackoffMs, options.outageBackoffMs ?? DEFAULT_OUTAGE_BACKOFF_MS),
      permanentRetryMs: options.permanentRetryMs ?? DEFAULT_PERMANENT_RETRY_MS,
    };
    this.allowed = new AllowedMarkets(this.clock, options.allowedMarketsTtlMs ?? 5 * 60_000, {
      client,
      answered: () => {
        this.health.lastSuccessAt = this.clock.now();
        this.emitStatus();
      },
      connectionFailed: (error) => {
        this.health.lastConnectionError = { error, at: this.clock.now() };
        this.emitStatus();
      },
    });
    this.statusListeners = new StatusListeners(this.clock, options.statusTickMs ?? 5_000, () => this.status());
    this.poller = new Poller({
      clock: this.clock,
      limits,
      random: options.random ?? Math.random,
      lingerMs: options.lingerMs ?? 30_000,
      topics: this.topics,
      budget: this.budget,
      health: this.health,
      allowed: this.allowed,
      client,
      paused: () => this.isPaused,
      emitStatus: () => this.emitStatus(),
    });
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
    if (wasIdle) this.budget.invalidate();

    if (!this.source.client) {
      // Until the saved settings are read the cell shows nothing yet (#BUSY!), not "set your key".
      if (this.settingsRead()) safely(listener, noKeySnapshot(t));
    } else if (t.snapshot) safely(listener, t.snapshot);
    if (wasIdle) this.poller.start(t);
    this.emitStatus();

    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      t.listeners.delete(id);
      if (t.listeners.size === 0) this.poller.idle(t);
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
    for (const topic of this.topics.values()) this.poller.clearTimer(topic);
    this.emitStatus();
  }

  /** Restarts polling where each topic left off (an overdue topic polls at once). */
  resume(): void {
    if (!this.isPaused) return;
    this.isPaused = false;
    for (const topic of this.topics.values()) if (topic.listeners.size > 0) this.poller.start(topic);
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
      this.poller.clearTimer(topic);
      topic.final = false;
      this.poller.poll(topic);
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
        this.poller.schedule(topic, topic.nextDueAt - now);
      }
    }
  }

  // ---- intervals (budget.ts) ----

  /** Sets an endpoint's poll interval (at least MIN_INTERVAL_MS); it applies from each topic's next poll. */
  setInterval(endpoint: Endpoint, ms: number): void {
    this.budget.setInterval(endpoint, ms);
  }

  /** Configured intervals per endpoint (before any stretching to stay within the budget). */
  intervalsMs(): Readonly<Record<Endpoint, number>> {
    return this.budget.intervalsMs();
  }

  /** The interval a topic of this endpoint polls at now: the configured one, stretched when all pollers together would exceed the budget. */
  effectiveIntervalMs(endpoint: Endpoint): number {
    return this.budget.effectiveIntervalMs(endpoint);
  }

  /** Requests per second all feeds together may send: the client's learned rate, or the fixed budget given to the hub. */
  budgetPerSecond(): number {
    return this.budget.perSecond();
  }

  // ---- status (feed-status.ts) ----

  status(): FeedStatus {
    let active = 0;
    for (const topic of this.topics.values()) if (topic.listeners.size > 0) active++;
    return feedStatus(this.health, {
      client: this.source.client,
      settingsRead: this.settingsRead(),
      paused: this.isPaused,
      activeTopics: active,
    });
  }

  /** Calls the listener now and on every change of status (and every few seconds while subscribed). */
  onStatus(listener: (status: FeedStatus) => void): () => void {
    return this.statusListeners.add(listener);
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

  // ---- allowed markets (allowed-markets.ts) ----

  /** meta.allowed_markets, cached per connection; one GET /markets (shared by concurrent callers) when unknown. */
  allowedMarkets(): Promise<readonly string[] | null> {
    return this.allowed.get();
  }

  /** The cached allowed markets, or null when not known yet (no request is made). */
  knownAllowedMarkets(): readonly string[] | null {
    return this.allowed.known();
  }

  // ---- tests and benchmarks ----

  /** Resolves once no poll is in flight. */
  async settled(): Promise<void> {
    while (this.poller.inFlight.size > 0) await Promise.allSettled([...this.poller.inFlight]);
  }

  /** Stops every timer and forgets every topic. */
  dispose(): void {
    this.detach();
    this.detachTrades();
    for (const topic of this.topics.values()) {
      this.poller.clearTimer(topic);
      if (topic.lingerTimer !== null) this.clock.clearTimeout(topic.lingerTimer);
      topic.controller?.abort();
    }
    this.topics.clear();
    this.statusListeners.clear();
  }

  // ---- internals ----

  /** The source has read the saved settings (a source that does not say is taken as ready). */
  private settingsRead(): boolean {
    return this.source.ready !== false;
  }

  /** Refreshes what trades change after every trade made through the current client. */
  private followTrades(): void {
    this.detachTrades();
    this.detachTrades = this.source.client?.onTrade(() => this.refreshAfterTrade()) ?? (() => undefined);
  }

  /** A new client (new key or base URL) or none: every topic forgets its value and asks again, or shows "set your key". */
  private reconnect(): void {
    this.poller.newConnection();
    this.allowed.forget();
    this.health.forget();
    this.followTrades();
    const now = this.clock.now();
    const client = this.source.client;
    for (const topic of this.topics.values()) {
      this.poller.clearTimer(topic);
      topic.reset(now);
      if (topic.listeners.size === 0) continue;
      if (!client) {
        if (!this.settingsRead()) continue;
        const snapshot = noKeySnapshot(topic);
        for (const listener of topic.listeners.values()) safely(listener, snapshot);
      } else {
        // A new key is checked once even while paused; not paused, it is asked at once too (a timer would wait behind
        // the page's start: src/functions/README.md "When the page starts"), and polled on from there.
        this.poller.poll(topic);
      }
    }
    this.budget.invalidate();
    this.emitStatus();
  }

  private emitStatus(): void {
    this.statusListeners.emit();
  }
}
