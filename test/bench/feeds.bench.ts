// Bench (issue 11): requests that follow the user — pane visible / hidden, a 60 s outage, 100 opens against a limited sandbox, two workbooks on one key.
import { FakeInvocation } from "../functions/fake-invocation"; // first: it installs the CustomFunctions global functions.ts needs
import { HedgingClient } from "../../src/api/client";
import type { AttemptEvent } from "../../src/api/sender";
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { ManualClock, systemClock, type Clock } from "../../src/feeds/clock";
import { Connection } from "../../src/feeds/connection";
import { FeedHub } from "../../src/feeds/hub";
import { setSharedHub } from "../../src/feeds/shared";
import { ManualVisibility } from "../../src/feeds/visibility";
import "../../src/functions/engine"; // the functions' work, as the page's engine entry hands it over (after the CustomFunctions global)
import * as fn from "../../src/functions/functions";
import { CellStreams } from "../../src/functions/stream";
import * as handlers from "../../src/functions/handlers";
import { startSandbox } from "../../src/sandbox/server";
import { benchAccount } from "../sandbox/helpers";
import { DEFAULT_MARKETS, type MarketConfig } from "../../src/sandbox/pricing";
import { followOverview } from "../../src/taskpane/overview-feeds";
import { createDesk } from "../../src/trading/desk";
import type { CellValue } from "../../src/trading/cells";

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

const FILL_MS = 1_500;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const ok = (pass: boolean) => (pass ? "PASS" : "FAIL");

/** Every attempt of a client, with the time it was sent and its status. */
class Meter {
  readonly attempts: Array<{ at: number; path: string; status: number | null; method: string }> = [];
  /** `simulated`: the hub's manual clock, which stands still while a request is out (so the end time is the send time). */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly simulated = false,
  ) {}
  readonly onAttempt = (e: AttemptEvent) =>
    this.attempts.push({ at: this.now() - (this.simulated ? 0 : e.durationMs), path: e.path, status: e.status, method: e.method });
  count(from = -Infinity, to = Infinity, filter: (a: Meter["attempts"][number]) => boolean = () => true): number {
    return this.attempts.filter((a) => a.at >= from && a.at < to && filter(a)).length;
  }
}

/** A hub over its own connection and client (one workbook's runtime). */
function runtime(sb: Sandbox, apiKey: string, clock: Clock, meter: Meter) {
  const connection = new Connection({ onAttempt: meter.onAttempt });
  connection.configure({ apiKey, baseUrl: sb.baseUrl });
  const hub = new FeedHub({ source: connection, clock });
  return { connection, hub, client: connection.client as HedgingClient };
}

// ---- A: the pane alone, visible then hidden ----

async function paneScenario(sb: Sandbox, key: string): Promise<void> {
  const clock = new ManualClock(Date.now());
  const meter = new Meter(() => clock.now(), true);
  const { hub } = runtime(sb, key, clock, meter);
  const advance = (ms: number) => clock.advance(ms, () => hub.settled());
  const visibility = new ManualVisibility(true);
  let priceAnswers = 0;
  const pane = followOverview(hub, visibility, { account: () => undefined, markets: () => undefined, prices: () => void priceAnswers++ });
  pane.setConnected(true);
  const t0 = clock.now();
  await advance(60_000);
  const per2s = (path: string) => (meter.count(t0, t0 + 60_000, (a) => a.path === path) / 30).toFixed(2);
  const visibleTotal = meter.count(t0, t0 + 60_000);
  const worst = Math.max(...["/account", "/prices", "/markets"].map((p) => Number(per2s(p))));
  console.log("A) The pane, no cells (60 s simulated each, real HTTP)");
  console.log(
    `   visible: /account ${per2s("/account")}, /prices ${per2s("/prices")}, /markets ${per2s("/markets")} requests per 2 s (${visibleTotal} in all)   goal ≤ 1 per 2 s per figure: ${ok(worst <= 1)}`,
  );
  visibility.set(false);
  const sentBefore = meter.attempts.length;
  await advance(60_000);
  const hidden = meter.attempts.length - sentBefore;
  console.log(`   hidden : ${hidden} requests in 60 s   goal 0: ${ok(hidden === 0)}`);
  const before = priceAnswers;
  const sentWhileHidden = meter.attempts.length;
  visibility.set(true);
  await advance(0);
  const atOnce = meter.attempts.length - sentWhileHidden;
  console.log(
    `   shown again: ${atOnce} requests at once, a fresh price shown: ${priceAnswers > before ? "yes" : "no"}   ${ok(priceAnswers > before && atOnce > 0)}`,
  );
  pane.dispose();
  hub.dispose();
}

