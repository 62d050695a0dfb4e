// Test harness for the trading engine over the real sandbox (HTTP on loopback): start it, fault it, read its state, and a workbook whose runtime can be "killed".
import { startSandbox, type RunningSandbox, type SandboxOptions } from "../../src/sandbox/server";
import { HedgingClient, type ClientOptions } from "../../src/api/client";
import type { AccountConfig } from "../../src/sandbox/accounts";
import type { MarketConfig } from "../../src/sandbox/pricing";
import { DEFAULT_MARKETS } from "../../src/sandbox/pricing";
import type { Workbook } from "../../src/trading/workbook";
import type { IntentStore } from "../../src/trading/intent-store";
import { createDesk } from "../../src/trading/desk";
import type { Hedge, ClosedHedge } from "../../src/api/schemas";

export async function sandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return startSandbox({ port: 0, http: true, fillMs: 100, ...options });
}

export function clientFor(sb: RunningSandbox, apiKey: string, options: Partial<ClientOptions> = {}): HedgingClient {
  return new HedgingClient({ apiKey, baseUrl: sb.baseUrl, retry: { baseDelayMs: 50, maxDelayMs: 400 }, ...options });
}

export async function control(sb: RunningSandbox, method: "GET" | "POST", path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${sb.controlUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data: Record<string, unknown>; error: unknown };
  if (!res.ok) throw new Error(`control ${method} ${path}: ${res.status} ${JSON.stringify(json.error)}`);
  return json.data;
}

export interface ServiceAccountState {
  balance_usdc: number;
  hedges: Array<Hedge & { pending_orders: unknown[] }>;
  history: ClosedHedge[];
}

/** The sandbox's own record of one account: every hedge (with pending orders) and the closed-hedge history. */
export async function serviceState(sb: RunningSandbox, apiKey: string): Promise<ServiceAccountState> {
  const state = await control(sb, "GET", "/state");
  const account = (state.accounts as Array<ServiceAccountState & { api_key: string }>).find((a) => a.api_key === apiKey);
  if (!account) throw new Error("account not in sandbox state");
  return account;
}

/** `count` made-up market symbols besides USDTNGN (sandbox only), so that a batch can open many hedges on one key. */
export function testMarkets(count: number): MarketConfig[] {
  const base = DEFAULT_MARKETS[0];
  return Array.from({ length: count }, (_, i) =>
    i === 0 ? { ...base } : { ...base, symbol: `USDTX${String(i).padStart(2, "0")}`, pair: `USDT/X${String(i).padStart(2, "0")}` },
  );
}

export function account(apiKey: string, markets: readonly MarketConfig[], over: Partial<AccountConfig> = {}): AccountConfig {
  return {
    api_key: apiKey,
    account_address: "0x00000000000000000000000000000000000000aa",
    balance_usdc: 10_000_000,
    max_exposure_usd: 100_000_000,
    allowed_markets: markets.map((m) => m.symbol),
    scopes: ["read", "trade"],
    rate_limit_per_second: 20,
    ...over,
  };
}

/**
 * A workbook as seen from one runtime: after kill() every call from that runtime fails (Excel stopped it), while the
 * workbook itself (the .xlsx) keeps what was written. A new desk gets the underlying workbook again.
 */
export function killable(inner: Workbook): Workbook & { kill(): void } {
  let dead = false;
  const guard =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      if (dead) throw new Error("runtime stopped");
      return fn(...a);
    };
  return {
    readSelection: guard(() => inner.readSelection()),
    ensureLog: guard(() => inner.ensureLog()),
    readLog: guard((query) => inner.readLog(query)),
    appendLog: guard((r) => inner.appendLog(r)),
    updateLog: guard((u) => inner.updateLog(u)),
    showLog: guard(() => inner.showLog()),
    kill: () => {
      dead = true;
    },
  };
}

/**
 * A "reloaded pane": a fresh desk over the same workbook and this computer's journal lists the unfinished rows, the user
 * presses Resume (claiming rows without an account), and it runs until every row is final. Returns the rows it took up.
 */
export async function resumeInNewPane(
  client: HedgingClient,
  workbook: Workbook,
  settleMs: number,
  intentStore?: IntentStore,
): Promise<number> {
  const desk = createDesk({ client, workbook, intentStore, pollIntervalMs: 1_000, concurrency: 4 });
  try {
    const plan = await desk.inspect();
    const { resumed } = await desk.resume({ claim: plan.items.filter((i) => i.owner === "unclaimed").map((i) => i.row.idempotencyKey) });
    await desk.settled(settleMs);
    return resumed.length;
  } finally {
    desk.stop();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
