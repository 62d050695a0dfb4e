// The HTTP transport interface and its fetch implementation (browser fetch in Office, global fetch in Node 20): no redirects, no cookies, the key masked out of every answer; and the CORS diagnosis.
import { redactKey } from "./redact";

export interface HttpRequest {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export interface HttpResponse {
  status: number;
  header(name: string): string | null;
  body: string;
}

/** Sends one request and returns the raw answer; throws only when no answer arrived. */
export type HttpTransport = (request: HttpRequest) => Promise<HttpResponse>;

/** The bearer key of a request's Authorization header, if any. */
function bearerKey(headers: Record<string, string>): string | null {
  const value = Object.entries(headers).find(([name]) => name.toLowerCase() === "authorization")?.[1];
  const m = value ? /^Bearer\s+(\S+)$/i.exec(value) : null;
  return m ? m[1] : null;
}

export const fetchTransport: HttpTransport = async (request) => {
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
      // A redirect would re-send the request (a POST's body, and the key) to wherever the answer points: refuse it.
      redirect: "error",
      // The service is reached with the key alone: no cookies or HTTP auth of the browser go with it.
      credentials: "omit",
      cache: "no-store",
    });
  } catch (e) {
    // Duck-typed: undici's errors come from another realm than this code's Error under some runners.
    const cause = String((e as { cause?: { message?: unknown } } | null)?.cause?.message ?? "");
    if (/redirect/i.test(cause)) {
      // No `cause` on purpose: the sender reports a cause's message in place of the error's own.
      // eslint-disable-next-line preserve-caught-error
      throw new Error("the service answered with a redirect, which the add-in never follows (check the base URL)");
    }
    throw e;
  }
  // A service or gateway that echoes the key (in a message, in `details`, in a header; cased, cut, escaped or encoded)
  // never hands it further than this.
  const key = bearerKey(request.headers);
  const clean = (text: string) => redactKey(text, key);
  const body = clean(await response.text());
  return {
    status: response.status,
    header: (name) => {
      const value = response.headers.get(name);
      return value === null ? null : clean(value);
    },
    body,
  };
};

export interface CorsDiagnosis {
  /** The origin the service must allow: this page's. */
  pageOrigin: string;
  /** The service's origin, which answered but was not readable. */
  serviceOrigin: string;
  /** The answer was a redirect (which the add-in never follows), not a CORS refusal. */
  redirected?: boolean;
}

/**
 * After a fetch from a page failed without an answer: whether the service is there but the browser withheld its answer
 * for CORS, or the service answered with a redirect. Asks without the key, first in cors mode without following a
 * redirect (a readable redirect), then in `no-cors` mode (an opaque answer proves the server answered); null when not
 * in a page, when the service is on this page's origin, or when nothing answers (a real network error).
 */
export async function diagnoseCors(url: string, timeoutMs = 5_000): Promise<CorsDiagnosis | null> {
  const pageOrigin = typeof location === "undefined" ? null : location.origin;
  if (!pageOrigin || pageOrigin === "null") return null;
  let serviceOrigin: string;
  try {
    serviceOrigin = new URL(url).origin;
  } catch {
    return null;
  }
  if (serviceOrigin === pageOrigin) return null;
  // Never the key, never a body, never a cookie.
  const ask = (init: RequestInit) =>
    fetch(url, { method: "GET", credentials: "omit", cache: "no-store", signal: AbortSignal.timeout(timeoutMs), ...init });
  // A browser reports a refused redirect (redirect: "error") as it reports a CORS refusal: a readable redirect is told apart
  // by asking once in cors mode without following it. Anything else readable means the service is not the problem.
  try {
    const probe = await ask({ redirect: "manual" });
    return probe.type === "opaqueredirect" ? { pageOrigin, serviceOrigin, redirected: true } : null;
  } catch {
    // Not readable (CORS) or no answer: the no-cors question below tells which.
  }
  try {
    // (A no-cors request must follow redirects.)
    const response = await ask({ mode: "no-cors" });
    return response.type === "opaque" || response.ok ? { pageOrigin, serviceOrigin } : null;
  } catch {
    return null;
  }
}
