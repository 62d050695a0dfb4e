// The feed hub's retry rule as a table: when a topic asks again after a failure, a good answer, a trade or a recovery, when a failing endpoint's probe asks, and whether the cells show the error.
import {
  DEFAULT_MAX_BACKOFF_MS,
  DEFAULT_OUTAGE_BACKOFF_MS,
  DEFAULT_PERMANENT_RETRY_MS,
  DEFAULT_STALE_AFTER_MS,
  MAX_FEED_RETRY_AFTER_MS,
  MIN_INTERVAL_MS,
  afterFailure,
  afterRecovery,
  afterSuccess,
  afterTrade,
  afterTradeDuringPoll,
  probeDueAt,
  type FailingTopic,
  type PollFailure,
} from "../../src/feeds/retry";

const LIMITS = {
  staleAfterMs: DEFAULT_STALE_AFTER_MS,
  maxBackoffMs: DEFAULT_MAX_BACKOFF_MS,
  outageBackoffMs: DEFAULT_OUTAGE_BACKOFF_MS,
  permanentRetryMs: DEFAULT_PERMANENT_RETRY_MS,
};
const NOW = 1_000_000;
const INTERVAL = 2_000;
const unavailable: PollFailure = { code: "service_unavailable", retryable: true };
const rateLimited: PollFailure = { code: "rate_limited", retryable: true };
const unauthorized: PollFailure = { code: "unauthorized", retryable: false };
const withValue = (failures: number, fetchedAgoMs = 10_000): FailingTopic => ({
  failures,
  failingSince: NOW - 5_000,
  fetchedAt: NOW - fetchedAgoMs,
  hasValue: true,
});
const noValue = (failures: number, failingForMs = 0): FailingTopic => ({
  failures,
  failingSince: NOW - failingForMs,
  fetchedAt: null,
  hasValue: false,
});

describe("afterFailure: when a failing topic asks again", () => {
  test.each<[string, FailingTopic, PollFailure, number, number]>([
    // name, topic, error, jitter, expected wait
    ["1st failure, no jitter: twice the interval, less the jitter's quarter", withValue(1), unavailable, 0, 2 * INTERVAL * 0.75],
    ["1st failure, full jitter: twice the interval", withValue(1), unavailable, 1, 2 * INTERVAL],
    ["3rd failure: 2^3 intervals", withValue(3), unavailable, 1, 8 * INTERVAL],
    ["4th failure: 2^4 intervals", withValue(4), unavailable, 1, 16 * INTERVAL],
    ["10th failure: capped at the outage backoff", withValue(10), unavailable, 1, DEFAULT_OUTAGE_BACKOFF_MS],
    ["10th failure, no jitter: three quarters of the cap", withValue(10), unavailable, 0, DEFAULT_OUTAGE_BACKOFF_MS * 0.75],
    ["never sooner than a Retry-After", withValue(1), { ...rateLimited, retryAfterMs: 20_000 }, 1, 20_000],
    ["a Retry-After over 5 min is waited 5 min", withValue(1), { ...unavailable, retryAfterMs: 3_600_000 }, 1, MAX_FEED_RETRY_AFTER_MS],
    ["a permanent error: asked again slowly", withValue(1), unauthorized, 0.5, DEFAULT_PERMANENT_RETRY_MS],
  ])("%s", (_name, topic, error, jitter, wait) => {
    expect(afterFailure(LIMITS, topic, error, NOW, INTERVAL, jitter).nextDueAt - NOW).toBe(wait);
  });

  test("a slow topic is never asked sooner than its own interval, nor capped below it", () => {
    const interval = 120_000; // longer than the outage cap
    expect(afterFailure(LIMITS, withValue(1), unavailable, NOW, interval, 0).nextDueAt - NOW).toBe(interval);
    expect(afterFailure(LIMITS, withValue(6), unavailable, NOW, interval, 1).nextDueAt - NOW).toBe(interval);
    expect(afterFailure(LIMITS, withValue(1), unauthorized, NOW, interval, 0).nextDueAt - NOW).toBe(interval);
  });

  test.each<[string, FailingTopic, PollFailure, boolean, boolean]>([
    // name, topic, error, the cells show the error, subscribers hear of it
    ["a fresh value stays shown through transient trouble", withValue(1, 10_000), unavailable, false, true],
    ["a value older than the staleness limit gives way to the error", withValue(4, DEFAULT_STALE_AFTER_MS + 1), unavailable, true, true],
    ["no value yet: the error shows", noValue(1), unavailable, true, true],
    ["no value yet, refused for 29 s: waits (#BUSY!), nothing published", noValue(3, 29_000), rateLimited, false, false],
    ["no value yet, refused for 30 s: the 429 shows", noValue(5, 30_000), rateLimited, true, true],
    ["a 429 with a value kept: the value stays", withValue(1), rateLimited, false, true],
    ["a permanent error shows at once, over a fresh value", withValue(1), unauthorized, true, true],
  ])("%s", (_name, topic, error, showError, publish) => {
    const next = afterFailure(LIMITS, topic, error, NOW, INTERVAL, 0.5);
    expect([next.showError, next.publish]).toEqual([showError, publish]);
  });

  test("notBefore is the Retry-After (capped), or now when none came", () => {
    expect(afterFailure(LIMITS, withValue(1), { ...rateLimited, retryAfterMs: 7_000 }, NOW, INTERVAL, 0).notBefore).toBe(NOW + 7_000);
    expect(afterFailure(LIMITS, withValue(1), { ...rateLimited, retryAfterMs: null }, NOW, INTERVAL, 0).notBefore).toBe(NOW);
    expect(afterFailure(LIMITS, withValue(1), { ...unavailable, retryAfterMs: 10 * 60_000 }, NOW, INTERVAL, 0).notBefore).toBe(
      NOW + MAX_FEED_RETRY_AFTER_MS,
    );
  });
});

