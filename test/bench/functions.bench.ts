// Requests per poll interval of the HEDGE.* functions against the in-process sandbox (real HTTP, simulated time), and CPU per fan-out tick.
import { FakeInvocation, installFeeds } from "../functions/fake-invocation";
import "../../src/functions/engine"; // the functions' work, as the page's engine entry hands it over (after the CustomFunctions global)
import * as fn from "../../src/functions/functions";
import { ManualClock } from "../../src/feeds/clock";
import { Connection } from "../../src/feeds/connection";
import { FeedHub } from "../../src/feeds/hub";
import type { Endpoint } from "../../src/feeds/topic";
import { setSharedHub } from "../../src/feeds/shared";
import type { AttemptEvent } from "../../src/api/sender";
import { startSandbox } from "../../src/sandbox/server";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import defaultAccounts from "../../src/sandbox/default-accounts.json";

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

interface Rig {
  hub: FeedHub;
  clock: ManualClock;
  requests: Map<string, number>;
  advance(ms: number): Promise<void>;
  done(): void;
}

/** A shared hub on simulated time whose client talks to the sandbox over HTTP, counting every attempt by "METHOD /path". */
function rig(sandbox: Sandbox): Rig {
  const requests = new Map<string, number>();
  const onAttempt = (e: AttemptEvent) => requests.set(`${e.method} ${e.path}`, (requests.get(`${e.method} ${e.path}`) ?? 0) + 1);
  const connection = new Connection({ onAttempt });
  connection.configure({ apiKey: DEMO_API_KEY, baseUrl: sandbox.baseUrl });
  const clock = new ManualClock(Date.now());
  const hub = setSharedHub(new FeedHub({ source: connection, clock }));
  return {
    hub,
    clock,
    requests,
    advance: (ms) => clock.advance(ms, () => hub.settled()),
    done: () => hub.dispose(),
  };
}

function requestsOf(r: Rig, key: string): number {
  return r.requests.get(key) ?? 0;
}

/** Poll rounds in `seconds` of simulated time for an endpoint: the first at 0 s, then one per interval. */
function rounds(r: Rig, endpoint: Endpoint, seconds: number): number {
  return Math.floor((seconds * 1000) / r.hub.effectiveIntervalMs(endpoint)) + 1;
}

function row(label: string, cells: number, requests: number, refreshes: number, intervalMs: number): void {
  const per = requests / refreshes;
  console.log(
    `  ${label.padEnd(34)} ${String(requests).padStart(5)} requests / ${String(refreshes).padStart(2)} refreshes (every ${intervalMs / 1000} s) = ${per.toFixed(2).padStart(6)} per interval   naive: ${cells} per interval`,
  );
}

function otherRequests(r: Rig, shown: string[]): string {
  const rest = [...r.requests.entries()].filter(([k]) => !shown.includes(k));
  return rest.length ? rest.map(([k, n]) => `${k} ×${n}`).join(", ") : "none";
}

function checkCells(cells: ReadonlyArray<{ results: unknown[]; last: unknown }>): string {
  const bad = cells.filter((c) => c.results.length === 0 || (c.last as { code?: string })?.code !== undefined).length;
  return bad === 0 ? `all ${cells.length} cells show values` : `${bad} of ${cells.length} cells show no value or an error`;
}

async function priceScenario(sandbox: Sandbox): Promise<void> {
  const r = rig(sandbox);
  const seconds = 60;
  const cells = Array.from({ length: 1000 }, () => new FakeInvocation<number>());
  for (const c of cells) fn.price("USDTNGN", c as never);
  await r.advance(seconds * 1000);
  console.log(`1,000 × HEDGE.PRICE("USDTNGN"), ${seconds} s simulated:`);
  row("GET /prices", cells.length, requestsOf(r, "GET /prices"), rounds(r, "prices", seconds), r.hub.effectiveIntervalMs("prices"));
  console.log(`  other requests: ${otherRequests(r, ["GET /prices"])} (the one allowed-markets check);  ${checkCells(cells)}`);
  r.done();
}

async function quoteScenario(sandbox: Sandbox): Promise<void> {
  const r = rig(sandbox);
  const seconds = 30;
  const cells = Array.from({ length: 1000 }, () => new FakeInvocation<unknown[][]>());
  cells.forEach((c, i) => {
    const set = i % 20;
    fn.quote("USDTNGN", set < 10 ? "buy" : "sell", 5_000 * (1 + (set % 10)), 7, i % 2 ? "pricing.execution_price" : undefined, c as never);
  });
  await r.advance(seconds * 1000);
  console.log(`1,000 × HEDGE.QUOTE over 20 distinct argument sets, ${seconds} s simulated:`);
  row("POST /quotes", cells.length, requestsOf(r, "POST /quotes"), rounds(r, "quote", seconds), r.hub.effectiveIntervalMs("quote"));
  console.log(`  other requests: ${otherRequests(r, ["POST /quotes"])};  ${checkCells(cells)}`);
  r.done();
}