// ---- B: a 60 s outage under 20 QUOTE and 1,000 PRICE cells ----

async function outageScenario(sb: Sandbox, key: string): Promise<void> {
  const clock = new ManualClock(Date.now());
  const meter = new Meter(() => clock.now(), true);
  const { hub } = runtime(sb, key, clock, meter);
  setSharedHub(hub);
  const advance = (ms: number) => clock.advance(ms, () => hub.settled());
  const prices = Array.from({ length: 1000 }, () => new FakeInvocation<number>());
  for (const c of prices) fn.price("USDTNGN", c as never);
  const quotes = Array.from({ length: 20 }, () => new FakeInvocation<unknown[][]>());
  quotes.forEach((c, i) => fn.quote("USDTNGN", i % 2 ? "sell" : "buy", 5_000 * (1 + i), 7, "pricing.execution_price", c as never));
  await advance(10_000); // settle in
  const h0 = clock.now();
  await advance(60_000);
  const healthy = meter.count(h0, h0 + 60_000);

  sb.faults.apply({ fail_next: { count: 1_000_000, code: "service_unavailable" } });
  const o0 = clock.now();
  const perWindow: number[] = [];
  for (let w = 0; w < 6; w++) {
    await advance(10_000);
    perWindow.push(meter.count(o0 + w * 10_000, o0 + (w + 1) * 10_000));
  }
  const outage = meter.count(o0, o0 + 60_000);
  const isError = (c: FakeInvocation<unknown>) =>
    typeof c.last === "object" && c.last !== null && "code" in (c.last as object) && !Array.isArray(c.last);
  const kept = [...prices, ...quotes].filter((c) => c.results.length > 0 && !isError(c as FakeInvocation<unknown>)).length;

  sb.faults.clear();
  const back = clock.now();
  const topics = () => hub.topicInfo().filter((t) => t.subscribers > 0);
  let recoveredAt: number | null = null;
  for (let t = 0; t < 60_000 && recoveredAt === null; t += 250) {
    await advance(250);
    if (topics().every((info) => (info.fetchedAt ?? 0) >= back)) recoveredAt = clock.now();
  }
  const recovery = recoveredAt === null ? Infinity : recoveredAt - back;
  console.log("B) 60 s of 503s with 20 QUOTE and 1,000 PRICE cells live (simulated time, real HTTP)");
  console.log(
    `   healthy minute: ${healthy} requests; outage minute: ${outage} (${((outage / healthy) * 100).toFixed(0)} %)   goal ≤ 50 %: ${ok(outage <= healthy / 2)}`,
  );
  console.log(`   during the outage, per 10 s: ${perWindow.join(", ")} (healthy: ${(healthy / 6).toFixed(0)} per 10 s)`);
  console.log(
    `   cells still showing their last value: ${kept} of ${prices.length + quotes.length}   ${ok(kept === prices.length + quotes.length)}`,
  );
  console.log(`   every feed fresh again ${s(recovery)} after the service returned   goal ≤ 15 s: ${ok(recovery <= 15_000)}`);
  for (const c of [...prices, ...quotes]) c.cancel();
  hub.dispose();
}

// ---- C: 100 opens against a sandbox limited to N requests/s ----

