// The API key's environment (production or sandbox, from its prefix), its masked form, and base URL rules.
import { sha256 } from "js-sha256";
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

/**
 * The key's public fingerprint, "fp-" and 16 hex characters of SHA-256 over a fixed label and the key: what the Approvals
 * sheet and the Hedge Log show as "Prepared by" and "Approved by" to tell two people's keys apart. It names a key without
 * revealing it (the hash cannot be turned back into the key); the key itself never goes into the workbook.
 */
export function publicKeyFingerprint(apiKey: string): string {
  return `fp-${sha256(`hedge-key-fingerprint-v1\n${apiKey}`).slice(0, 16)}`;
}

/** What publicKeyFingerprint makes ("fp-" and 16 lower-case hex): anything else (the key itself) is never written as a "by". */
export const PUBLIC_FINGERPRINT = /^fp-[0-9a-f]{16}$/;

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export function isLoopback(url: URL): boolean {
  return LOOPBACK_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}

/** The base URL without a trailing slash; HTTPS is required except on this machine's loopback. No user-info, query or fragment. */
export function normaliseBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw refused(`Base URL "${baseUrl}" is not a URL: give one such as https://host/v2.`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url))) {
    throw refused(`Base URL must use https (plain http is allowed only for localhost); got ${url.protocol}//${url.host}.`);
  }
  // A name and password in the URL would travel with every request; a query or fragment would be glued to every path.
  if (url.username || url.password)
    throw refused("Base URL must not contain a user name or password (user@host): the API key is the only credential.");
  if (url.search || baseUrl.includes("?"))
    throw refused(`Base URL must not contain a query (?…): give only the service's address, e.g. ${url.origin}${url.pathname}.`);
  if (url.hash || baseUrl.includes("#"))
    throw refused(`Base URL must not contain a fragment (#…): give only the service's address, e.g. ${url.origin}${url.pathname}.`);
  return url.toString().replace(/\/+$/, "");
}

function refused(message: string): HedgingApiError {
  return new HedgingApiError({ code: "validation_error", status: null, message });
}

/** "https://api.example.com" (scheme, host and port) of a URL; the unit a key is bound to. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

/** Where this build of the add-in may send a key (src/README.md "Security"). */
export interface ServicePolicy {
  /** Service origins allowed at build time (SERVICE_ORIGINS), e.g. ["https://api.hedging.example"]. */
  origins: readonly string[];
  /** Development and test builds: any http(s) origin on localhost or 127.0.0.1 too (the local sandbox on any port). */
  loopback: boolean;
  /** Production builds: a svc_live_ key goes only over https, never plain http (not even to this machine). */
  liveNeedsHttps: boolean;
}

/** No restriction beyond the base URL rules (Node tools and tests that do not build the page). */
export const OPEN_POLICY: ServicePolicy = { origins: [], loopback: true, liveNeedsHttps: false };

function policyAllows(url: URL, policy: ServicePolicy): boolean {
  if (policy === OPEN_POLICY) return true;
  if (policy.origins.includes(url.origin)) return true;
  return policy.loopback && (url.hostname === "localhost" || url.hostname === "127.0.0.1");
}

/** The origins a policy allows, for messages: "https://a.example, https://b.example (and this machine)". */
export function describePolicy(policy: ServicePolicy): string {
  const named = policy.origins.join(", ");
  if (!policy.loopback) return named || "none";
  return named ? `${named}, and localhost / 127.0.0.1` : "localhost and 127.0.0.1 only";
}

/**
 * Checks, before anything is sent, that this key may go to this (normalised) base URL under the build's policy:
 * the origin is one the build allows, and a production key travels over https.
 */
export function checkKeyDestination(apiKey: string, baseUrl: string, policy: ServicePolicy): void {
  const url = new URL(baseUrl);
  if (!policyAllows(url, policy)) {
    throw new HedgingApiError({
      code: "origin_not_allowed",
      status: null,
      message: `This build of the add-in connects only to ${describePolicy(policy)}; ${url.origin} is not one of them, so nothing was sent.`,
    });
  }
  if (policy.liveNeedsHttps && environmentOf(apiKey) === "production" && url.protocol !== "https:") {
    throw refused(`A ${LIVE_PREFIX} key (production money) is sent only over https; ${url.origin} is plain http, so nothing was sent.`);
  }
}
