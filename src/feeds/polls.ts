// Each topic's poll cycle: its timer, one poll at a time, the answer or the failure applied through the retry rule (retry.ts), the cells told, a failing endpoint probed, every topic asked again once the service is back, and a topic nobody shows kept a while then forgotten.
import type { ApiResult } from "../api/sender";
import type { AllowedMarkets } from "./allowed-markets";
import type { PollBudget } from "./budget";
import type { Clock } from "./clock";
import { NO_KEY, feedErrorOf, isConnectionError, type FeedError } from "./feed-error";
import { safely, type FeedHealth } from "./feed-status";
import { afterFailure, afterRecovery, afterSuccess, afterTradeDuringPoll, probeDueAt, type RetryLimits } from "./retry";
import type { Endpoint, FeedClient, FetchContext, Snapshot, Topic } from "./topic";

/** What the poller shares with the hub. */
interface PollerContext {
  clock: Clock;
  limits: RetryLimits;
  /** For the backoff's jitter. */
  random: () => number;
  /** How long a topic keeps its value after its last subscriber left. */
  lingerMs: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  topics: Map<string, Topic<any>>;
  budget: PollBudget;
  health: FeedHealth;
  allowed: AllowedMarkets;
  client(): FeedClient | null;
  paused(): boolean;
  emitStatus(): void;
}

export class Poller {
  /** Polls under way (tests and benchmarks wait for them: FeedHub.settled). */
  readonly inFlight = new Set<Promise<void>>();
  /** Bumped at each new connection: an answer to an older connection's poll is dropped. */
  private generation = 0;

  constructor(private readonly hub: PollerContext) {}

  /** A new client (or none): answers still on their way are dropped. */
  newConnection(): void {
    this.generation += 1;
  }

  start<T>(topic: Topic<T>): void {
    if (!this.hub.client() || topic.final || topic.inFlight || topic.timer !== null) return;
    if (this.hub.paused()) {
      // Paused: a question with no answer yet is still asked once; nothing is polled.
      if (topic.value === undefined && topic.error === null) this.poll(topic);
      return;
    }
    this.schedule(topic, topic.nextDueAt - this.hub.clock.now());
  }

  /** The last subscriber left: no more polls, and a poll only it was waiting for is aborted (its request too, if no one else shares it). */
  idle<T>(topic: Topic<T>): void {
    const { clock } = this.hub;
    this.clearTimer(topic);
    this.hub.budget.invalidate();
    if (topic.controller) {
      topic.controller.abort(new Error("No cell or pane shows this any more."));
      topic.controller = null;
      topic.again = false;
      topic.nextDueAt = Math.min(topic.nextDueAt, clock.now()); // whoever comes back gets a fresh answer at once
    }
    if (topic.failures > 0) this.keepProbing(topic.spec.endpoint, clock.now()); // it may have been the probe
    this.hub.emitStatus();
    topic.lingerTimer = clock.setTimeout(() => {
      topic.lingerTimer = null;
      if (topic.listeners.size === 0 && !topic.inFlight) this.hub.topics.delete(topic.spec.key);
    }, this.hub.lingerMs);
  }

  schedule<T>(topic: Topic<T>, delayMs: number): void {
    this.clearTimer(topic);
    topic.timer = this.hub.clock.setTimeout(
      () => {
        topic.timer = null;
        this.poll(topic);
      },
      Math.max(0, delayMs),
    );
  }

  clearTimer<T>(topic: Topic<T>): void {
    if (topic.timer === null) return;
    this.hub.clock.clearTimeout(topic.timer);
    topic.timer = null;
  }

  poll<T>(topic: Topic<T>): void {
    const { clock } = this.hub;
    const client = this.hub.client();
    if (!client || topic.inFlight) return;
    const controller = new AbortController();
    topic.controller = controller;
    const generation = this.generation;
    const startedAt = clock.now();
    topic.lastStartedAt = startedAt;
    const context: FetchContext = {
      signal: controller.signal,
      allowedMarkets: () => this.hub.allowed.get(),
      knownAllowedMarkets: () => this.hub.allowed.fresh(),
    };
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
      if (topic.listeners.size > 0 && !this.hub.paused() && !topic.final) this.schedule(topic, topic.nextDueAt - clock.now());
      else if (topic.listeners.size === 0 && topic.lingerTimer === null) this.idle(topic);
      if (failure?.retryable) this.keepProbing(topic.spec.endpoint, clock.now());
      if (result && wasFailing) this.recovered(topic);
      this.hub.emitStatus();
    })();
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  /**
   * A topic that was failing answers again: the service is back, so every other topic still backing off asks at once
   * instead of waiting out its backoff (one still failing for its own reason just fails once more).
   */
  private recovered<T>(answered: Topic<T>): void {
    if (this.hub.paused()) return;
    const now = this.hub.clock.now();
    for (const topic of this.hub.topics.values()) {
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
    for (const topic of this.hub.topics.values()) {
      if (topic.spec.endpoint !== endpoint || !this.backingOff(topic)) continue;
      if (soonest === null || topic.nextDueAt < soonest.nextDueAt) soonest = topic;
    }
    if (soonest === null || this.hub.paused()) return;
    const interval = this.hub.budget.effectiveIntervalMs(endpoint);
    const probeAt = probeDueAt(this.hub.limits, soonest, now, interval, this.hub.random());
    if (probeAt === null) return;
    soonest.nextDueAt = probeAt;
    if (soonest.timer !== null) this.schedule(soonest, probeAt - now);
  }

  private succeeded<T>(topic: Topic<T>, result: ApiResult<T>, startedAt: number): void {
    const now = this.hub.clock.now();
    topic.value = result.data;
    topic.meta = result.meta;
    topic.fetchedAt = now;
    topic.error = null;
    topic.lastError = null;
    topic.failures = 0;
    topic.failingSince = null;
    const wasFinal = topic.final;
    topic.final = topic.spec.isFinal?.(result.data) ?? false;
    if (topic.final !== wasFinal) this.hub.budget.invalidate();
    topic.nextDueAt = afterSuccess(startedAt, this.hub.budget.effectiveIntervalMs(topic.spec.endpoint));
    this.hub.health.lastSuccessAt = now;
    this.hub.allowed.note(result.meta, false);
    this.publish(topic);
  }

  /** A failed poll: the retry rule (retry.ts, afterFailure) says when it asks again and whether the cells show the error. */
  private failed<T>(topic: Topic<T>, error: FeedError): void {
    const now = this.hub.clock.now();
    topic.lastError = error;
    topic.failures += 1;
    topic.failingSince ??= now;
    if (isConnectionError(error)) this.hub.health.lastConnectionError = { error, at: now };
    const failing = {
      failures: topic.failures,
      failingSince: topic.failingSince,
      fetchedAt: topic.fetchedAt,
      hasValue: topic.value !== undefined,
    };
    const interval = this.hub.budget.effectiveIntervalMs(topic.spec.endpoint);
    const next = afterFailure(this.hub.limits, failing, error, now, interval, this.hub.random());
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
}

/** What a topic's cells show while there is no key. */
export function noKeySnapshot<T>(topic: Topic<T>): Snapshot<T> {
  return { key: topic.spec.key, value: undefined, meta: {}, fetchedAt: null, error: NO_KEY, lastError: NO_KEY };
}
