// The one request sender: auth headers, envelope unwrapping, validation, a retry policy per kind of call, timeouts, idempotency, adaptive rate and concurrency limits, single-flight GETs.
import type * as z from "zod/mini";
import { HedgingApiError, isRefusal } from "./errors";
import { redactKey } from "./redact";
import { envelopeSchema, issuePath, type Meta } from "./schemas";
import { fetchTransport, type HttpTransport, type HttpResponse } from "./transport";
import { FlowControl, realSleep, type Answer, type FlowState, type Priority, type RateOptions, type Sleep } from "./throttle";
import { httpDateMs, utcMs } from "./time";

interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error is returned. */
  maxRetryAfterMs: number;
}

export interface SenderOptions {
  baseUrl: string;
  apiKey: string;
  transport?: HttpTransport;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /**
   * A fixed client-side rate (requests per second) instead of the learned one: tests and tools that want no adaptation.
   * Without it the rate is learned from the service's answers (see `rate` and DEFAULT_RATE).
   */
  ratePerSecond?: number;
  /** Bucket size of the rate (default: one second of it). */
  burst?: number;
  /** How the rate is learned (additive increase, multiplicative decrease on 429 and Retry-After). */
  rate?: Partial<RateOptions>;
  maxConcurrent?: number;
  random?: () => number;
  sleep?: Sleep;
  now?: () => number;
  onAttempt?: (event: AttemptEvent) => void;
}

export interface AttemptEvent {
  method: "GET" | "POST";
  path: string;
  attempt: number;
  status: number | null;
  code: string | null;
  durationMs: number;
}

/**
 * The kind of call, which picks its retry policy and its place in the queue:
 *  - action: the user's action or the trading desk (a trade, a preview quote, a fill poll): the retry policy below,
 *    the same Idempotency-Key on every attempt, ahead of every feed poll;
 *  - poll: a feed's periodic read: one attempt, retrying is left to the feed hub's backoff; behind every action.
 */
export type CallKind = "action" | "poll";

/** A state-changing call (it carries an Idempotency-Key) that ended in a way that may have changed the account. */
export interface TradeEvent {
  path: string;
  idempotencyKey: string;
  /** False when it failed without a refusal (timeout, 5xx…): the service may or may not have acted. */
  ok: boolean;
}

interface RequestSpec<S extends z.ZodMiniType> {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  schema: S;
  /** Sent as Idempotency-Key on every attempt; state-changing calls always have one. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** "action" unless given. */
  kind?: CallKind;
}

export interface ApiResult<T> {
  data: T;
  meta: Meta;
}

const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

interface SharedGet {
  promise: Promise<ApiResult<unknown>>;
  controller: AbortController;
  /** Callers still waiting for it; when the last one leaves (aborts), the request is aborted. */
  waiters: number;
}

export class RequestSender {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly transport: HttpTransport;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly flow: FlowControl;
  private readonly random: () => number;
  private readonly sleep: Sleep;
  private readonly now: () => number;
  private readonly onAttempt?: (event: AttemptEvent) => void;
  private readonly inFlightGets = new Map<string, SharedGet>();
  private readonly sentAt: number[] = [];
  private readonly tradeListeners = new Set<(event: TradeEvent) => void>();

  constructor(options: SenderOptions) {
    this.baseUrl = options.baseUrl;
    this.apiKey = options.apiKey;
    this.transport = options.transport ?? fetchTransport;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    const fixed = options.ratePerSecond !== undefined ? { adaptive: false, initialPerSecond: options.ratePerSecond } : {};
    const burst = options.burst !== undefined ? { burst: options.burst } : {};
    this.flow = new FlowControl({ ...options.rate, ...fixed, ...burst }, options.maxConcurrent ?? 6, this.now, this.sleep);
    this.onAttempt = options.onAttempt;
  }

  /** Requests sent (attempts, retries included) in the last 60 seconds. */
  requestsInLastMinute(): number {
    this.forgetOlderThanAMinute();
    return this.sentAt.length;
  }

  /** The rate allowed now, whether it is still being learned, 429s in the last minute, and the queues. */
  flowState(): FlowState {
    return this.flow.state();
  }

  /** Called after every state-changing call that may have changed the account (open, add, reduce, close). */
  onTrade(listener: (event: TradeEvent) => void): () => void {
    this.tradeListeners.add(listener);
    return () => this.tradeListeners.delete(listener);
  }