async function opensScenario(limit: number): Promise<void> {
  const markets: MarketConfig[] = Array.from({ length: 50 }, (_, i) => ({
    ...DEFAULT_MARKETS[0],
    symbol: i === 0 ? "USDTNGN" : `USDTX${String(i).padStart(2, "0")}`,
    pair: `USDT/X${i}`,
  }));
  const key = `svc_test_bench_feeds_opens_${limit}`;
  const sb = await startSandbox({
    port: 0,
    http: true,
    fillMs: FILL_MS,
    markets,
    accounts: [
      benchAccount(
        key,
        markets.map((m) => m.symbol),
        limit,
      ),
    ],
  });
  try {
    const meter = new Meter();
    const { hub, client, connection } = runtime(sb, key, systemClock, meter);
    // The pane is open and visible, and 20 QUOTE cells stream, on the same client: trading goes ahead of them.
    const pane = followOverview(hub, new ManualVisibility(true), {
      account: () => undefined,
      markets: () => undefined,
      prices: () => undefined,
    });
    pane.setConnected(true);
    const streams = new CellStreams(hub, (e) => e);
    const quoteCells = Array.from({ length: 20 }, () => new FakeInvocation<unknown[][]>());
    quoteCells.forEach((c, i) => handlers.quote(streams, c as never, "USDTNGN", i % 2 ? "sell" : "buy", 5_000 * (1 + i), 7, undefined));

    const workbook = new MemoryWorkbook();
    const desk = await createDesk({ client, workbook });
    const grid: CellValue[][] = [["Market", "Side", "Notional", "Tenor", "Client reference"]];
    for (let i = 0; i < 100; i++) grid.push([markets[Math.floor(i / 2)].symbol, i % 2 ? "sell" : "buy", 10_000, 7, `FEEDS-${limit}-${i}`]);
    workbook.setSheet("Rows", grid).select("Rows", `A2:E${grid.length}`);
    const tp = Date.now();
    const read = await desk.readRows("open");
    const preview = await desk.preview("open", read.rows);
    if (preview.blockers.length) throw new Error(preview.blockers.join("\n"));
    const t1 = Date.now();
    const rateAtSend = client.flowState().ratePerSecond;
    await desk.send(preview);
    await desk.settled(120_000);
    const t3 = Date.now();
    const filled = (await desk.log()).filter((r) => r.status === "filled").length;
    desk.stop();
    const inBatch = meter.count(t1, t3 + 1);
    const refused = meter.count(t1, t3 + 1, (a) => a.status === 429);
    const feedsInBatch = meter.count(
      t1,
      t3 + 1,
      (a) => a.path === "/quotes" || a.path === "/prices" || a.path === "/account" || a.path === "/markets",
    );
    const floor = (100 / limit) * 1000 + FILL_MS;
    const took = t3 - t1;
    console.log(
      `C) 100 Opens (100 hedges) against a sandbox limited to ${limit} requests/s; the pane and 20 QUOTE cells live on the same client`,
    );
    console.log(
      `   preview ${s(t1 - tp)} (rate learned by then ${rateAtSend.toFixed(1)}/s); send → all ${filled} filled ${s(took)}; floor ${s(floor)} (100 ÷ ${limit} + ${s(FILL_MS)} fill): ×${(took / floor).toFixed(2)}   goal ≤ ×1.2: ${ok(took <= 1.2 * floor && filled === 100)}`,
    );
    console.log(
      `   requests during the batch ${inBatch} (feeds ${feedsInBatch}); 429s ${refused} (${((refused / Math.max(1, inBatch)) * 100).toFixed(1)} %)   goal ≤ 5 %: ${ok(refused <= 0.05 * inBatch)}; rate at the end ${client.flowState().ratePerSecond.toFixed(1)}/s`,
    );
    if (process.env.FEEDS_BENCH_TRACE) {
      for (let t = t1; t < t3; t += 500) {
        const w = (f: (a: Meter["attempts"][number]) => boolean) => meter.count(t, t + 500, f);
        console.log(
          `     +${((t - t1) / 1000).toFixed(1)}s POST ${w((a) => a.method === "POST" && a.path === "/hedges")} list ${w((a) => a.path === "/hedges" && a.method === "GET")} feeds ${w((a) => a.path === "/quotes" || a.path === "/prices" || a.path === "/account" || a.path === "/markets")} 429 ${w((a) => a.status === 429)}`,
        );
      }
    }
    for (const c of quoteCells) c.cancel();
    pane.dispose();
    hub.dispose();
    connection.configure({ apiKey: null, baseUrl: sb.baseUrl });
  } finally {
    await sb.close();
  }
}

