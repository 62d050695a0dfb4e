// The one error type of the client: the spec's error codes, plus network_error, timeout and invalid_response.

/** Every code of the spec's error table with its HTTP status. */
export const SERVICE_ERROR_STATUS = {
  validation_error: 400,
  market_not_allowed: 400,
  exposure_exceeded: 400,
  insufficient_collateral: 400,
  hedge_not_open: 400,
  account_not_configured: 400,
  missing_credentials: 401,
  invalid_api_key: 401,
  insufficient_scope: 403,
  account_forbidden: 403,
  hedge_not_found: 404,
  no_open_hedge: 404,
  hedge_exists: 409,
  idempotency_in_flight: 409,
  idempotency_key_reuse: 409,
  rate_limited: 429,
  quote_failed: 502,
  execution_failed: 502,
  onchain_read_failed: 502,
  price_unavailable: 503,
  executor_unavailable: 503,
  service_unavailable: 503,
} as const;

export type ServiceErrorCode = keyof typeof SERVICE_ERROR_STATUS;
/** Raised by the client itself: no usable answer came back. */
type ClientErrorCode = "network_error" | "timeout" | "invalid_response";
type ErrorCode = ServiceErrorCode | ClientErrorCode;

export const ERROR_CODES = [
  ...(Object.keys(SERVICE_ERROR_STATUS) as ServiceErrorCode[]),
  "network_error",
  "timeout",
  "invalid_response",
] as readonly ErrorCode[];

/** What a person should do about each code; shown next to the service's message. */
const ADVICE: Partial<Record<string, string>> = {
  missing_credentials: "Set your API key in the Hedge pane.",
  invalid_api_key: "The API key was not accepted: check it, or create a new one in the service's account settings.",
  insufficient_scope: "This API key cannot trade: use a key with the trade scope.",
  account_forbidden: "The key's account cannot see this resource.",
  account_not_configured: "The account has no on-chain address yet: finish its set-up in the service's account settings.",
  market_not_allowed: "This market is not enabled for the account.",
  exposure_exceeded: "Reduce the notional to fit the remaining exposure headroom.",
  insufficient_collateral: "The free balance is too low: reduce the notional or add funds.",
  hedge_exists: "A hedge is already open on this market and side: use Add to grow it.",
  no_open_hedge: "There is no open hedge on this market and side: use Open first.",
  hedge_not_open: "That hedge is not open any more.",
  hedge_not_found: "No hedge with this id on the account.",
  idempotency_key_reuse: "This idempotency key was already used for a different request.",
  idempotency_in_flight: "The same request is still being processed: wait and check the hedge.",
  rate_limited: "Too many requests: the add-in slows down and retries.",
  network_error: "The service could not be reached: check the network and the base URL.",
  timeout: "The service did not answer in time.",
  invalid_response: "The service sent an answer this add-in does not understand.",
  origin_not_allowed: "Check the base URL. To use another service, the add-in must be built with its origin in SERVICE_ORIGINS.",
  key_origin_mismatch: "Type the API key again to use it with this service, or go back to the base URL it was saved for.",
};

interface HedgingApiErrorInit {
  code: ErrorCode | string;
  message: string;
  /** HTTP status, or null when no HTTP answer was received. */
  status: number | null;
  details?: Record<string, unknown> | null;
  retryAfterMs?: number | null;
}

export class HedgingApiError extends Error {
  readonly code: ErrorCode | string;
  readonly status: number | null;
  readonly details: Record<string, unknown> | null;
  /** From a Retry-After header, when the service sent one. */
  readonly retryAfterMs: number | null;

  constructor(init: HedgingApiErrorInit) {
    super(init.message);
    this.name = "HedgingApiError";
    this.code = init.code;
    this.status = init.status;
    this.details = init.details ?? null;
    this.retryAfterMs = init.retryAfterMs ?? null;
  }

  /** Transient: network trouble, timeouts, 5xx, 429 and a request still in flight. Every other 4xx is final. */
  get retryable(): boolean {
    return isRetryable(this.code, this.status);
  }

  /** One line for a person: the code, the service's message, and what to do. */
  get advice(): string | undefined {
    return ADVICE[this.code];
  }

  toJSON(): Record<string, unknown> {
    return { code: this.code, status: this.status, message: this.message, details: this.details, retryable: this.retryable };
  }
}

export function isRetryable(code: string, status: number | null): boolean {
  if (code === "network_error" || code === "timeout" || code === "rate_limited" || code === "idempotency_in_flight") return true;
  if (code === "invalid_response") return false;
  return status !== null && status >= 500;
}

/**
 * The service answered and says it did nothing: a 4xx (429 included) other than an idempotency conflict, whose first
 * request may have acted (idempotency_in_flight: still running; idempotency_key_reuse: the key was used for another
 * body). The one answer to "did the service do nothing?": the sender (whether a call may have acted) and the desk's
 * recovery rule (whether a failed send is final) both ask it. Network trouble, timeouts, 5xx and unreadable answers
 * (invalid_response) are not refusals: the service may have acted.
 */
export function isRefusal(e: unknown): e is HedgingApiError {
  if (!isHedgingApiError(e) || e.status === null || e.status < 400 || e.status >= 500) return false;
  return e.code !== "idempotency_in_flight" && e.code !== "idempotency_key_reuse";
}

export function isHedgingApiError(e: unknown): e is HedgingApiError {
  return e instanceof HedgingApiError;
}

/** The code of any thrown value, for callers that branch on it. */
export function errorCode(e: unknown): string {
  return isHedgingApiError(e) ? e.code : "unexpected_error";
}