  /** Keeps the request log to the last minute, so a long-lived runtime does not grow it without bound. */
  private forgetOlderThanAMinute(): void {
    const since = this.now() - 60_000;
    let drop = 0;
    while (drop < this.sentAt.length && this.sentAt[drop] < since) drop++;
    this.sentAt.splice(0, drop);
  }

  send<S extends z.ZodMiniType>(spec: RequestSpec<S>): Promise<ApiResult<z.output<S>>> {
    const url = this.url(spec.path, spec.query);
    if (spec.method !== "GET") return this.sendWithRetries(spec, url);
    // Single-flight: identical concurrent GETs of one kind share one request and one answer. A caller that aborts stops
    // waiting; the request itself is aborted only when no caller is left waiting for it.
    const key = `${spec.kind ?? "action"} ${url}`;
    let shared = this.inFlightGets.get(key);
    if (!shared) {
      const controller = new AbortController();
      const entry: SharedGet = { controller, waiters: 0, promise: Promise.resolve() as Promise<never> };
      entry.promise = this.sendWithRetries({ ...spec, signal: controller.signal }, url).finally(() => {
        if (this.inFlightGets.get(key) === entry) this.inFlightGets.delete(key);
      });
      entry.promise.catch(() => undefined); // a request every caller left is rejected with nobody listening
      this.inFlightGets.set(key, entry);
      shared = entry;
    }
    return this.wait(key, shared, spec.signal) as Promise<ApiResult<z.output<S>>>;
  }

