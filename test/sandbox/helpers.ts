// The one sandbox helper of the tests and benches: start one in-process on a free port, accounts and markets, raw HTTP and control calls, its own record of an account, clients, until().
import { HedgingClient, type ClientOptions } from "../../src/api/client";
import { defaultAccounts, type AccountConfig } from "../../src/sandbox/accounts";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import { startSandbox, type RunningSandbox, type SandboxOptions } from "../../src/sandbox/server";
import { CONTROL_TOKEN_HEADER } from "../../src/sandbox/control";
import { DEFAULT_MARKETS, type MarketConfig } from "../../src/sandbox/pricing";
import type { ClosedHedge, Hedge } from "../../src/api/schemas";

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

/** A well-funded account for batches (10 M USDC, 100 M USD of exposure) with the given markets and rate limit (the sandbox's default 20/s). */
export function benchAccount(apiKey: string, allowed: string[], ratePerSecond = 20, overrides: Partial<AccountConfig> = {}): AccountConfig {
  return account(apiKey, {
    balance_usdc: 10_000_000,
    max_exposure_usd: 100_000_000,
    allowed_markets: allowed,
    rate_limit_per_second: ratePerSecond,
    ...overrides,
  });
}

/** `count` made-up market symbols besides USDTNGN (sandbox only), so that a batch can open many hedges on one key. */
export function testMarkets(count: number): MarketConfig[] {
  const base = DEFAULT_MARKETS[0];
  return Array.from({ length: count }, (_, i) =>
    i === 0 ? { ...base } : { ...base, symbol: `USDTX${String(i).padStart(2, "0")}`, pair: `USDT/X${String(i).padStart(2, "0")}` },
  );
}

export function start(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return startSandbox({ port: 0, http: true, fillMs: 20, accounts: fastAccounts(), ...options });
}

/** A sandbox of `markets` for one trading key (the chaos runs), its every line of log kept in `log`. */
export function startWithMarkets(apiKey: string, markets: MarketConfig[], options: SandboxOptions, log: string[]): Promise<RunningSandbox> {
  return start({
    accounts: [
      benchAccount(
        apiKey,
        markets.map((m) => m.symbol),
      ),
    ],
    markets,
    log: (l) => log.push(l),
    ...options,
  });
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
  return raw(sb, method, `${sb.controlUrl}${path}`, { key: null, body, headers: { [CONTROL_TOKEN_HEADER]: sb.controlToken } });
}

/** A control call that must succeed: its data, or an error naming the call and the sandbox's answer. */
export async function controlOk(
  sb: RunningSandbox,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await control(sb, method, path, body);
  if (res.status >= 300) throw new Error(`control ${method} ${path}: ${res.status} ${JSON.stringify(res.json.error)}`);
  return res.json.data as Record<string, unknown>;
}

export interface ServiceAccountState {
  balance_usdc: number;
  hedges: Array<Hedge & { pending_orders: unknown[] }>;
  history: ClosedHedge[];
}

/** The sandbox's own record of one account: every hedge (with pending orders) and the closed-hedge history. */
export async function serviceState(sb: RunningSandbox, apiKey: string): Promise<ServiceAccountState> {
  const state = await controlOk(sb, "GET", "/state");
  const account = (state.accounts as Array<ServiceAccountState & { api_key: string }>).find((a) => a.api_key === apiKey);
  if (!account) throw new Error("account not in sandbox state");
  return account;
}

/** A client as the pane makes one (the rate it learns from the service, its concurrency), retrying a little faster: the trading tests' client. */
export function deskClient(sb: RunningSandbox, apiKey: string, options: Partial<ClientOptions> = {}): HedgingClient {
  return new HedgingClient({ apiKey, baseUrl: sb.baseUrl, retry: { baseDelayMs: 50, maxDelayMs: 400 }, ...options });
}

/** A client that stays out of the way of sandbox tests: fast retries, a high fixed rate. */
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
