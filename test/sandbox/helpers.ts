// Shared helpers of the sandbox tests: start one in-process on a free port, raw HTTP calls, a fast-retrying HedgingClient.
import { HedgingClient, type ClientOptions } from "../../src/api/client";
import { defaultAccounts, type AccountConfig } from "../../src/sandbox/accounts";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import { startSandbox, type RunningSandbox, type SandboxOptions } from "../../src/sandbox/server";

/** The default accounts with a rate limit high enough not to get in the way of tests. */
export function fastAccounts(extra: AccountConfig[] = []): AccountConfig[] {
  return [...defaultAccounts().map((a) => ({ ...a, rate_limit_per_second: 10_000 })), ...extra];
}

export function account(apiKey: string, overrides: Partial<AccountConfig> = {}): AccountConfig {
  return {
    api_key: apiKey,
    account_address: `0x${Buffer.from(apiKey).toString("hex").slice(0, 40).padEnd(40, "0")}`,
    balance_usdc: 250_000,
    max_exposure_usd: 2_000_000,
    allowed_markets: ["USDTNGN"],
    scopes: ["read", "trade"],
    rate_limit_per_second: 10_000,
    ...overrides,
  };
}

/** A well-funded account for benchmark batches (10 M USDC, 100 M USD of exposure) with the given markets and rate limit. */
export function benchAccount(apiKey: string, allowed: string[], ratePerSecond = 20): AccountConfig {
  return account(apiKey, {
    balance_usdc: 10_000_000,
    max_exposure_usd: 100_000_000,
    allowed_markets: allowed,
    rate_limit_per_second: ratePerSecond,
  });
}

export function start(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return startSandbox({ port: 0, http: true, fillMs: 20, accounts: fastAccounts(), ...options });
}

export interface RawResponse {
  status: number;
  headers: Headers;
  json: {
    data: unknown;
    error: { code: string; message: string; details: Record<string, unknown> | null } | null;
    meta: Record<string, unknown>;
  };
  text: string;
}

export interface RawOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as is (not JSON-encoded). */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** One HTTP request to the sandbox, answer parsed but not judged. `path` is relative to the base URL (/v2). */
export async function raw(sb: RunningSandbox, method: string, path: string, options: RawOptions = {}): Promise<RawResponse> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? DEMO_API_KEY : options.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["Content-Type"] = "application/json";
  }
  const url = path.startsWith("http") ? path : `${sb.baseUrl}${path}`;
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let json: RawResponse["json"];
  try {
    json = JSON.parse(text);
  } catch {
    json = { data: undefined, error: null, meta: {} } as RawResponse["json"];
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** A call to the control API (/_sandbox/...). */
export async function control(sb: RunningSandbox, method: string, path: string, body?: unknown): Promise<RawResponse> {
  return raw(sb, method, `${sb.controlUrl}${path}`, { key: null, body });
}

export function client(sb: RunningSandbox, apiKey: string = DEMO_API_KEY, extra: Partial<ClientOptions> = {}): HedgingClient {
  return new HedgingClient({
    baseUrl: sb.baseUrl,
    apiKey,
    timeoutMs: 5_000,
    retry: { maxAttempts: 5, baseDelayMs: 5, maxDelayMs: 40, maxRetryAfterMs: 5_000 },
    ratePerSecond: 1_000,
    burst: 1_000,
    maxConcurrent: 50,
    ...extra,
  });
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function until<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 3_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const OPEN = { market: "USDTNGN", side: "buy" as const, notional_usd: 100_000, tenor_days: 7 as const };
