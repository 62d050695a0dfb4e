// The feed hub's retry rule (the third retry layer), pure: when a topic asks again after an answer, a failure, a trade or a recovery, when a failing endpoint's probe asks, and whether a failure shows in the cells.

/** A value older than this is not shown any more when polls keep failing: the cell turns into #N/A. */
export const DEFAULT_STALE_AFTER_MS = 5 * 60_000;
/**
 * While an endpoint keeps failing, one of its topics (the probe) asks again at least this often (or at its own interval,
 * if longer): recovery is seen within this, and then every topic still backing off asks at once.
 */
export const DEFAULT_MAX_BACKOFF_MS = 15_000;
/** Longest wait between polls of every other failing topic: the request rate keeps falling during an outage. */
export const DEFAULT_OUTAGE_BACKOFF_MS = 60_000;
/** Wait before asking again after a permanent error (401, 404, …). */
export const DEFAULT_PERMANENT_RETRY_MS = 60_000;
/** A Retry-After longer than this is not waited for in full by a feed (it asks again after this). */
export const MAX_FEED_RETRY_AFTER_MS = 5 * 60_000;
/** A 429 is not shown in a cell that has no value yet until the topic has been refused for this long: it waits (#BUSY!). */
export const RATE_LIMITED_GRACE_MS = 30_000;
/** No topic is asked twice within this, even right after a trade. */
export const MIN_INTERVAL_MS = 1_000;

/** The hub's limits (HubOptions, defaults above). */
export interface RetryLimits {
  staleAfterMs: number;
  /** The probe's cap. */
  maxBackoffMs: number;
  /** Every other failing topic's cap (at least maxBackoffMs). */
  outageBackoffMs: number;
  permanentRetryMs: number;
}

/** What the rule needs to know of a failed poll. */
export interface PollFailure {
  code: string;
  retryable: boolean;
  /** The service's Retry-After, when it sent one. */
  retryAfterMs?: number | null;
}

/** A topic as the rule sees it when its poll failed (failures counts this failure). */
export interface FailingTopic {
  failures: number;
  /** When this run of failures began (clock ms). */
  failingSince: number;
  /** When the last good value arrived, or null. */
  fetchedAt: number | null;
  hasValue: boolean;
}

/** What follows a failed poll. */
export interface AfterFailure {
  /** The cells show this error instead of the value (false: the value, or nothing yet, stays). */
  showError: boolean;
  /** Subscribers hear of the failure at all (false: a 429 waited out before any value, nothing to show). */
  publish: boolean;
  /** Not asked again before this (the Retry-After, capped). */
  notBefore: number;
  /** When the topic asks next. */
  nextDueAt: number;
}

/**
 * Transient trouble (429, 5xx, network, timeout): the topic backs off exponentially with jitter, from twice its interval
 * up to the outage cap (or its own interval if longer), never sooner than a Retry-After (capped at 5 min); the last good
 * value stays until it is older than the staleness limit; a 429 before any value is waited out for a while. A permanent
 * error shows at once and is asked again slowly. `jitter` is a random number in [0, 1).
 */
export function afterFailure(
  limits: RetryLimits,
  topic: FailingTopic,
  error: PollFailure,
  now: number,
  intervalMs: number,
  jitter: number,
): AfterFailure {
  if (!error.retryable) {
    return { showError: true, publish: true, notBefore: now, nextDueAt: now + Math.max(intervalMs, limits.permanentRetryMs) };
  }
  const tooOld = topic.fetchedAt === null || now - topic.fetchedAt > limits.staleAfterMs;
  const waitingOutRateLimit = error.code === "rate_limited" && topic.fetchedAt === null && now - topic.failingSince < RATE_LIMITED_GRACE_MS;
  const showError = tooOld && !waitingOutRateLimit;
  const cap = Math.max(limits.outageBackoffMs, intervalMs);
  const backoff = Math.min(cap, intervalMs * 2 ** topic.failures) * (0.75 + 0.25 * jitter);
  const notBefore = now + Math.min(error.retryAfterMs ?? 0, MAX_FEED_RETRY_AFTER_MS);
  return {
    showError,
    publish: showError || topic.hasValue,
    notBefore,
    nextDueAt: Math.max(now + Math.max(intervalMs, backoff), notBefore),
  };
}

/** After a good answer: the next poll one (possibly stretched) interval after this one was sent. */
export function afterSuccess(startedAt: number, intervalMs: number): number {
  return startedAt + intervalMs;
}

/**
 * The probe of a failing endpoint: the backing-off topic due soonest asks within the probe cap (with jitter, at its own
 * interval if longer, never before its Retry-After). Returns its new due time, or null when it is due sooner already.
 */
export function probeDueAt(
  limits: RetryLimits,
  soonest: { nextDueAt: number; notBefore: number },
  now: number,
  intervalMs: number,
  jitter: number,
): number | null {
  const probeAt = Math.max(now + Math.max(intervalMs, limits.maxBackoffMs * (0.75 + 0.25 * jitter)), soonest.notBefore);
  return soonest.nextDueAt <= probeAt ? null : probeAt;
}

/** After a trade: asked at once, but not within MIN_INTERVAL_MS of its last poll; never later than it was due anyway. */
export function afterTrade(now: number, nextDueAt: number, lastStartedAt: number | null): number {
  const earliest = lastStartedAt === null ? now : lastStartedAt + MIN_INTERVAL_MS;
  return Math.min(nextDueAt, Math.max(now, earliest));
}

/** A trade happened while a poll was out: asked again a second after that poll was sent (its answer may predate the trade). */
export function afterTradeDuringPoll(nextDueAt: number, startedAt: number): number {
  return Math.min(nextDueAt, startedAt + MIN_INTERVAL_MS);
}

/** Another topic of the service answered again: a topic backing off asks at once, though never before its Retry-After. */
export function afterRecovery(now: number, notBefore: number): number {
  return Math.max(now, notBefore);
}