async function accountScenario(sandbox: Sandbox): Promise<void> {
  const r = rig(sandbox);
  const seconds = 60;
  const cells = Array.from({ length: 200 }, () => new FakeInvocation<unknown[][]>());
  cells.forEach((c, i) => {
    if (i % 3 === 0) fn.positions(undefined, undefined, c as never);
    else if (i % 3 === 1) fn.account(i % 2 ? "balance_usdc" : undefined, c as never);
    else fn.markets(c as never);
  });
  await r.advance(seconds * 1000);
  const count = (k: string) => cells.filter((_, i) => ["GET /positions", "GET /account", "GET /markets"][i % 3] === k).length;
  console.log(`200 cells over HEDGE.POSITIONS, HEDGE.ACCOUNT and HEDGE.MARKETS, ${seconds} s simulated:`);
  row(
    "GET /positions",
    count("GET /positions"),
    requestsOf(r, "GET /positions"),
    rounds(r, "positions", seconds),
    r.hub.effectiveIntervalMs("positions"),
  );
  row(
    "GET /account",
    count("GET /account"),
    requestsOf(r, "GET /account"),
    rounds(r, "account", seconds),
    r.hub.effectiveIntervalMs("account"),
  );
  row(
    "GET /markets",
    count("GET /markets"),
    requestsOf(r, "GET /markets"),
    rounds(r, "markets", seconds),
    r.hub.effectiveIntervalMs("markets"),
  );
  console.log(`  other requests: ${otherRequests(r, ["GET /positions", "GET /account", "GET /markets"])};  ${checkCells(cells)}`);
  r.done();
}

/** CPU per tick to fan one changed value out to 10,000 cells (in-memory client, so the tick is all hub and cells). */
async function fanOutScenario(label: string, endpoint: Endpoint, open: (cell: FakeInvocation<unknown>, i: number) => void): Promise<void> {
  const { client, advance, hub } = installFeeds();
  const cells = Array.from({ length: 10_000 }, () => new FakeInvocation<unknown>());
  cells.forEach((c, i) => open(c, i));
  await advance(0);
  const samples: number[] = [];
  const setBefore = cells.reduce((n, c) => n + c.results.length, 0);
  const ticks = 30;
  for (let tick = 0; tick < ticks; tick++) {
    client.rate += 0.01; // a changed rate every tick
    const before = process.cpuUsage();
    await advance(hub.effectiveIntervalMs(endpoint));
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / 1000);
  }
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  const setPerTick = (cells.reduce((n, c) => n + c.results.length, 0) - setBefore) / ticks;
  console.log(`  ${label}`);
  console.log(
    `      CPU per tick: mean ${mean.toFixed(2)} ms, median ${samples[ticks / 2].toFixed(2)} ms, max ${samples[ticks - 1].toFixed(2)} ms; cells set per tick: ${setPerTick.toFixed(0)} (a cell whose value did not change is not set)`,
  );
  hub.dispose();
}

export async function run(): Promise<void> {
  // Simulated minutes pass in moments of real time: a roomy limit keeps the sandbox's real-time bucket (20/s by default) out
  // of the count, which is of requests per interval, not of rates (test/bench/feeds.bench.ts measures those).
  const accounts = defaultAccounts.accounts.map((a) => (a.api_key === DEMO_API_KEY ? { ...a, rate_limit_per_second: 10_000 } : a));
  const sandbox = await startSandbox({ port: 0, http: true, accounts });
  try {
    console.log(`Sandbox at ${sandbox.baseUrl}; simulated time on the hub, real HTTP; default intervals and client limits.`);
    await priceScenario(sandbox);
    await quoteScenario(sandbox);
    await accountScenario(sandbox);
  } finally {
    await sandbox.close();
  }
  console.log("Fan-out of one update to 10,000 subscribed cells (30 ticks):");
  await fanOutScenario("10,000 × HEDGE.PRICE (one topic, one view)", "prices", (c) => fn.price("USDTNGN", c as never));
  await fanOutScenario("10,000 × HEDGE.QUOTE, one question, 16 views (15 fields + spill)", "quote", (c, i) => {
    const fields = [
      undefined,
      "market",
      "side",
      "notional_usd",
      "tenor_days",
      "maturity",
      "pricing.market_price",
      "pricing.execution_price",
      "pricing.price_impact_usd",
      "carry.daily_usdc",
      "carry.daily_rate_pct",
      "carry.total_usdc",
      "carry.total_rate_pct",
      "upfront.required_margin_usdc",
      "upfront.platform_fee_usdc",
      "upfront.total_upfront_usdc",
    ];
    fn.quote("USDTNGN", "buy", 10_000, 7, fields[i % fields.length], c as never);
  });
}