// ---- D: two workbooks on one key ----

async function twoWorkbooksScenario(): Promise<void> {
  const key = "svc_test_bench_feeds_two_workbooks";
  const limit = 20;
  const sb = await startSandbox({ port: 0, http: true, fillMs: FILL_MS, accounts: [benchAccount(key, ["USDTNGN"], limit)] });
  const seconds = 40;
  try {
    const meter = new Meter();
    const books = [0, 1].map((b) => {
      const r = runtime(sb, key, systemClock, meter);
      const pane = followOverview(r.hub, new ManualVisibility(true), {
        account: () => undefined,
        markets: () => undefined,
        prices: () => undefined,
      });
      pane.setConnected(true);
      const streams = new CellStreams(r.hub, (e) => e);
      // 60 distinct quotes each (12 requests/s wanted per workbook at 5 s), 500 PRICE cells, positions and account.
      const cells = Array.from({ length: 600 }, () => new FakeInvocation<unknown>());
      cells.forEach((c, i) => {
        if (i < 60)
          handlers.quote(streams, c as never, "USDTNGN", i % 2 ? "sell" : "buy", 1_000 * (1 + i) + b, 7, "pricing.execution_price");
        else if (i < 580) handlers.price(streams, c as never, "USDTNGN");
        else if (i < 590) handlers.positions(streams, c as never, undefined, undefined);
        else handlers.account(streams, c as never, "balance_usdc");
      });
      return { ...r, pane, cells };
    });
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const t1 = Date.now();
    const answered = meter.count(t0, t1, (a) => a.status !== null && a.status !== 429);
    const refused = meter.count(t0, t1, (a) => a.status === 429);
    const all = meter.count(t0, t1);
    const shown429 = books
      .flatMap((b) => b.cells)
      .filter((c) => {
        const last = c.last as { message?: string } | undefined;
        return typeof last?.message === "string" && last.message.includes("rate_limited");
      }).length;
    const noValue = books.flatMap((b) => b.cells).filter((c) => c.results.length === 0).length;
    console.log(
      `D) Two workbooks (two runtimes, two hubs) on one key limited to ${limit}/s, each with 60 distinct QUOTEs, 520 PRICE, 10 POSITIONS, 10 ACCOUNT cells and the pane, ${seconds} s real time`,
    );
    console.log(
      `   together: ${(all / seconds).toFixed(1)} requests/s sent, ${(answered / seconds).toFixed(1)}/s answered (limit ${limit}/s, plus its one-second burst), ${refused} of ${all} refused with 429 (${((refused / all) * 100).toFixed(1)} %)`,
    );
    console.log(
      `   rates learned: ${books.map((b) => `${b.client.flowState().ratePerSecond.toFixed(1)}/s`).join(" and ")}; quote interval stretched to ${books.map((b) => s(b.hub.effectiveIntervalMs("quote"))).join(" and ")}`,
    );
    console.log(
      `   cells showing a 429 error: ${shown429}; cells still without a value: ${noValue}   goal 0 visible 429s: ${ok(shown429 === 0)}`,
    );
    for (const b of books) {
      for (const c of b.cells) c.cancel();
      b.pane.dispose();
      b.hub.dispose();
    }
  } finally {
    await sb.close();
  }
}

export async function run(): Promise<void> {
  const only = process.env.FEEDS_BENCH ? process.env.FEEDS_BENCH.split(",") : ["A", "B", "C", "D"];
  const key = "svc_test_bench_feeds_roomy_key";
  if (only.includes("A") || only.includes("B")) {
    // A and B count requests, not rates: a roomy limit keeps the sandbox's real-time bucket out of their simulated minutes.
    const sb = await startSandbox({ port: 0, http: true, fillMs: FILL_MS, accounts: [benchAccount(key, ["USDTNGN"], 10_000)] });
    try {
      if (only.includes("A")) await paneScenario(sb, key);
      if (only.includes("B")) await outageScenario(sb, key);
    } finally {
      await sb.close();
    }
  }
  if (only.includes("C")) {
    await opensScenario(20);
    await opensScenario(100);
  }
  if (only.includes("D")) await twoWorkbooksScenario();
}
