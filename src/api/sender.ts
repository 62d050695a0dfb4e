// The one request sender: auth headers, envelope unwrapping, validation, retries with backoff, timeouts, idempotency, rate and concurrency limits, single-flight GETs.
import type { z } from "zod";
import { HedgingApiError, redact } from "./errors";
import { maskKey } from "./environment";
import { envelopeSchema, issuePath, type Meta } from "./schemas";
import { fetchTransport, type HttpTransport, type HttpResponse } from "./transport";
import { ConcurrencyLimit, TokenBucket, realSleep, type Sleep } from "./throttle";

export interface RetryPolicy {
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
  /** Client-side rate limit, kept under the service's so that 429s stay rare. */
  ratePerSecond?: number;
  burst?: number;
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

export interface RequestSpec<S extends z.ZodType> {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  schema: S;
  /** Sent as Idempotency-Key on every attempt; state-changing calls always have one. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface ApiResult<T> {
  data: T;
  meta: Meta;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

export class RequestSender {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly masked: string;
  private readonly transport: HttpTransport;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly bucket: TokenBucket;
  private readonly limit: ConcurrencyLimit;
  private readonly random: () => number;
  private readonly sleep: Sleep;
  private readonly now: () => number;
  private readonly onAttempt?: (event: AttemptEvent) => void;
  private readonly inFlightGets = new Map<string, Promise<ApiResult<unknown>>>();
  private readonly sentAt: number[] = [];

  constructor(options: SenderOptions) {
    this.baseUrl = options.baseUrl;
    this.apiKey = options.apiKey;
    this.masked = maskKey(options.apiKey);
    this.transport = options.transport ?? fetchTransport;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    this.bucket = new TokenBucket(options.ratePerSecond ?? 8, options.burst ?? 8, this.now, this.sleep);
    this.limit = new ConcurrencyLimit(options.maxConcurrent ?? 6);
    this.onAttempt = options.onAttempt;
  }

  /** Requests sent (attempts, retries included) in the last 60 seconds. */
  requestsInLastMinute(): number {
    this.forgetOlderThanAMinute();
    return this.sentAt.length;
  }

  /** Keeps the request log to the last minute, so a long-lived runtime does not grow it without bound. */
  private forgetOlderThanAMinute(): void {
    const since = this.now() - 60_000;
    let drop = 0;
    while (drop < this.sentAt.length && this.sentAt[drop] < since) drop++;
    if (drop > 0) this.sentAt.splice(0, drop);
  }

  send<S extends z.ZodType>(spec: RequestSpec<S>): Promise<ApiResult<z.output<S>>> {
    const url = this.url(spec.path, spec.query);
    if (spec.method !== "GET") return this.sendWithRetries(spec, url);
    // Single-flight: identical concurrent GETs share one request and one answer. The shared request takes no one
    // caller's abort signal: a caller that aborts stops waiting, and the others still get the answer.
    let shared = this.inFlightGets.get(url) as Promise<ApiResult<z.output<S>>> | undefined;
    if (!shared) {
      shared = this.sendWithRetries({ ...spec, signal: undefined }, url).finally(() => this.inFlightGets.delete(url));
      this.inFlightGets.set(url, shared);
    }
    return spec.signal ? untilAborted(shared, spec.signal) : shared;
  }

  private url(path: string, query?: RequestSpec<z.ZodType>["query"]): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(name, String(value));
    const qs = params.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ""}`;
  }

  private async sendWithRetries<S extends z.ZodType>(spec: RequestSpec<S>, url: string): Promise<ApiResult<z.output<S>>> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.apiKey}`, Accept: "application/json" };
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (spec.idempotencyKey) headers["Idempotency-Key"] = spec.idempotencyKey;

    for (let attempt = 1; ; attempt++) {
      let error: HedgingApiError;
      try {
        return await this.attempt(spec, url, headers, body, attempt);
      } catch (e) {
        if (!(e instanceof HedgingApiError)) throw e;
        error = e;
      }
      if (!error.retryable || attempt >= this.retry.maxAttempts || spec.signal?.aborted) throw error;
      const backoff = this.random() * Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
      if (error.retryAfterMs !== null && error.retryAfterMs > this.retry.maxRetryAfterMs) throw error;
      await this.sleep(Math.max(error.retryAfterMs ?? 0, backoff));
    }
  }

  private async attempt<S extends z.ZodType>(
    spec: RequestSpec<S>,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    attempt: number,
  ): Promise<ApiResult<z.output<S>>> {
    await this.bucket.take();
    return this.limit.run(async () => {
      const started = this.now();
      this.sentAt.push(started);
      this.forgetOlderThanAMinute();
      let status: number | null = null;
      let code: string | null = null;
      try {
        const response = await this.exchange(spec, url, headers, body);
        status = response.status;
        return this.unwrap(spec, response);
      } catch (e) {
        if (e instanceof HedgingApiError) code = e.code;
        throw e;
      } finally {
        this.onAttempt?.({ method: spec.method, path: spec.path, attempt, status, code, durationMs: this.now() - started });
      }
    });
  }

  private async exchange(
    spec: RequestSpec<z.ZodType>,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<HttpResponse> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(spec.signal?.reason);
    spec.signal?.addEventListener("abort", onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    try {
      return await this.transport({ method: spec.method, url, headers, body, signal: controller.signal });
    } catch (e) {
      if (spec.signal?.aborted) throw spec.signal.reason ?? e;
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

  private unwrap<S extends z.ZodType>(spec: RequestSpec<S>, response: HttpResponse): ApiResult<z.output<S>> {
    const retryAfterMs = parseRetryAfter(response.header("Retry-After"), this.now());
    let json: unknown;
    try {
      json = JSON.parse(response.body);
    } catch {
      json = undefined;
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
    return redact(text, this.apiKey, this.masked);
  }
}

/** The promise's outcome, or a rejection with the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
