// What a feed reports when it has no usable value: a missing key, a bad argument, or the service's error code.
import { isHedgingApiError } from "../api/errors";

export type FeedErrorKind = "no_key" | "argument" | "service";

export interface FeedError {
  kind: FeedErrorKind;
  /** The service's error code (e.g. rate_limited), or argument / missing_credentials. */
  code: string;
  message: string;
  /** Transient (429, 5xx, network, timeout): polling backs off and the last good value stays. */
  retryable: boolean;
  /** HTTP status when the service answered. */
  status: number | null;
  /** What to do about it, when known. */
  advice?: string;
  /** The service's Retry-After, when it sent one: a feed does not ask again sooner. */
  retryAfterMs?: number | null;
}

export const NO_KEY_MESSAGE = "Set your API key in the Hedge pane";

export const NO_KEY: FeedError = { kind: "no_key", code: "missing_credentials", message: NO_KEY_MESSAGE, retryable: false, status: null };

/** A bad function argument, found before anything is sent; the message names the argument and what is allowed. */
export class ArgumentError extends Error {
  constructor(
    readonly argument: string,
    message: string,
  ) {
    super(message);
    this.name = "ArgumentError";
  }
}

/** Thrown when a feed is asked for data while no API key is set. */
export class NoKeyError extends Error {
  constructor() {
    super(NO_KEY_MESSAGE);
    this.name = "NoKeyError";
  }
}

/** Any thrown value as a FeedError; never includes more than the client's (already redacted) message. */
export function feedErrorOf(e: unknown): FeedError {
  if (e instanceof NoKeyError) return NO_KEY;
  if (e instanceof ArgumentError) return { kind: "argument", code: "argument", message: e.message, retryable: false, status: null };
  if (isHedgingApiError(e)) {
    return {
      kind: "service",
      code: e.code,
      message: e.message,
      retryable: e.retryable,
      status: e.status,
      advice: e.advice,
      retryAfterMs: e.retryAfterMs,
    };
  }
  const message = e instanceof Error ? e.message : String(e);
  return { kind: "service", code: "unexpected_error", message, retryable: false, status: null };
}

/** Errors about reaching the service or the key (not about one question): they make HEDGE.STATUS say "not connected". */
export function isConnectionError(error: FeedError): boolean {
  return error.kind === "no_key" || error.retryable || error.status === 401 || error.status === 403;
}
