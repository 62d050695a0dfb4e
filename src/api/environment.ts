// The API key's environment (production or sandbox, from its prefix), its masked form, and base URL rules.
import { HedgingApiError } from "./errors";

export type Environment = "production" | "sandbox";

export const LIVE_PREFIX = "svc_live_";
export const TEST_PREFIX = "svc_test_";

/** The environment a key belongs to; the prefix is authoritative (spec, Authentication 3). */
export function environmentOf(apiKey: string): Environment {
  if (apiKey.startsWith(LIVE_PREFIX) && apiKey.length > LIVE_PREFIX.length) return "production";
  if (apiKey.startsWith(TEST_PREFIX) && apiKey.length > TEST_PREFIX.length) return "sandbox";
  throw new HedgingApiError({
    code: "invalid_api_key",
    status: null,
    message: `The API key must start with ${LIVE_PREFIX} (production) or ${TEST_PREFIX} (sandbox); this one does not, so nothing was sent.`,
  });
}

/** "svc_test_…a1b2": the prefix and the last four characters, never more. */
export function maskKey(apiKey: string): string {
  const prefix = apiKey.startsWith(LIVE_PREFIX) ? LIVE_PREFIX : apiKey.startsWith(TEST_PREFIX) ? TEST_PREFIX : "";
  const tail = apiKey.length - prefix.length > 8 ? apiKey.slice(-4) : "";
  return `${prefix}…${tail}`;
}

/**
 * A fingerprint of an API key to tell keys apart (idempotency keys are scoped per API key): 64 bits of a non-cryptographic
 * hash, kept only in per-user storage beside the key itself, never shown or written to the workbook.
 */
export function keyFingerprint(apiKey: string): string {
  let h1 = 0xdeadbeef ^ apiKey.length;
  let h2 = 0x41c6ce57 ^ apiKey.length;
  for (let i = 0; i < apiKey.length; i++) {
    const c = apiKey.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `k${(h2 >>> 0).toString(16).padStart(8, "0")}${(h1 >>> 0).toString(16).padStart(8, "0")}`;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export function isLoopback(url: URL): boolean {
  return LOOPBACK_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}

/** The base URL without a trailing slash; HTTPS is required except on this machine's loopback. */
export function normaliseBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new HedgingApiError({
      code: "validation_error",
      status: null,
      message: `Base URL "${baseUrl}" is not a URL: give one such as https://host/v2.`,
    });
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url))) {
    throw new HedgingApiError({
      code: "validation_error",
      status: null,
      message: `Base URL must use https (plain http is allowed only for localhost); got ${url.protocol}//${url.host}.`,
    });
  }
  return url.toString().replace(/\/+$/, "");
}