  private wait(key: string, shared: SharedGet, signal: AbortSignal | undefined): Promise<ApiResult<unknown>> {
    shared.waiters += 1;
    if (!signal) return shared.promise;
    if (signal.aborted) {
      this.leave(key, shared, signal.reason);
      return Promise.reject(signal.reason);
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.leave(key, shared, signal.reason);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort);
      shared.promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  private leave(key: string, shared: SharedGet, reason: unknown): void {
    shared.waiters -= 1;
    if (shared.waiters > 0) return;
    if (this.inFlightGets.get(key) === shared) this.inFlightGets.delete(key);
    shared.controller.abort(reason);
  }

  private url(path: string, query?: RequestSpec<z.ZodMiniType>["query"]): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(name, String(value));
    const qs = params.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ""}`;
  }

  private async sendWithRetries<S extends z.ZodMiniType>(spec: RequestSpec<S>, url: string): Promise<ApiResult<z.output<S>>> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.apiKey}`, Accept: "application/json" };
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (spec.idempotencyKey) headers["Idempotency-Key"] = spec.idempotencyKey;
    const poll = spec.kind === "poll";
    const maxAttempts = poll ? 1 : this.retry.maxAttempts;
    const priority: Priority = poll ? "feed" : "trade";

    // Whether the account may have changed: an attempt reached the service and was not refused (an answer, a 5xx, a
    // timeout, a cancel while it was on its way). If so, the trade listeners are told however the call ends.
    const call = { mayHaveActed: false };
    try {
      for (let attempt = 1; ; attempt++) {
        let error: HedgingApiError;
        try {
          const result = await this.attempt(spec, url, headers, body, attempt, priority, call);
          this.traded(spec, true);
          return result;
        } catch (e) {
          if (!(e instanceof HedgingApiError)) throw e;
          error = e;
        }
        if (!isRefusal(error)) call.mayHaveActed = true;
        const tooLong = error.retryAfterMs !== null && error.retryAfterMs > this.retry.maxRetryAfterMs;
        if (!error.retryable || attempt >= maxAttempts || tooLong || spec.signal?.aborted) throw error;
        const backoff = this.random() * Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
        await this.pause(Math.max(error.retryAfterMs ?? 0, backoff), spec.signal);
      }
    } catch (e) {
      if (call.mayHaveActed) this.traded(spec, false);
      throw e;
    }
  }

  /** Tells the trade listeners about a state-changing call: one with an Idempotency-Key (reads and quotes have none). */
  private traded(spec: RequestSpec<z.ZodMiniType>, ok: boolean): void {
    if (!spec.idempotencyKey) return;
    const event: TradeEvent = { path: spec.path, idempotencyKey: spec.idempotencyKey, ok };
    for (const listener of this.tradeListeners) {
      try {
        listener(event);
      } catch {
        // A listener's trouble must not fail the trade.
      }
    }
  }

  /** Waits between attempts; an abort ends the wait at once with the signal's reason. */
  private async pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (!signal) return this.sleep(ms);
    if (signal.aborted) throw signal.reason;
    let onAbort = () => undefined as void;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort);
    });
    try {
      await Promise.race([this.sleep(ms), aborted]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  private async attempt<S extends z.ZodMiniType>(
    spec: RequestSpec<S>,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    attempt: number,
    priority: Priority,
    call: { mayHaveActed: boolean },
  ): Promise<ApiResult<z.output<S>>> {
    const ticket = await this.flow.acquire(priority, spec.signal);
    const started = this.now();
    this.sentAt.push(started);
    this.forgetOlderThanAMinute();
    let status: number | null = null;
    let code: string | null = null;
    let answer: Answer | null = null;
    try {
      const response = await this.exchange(spec, url, headers, body, call);
      status = response.status;
      answer = { status, retryAfterMs: parseRetryAfter(response.header("Retry-After"), this.now()) };
      return this.unwrap(spec, response);
    } catch (e) {
      if (e instanceof HedgingApiError) code = e.code;
      throw e;
    } finally {
      ticket.done(answer);
      this.onAttempt?.({ method: spec.method, path: spec.path, attempt, status, code, durationMs: this.now() - started });
    }
  }

  private async exchange(
    spec: RequestSpec<z.ZodMiniType>,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    call: { mayHaveActed: boolean },
  ): Promise<HttpResponse> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(spec.signal?.reason);
    spec.signal?.addEventListener("abort", onAbort);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    try {
      return await this.transport({ method: spec.method, url, headers, body, signal: controller.signal });
    } catch (e) {
      if (spec.signal?.aborted) {
        // Cancelled on its way: the service may have acted on it all the same.
        call.mayHaveActed = true;
        throw spec.signal.reason ?? e;
      }
      if (timedOut) {
        throw new HedgingApiError({
          code: "timeout",
          status: null,
          message: `${spec.method} ${spec.path} got no answer within ${this.timeoutMs} ms.`,
        });
      }
      const reason = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
      throw new HedgingApiError({
        code: "network_error",
        status: null,
        message: this.clean(`${spec.method} ${spec.path} could not reach ${new URL(url).host}: ${reason}`),
      });
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
    }
  }

  private unwrap<S extends z.ZodMiniType>(spec: RequestSpec<S>, response: HttpResponse): ApiResult<z.output<S>> {
    const retryAfterMs = parseRetryAfter(response.header("Retry-After"), this.now());
    let json: unknown;
    try {
      json = JSON.parse(response.body);
    } catch {
      // Not JSON: judged by its HTTP status below.
    }
    const envelope = envelopeSchema.safeParse(json);
    if (!envelope.success || (response.status >= 400 && !envelope.data.error)) {
      // No envelope: a proxy page or an empty body. Judge by the HTTP status alone.
      const code = response.status === 429 ? "rate_limited" : response.status >= 500 ? "service_unavailable" : "invalid_response";
      throw new HedgingApiError({
        code,
        status: response.status,
        retryAfterMs,
        message: `${spec.method} ${spec.path} answered HTTP ${response.status} without the service's envelope.`,
      });
    }
    const { error, data, meta } = envelope.data;
    if (error) {
      throw new HedgingApiError({
        code: error.code,
        status: response.status,
        details: error.details ?? null,
        retryAfterMs,
        message: this.clean(error.message),
      });
    }
    const parsed = spec.schema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issuePath(["data", ...issue.path]);
      throw new HedgingApiError({
        code: "invalid_response",
        status: response.status,
        details: { path: where, issues: parsed.error.issues.map((i) => ({ path: issuePath(["data", ...i.path]), message: i.message })) },
        message: `${spec.method} ${spec.path} answered with an unexpected ${where}: ${issue.message}.`,
      });
    }
    return { data: parsed.data, meta };
  }

  private clean(text: string): string {
    return redactKey(text, this.apiKey);
  }
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (or, tolerated, an ISO 8601 time), read as UTC in any zone. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const http = httpDateMs(value);
  const date = Number.isNaN(http) ? utcMs(value) : http;
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