describe("probeDueAt: one topic of a failing endpoint keeps asking", () => {
  test.each<[string, { nextDueAt: number; notBefore: number }, number, number, number | null]>([
    // name, soonest topic, interval, jitter, new due time (null: left as it is)
    ["due in 60 s: brought forward to the 15 s cap", { nextDueAt: NOW + 60_000, notBefore: 0 }, INTERVAL, 1, NOW + 15_000],
    ["with no jitter: at three quarters of the cap", { nextDueAt: NOW + 60_000, notBefore: 0 }, INTERVAL, 0, NOW + 11_250],
    ["due sooner already: left as it is", { nextDueAt: NOW + 5_000, notBefore: 0 }, INTERVAL, 1, null],
    ["exactly at the probe time: left as it is", { nextDueAt: NOW + 15_000, notBefore: 0 }, INTERVAL, 1, null],
    ["never before its Retry-After", { nextDueAt: NOW + 60_000, notBefore: NOW + 40_000 }, INTERVAL, 1, NOW + 40_000],
    ["an endpoint slower than the cap probes at its interval", { nextDueAt: NOW + 60_000, notBefore: 0 }, 30_000, 1, NOW + 30_000],
  ])("%s", (_name, soonest, interval, jitter, expected) => {
    expect(probeDueAt(LIMITS, soonest, NOW, interval, jitter)).toBe(expected);
  });
});

describe("the next poll after an answer, a trade or a recovery", () => {
  test("after a good answer: one interval after the poll was sent", () => {
    expect(afterSuccess(NOW - 300, INTERVAL)).toBe(NOW - 300 + INTERVAL);
  });

  test.each<[string, number, number | null, number]>([
    // name, due, last poll sent, expected
    ["never polled: at once", NOW + 2_000, null, NOW],
    ["polled 3 s ago: at once", NOW + 2_000, NOW - 3_000, NOW],
    ["polled 400 ms ago: a second after that poll", NOW + 2_000, NOW - 400, NOW - 400 + MIN_INTERVAL_MS],
    ["due sooner anyway: when due", NOW + 100, NOW - 400, NOW + 100],
  ])("after a trade, %s", (_name, due, lastStartedAt, expected) => {
    expect(afterTrade(NOW, due, lastStartedAt)).toBe(expected);
  });

  test("a trade during a poll: a second after that poll was sent, unless due sooner", () => {
    expect(afterTradeDuringPoll(NOW + 2_000, NOW - 200)).toBe(NOW - 200 + MIN_INTERVAL_MS);
    expect(afterTradeDuringPoll(NOW + 500, NOW)).toBe(NOW + 500);
  });

  test("after another topic recovered: at once, never before a Retry-After", () => {
    expect(afterRecovery(NOW, 0)).toBe(NOW);
    expect(afterRecovery(NOW, NOW + 9_000)).toBe(NOW + 9_000);
  });
});
