// Bench: wall time to open and fill rows against the sandbox, next to the floor set by the client's rate limit, the fill latency and one row at a time per market side.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { HedgingClient } from "../../src/api/client";
import { createDesk } from "../../src/trading/desk";
import { startSandbox } from "../../src/sandbox/server";
import { benchAccount } from "../sandbox/helpers";
import { DEFAULT_MARKETS, type MarketConfig } from "../../src/sandbox/pricing";
import type { CellValue } from "../../src/trading/cells";
import type { Action } from "../../src/trading/types";

const FILL_MS = 1_500; // the sandbox default: "usually within a few seconds"
const RATE = 20; // the sandbox's limit per key (the client learns its own rate from the answers)
const BURST = 0; // the floor of issue 11: n ÷ the limit, then one fill
const POLL_MS = 500; // the desk's default fill-poll cadence

/** The earliest the last of n requests can leave under the token bucket, in ms. */
const rateFloorMs = (n: number) => (Math.max(0, n - BURST) / RATE) * 1000;

async function timedBatch(desk: Awaited<ReturnType<typeof createDesk>>, workbook: MemoryWorkbook, action: Action, grid: CellValue[][]) {
  workbook.setSheet("Rows", grid).select("Rows", `A2:E${grid.length}`);
  const t0 = performance.now();
  const read = await desk.readRows(action);
  if (read.problems.length) throw new Error(read.problems.map((p) => p.message).join("\n"));
  const preview = await desk.preview(action, read.rows);
  if (preview.blockers.length) throw new Error(preview.blockers.join("\n"));
  const t1 = performance.now();
  const sent = await desk.send(preview);
  const t2 = performance.now();
  await desk.settled(300_000);
  const t3 = performance.now();
  const notFilled =
    sent.rows.length -
    (await desk.log()).filter((r) => sent.rows.some((s) => s.idempotencyKey === r.idempotencyKey) && r.status === "filled").length;
  return {
    rows: read.rows.length,
    previewMs: t1 - t0,
    sendMs: t2 - t1,
    fillMs: t3 - t2,
    totalMs: t3 - t0,
    sendToFilledMs: t3 - t1,
    notFilled,
  };
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Adds on the one hedge: each leaves once the one before is final in the log (a fill, then the next poll). */
const ADDS = 19;

async function scenarioOneMarket(): Promise<void> {
  // Production-like: USDTNGN only, one hedge per market side, so the rows are 1 Open then Adds on the same hedge.
  const sb = await startSandbox({
    port: 0,
    http: true,
    fillMs: FILL_MS,
    accounts: [benchAccount("svc_test_bench_one_market_01", ["USDTNGN"])],
  });
  try {
    const client = new HedgingClient({ apiKey: "svc_test_bench_one_market_01", baseUrl: sb.baseUrl });
    const workbook = new MemoryWorkbook();
    const desk = await createDesk({ client, workbook, pollIntervalMs: POLL_MS });
    const open = await timedBatch(desk, workbook, "open", [
      ["Market", "Side", "Notional", "Tenor", "Client reference"],
      ["USDTNGN", "buy", 100_000, 7, "BENCH-0"],
    ]);
    const adds: CellValue[][] = [["Market", "Side", "Amount", "Tenor", "Client reference"]];
    for (let i = 1; i <= ADDS; i++) adds.push(["USDTNGN", "buy", 1_000 + i, "", `BENCH-${i}`]);
    const add = await timedBatch(desk, workbook, "add", adds);
    desk.stop();
    const hedge = (await client.list({ limit: 5 })).data[0];
    const expected = 100_000 + adds.slice(1).reduce((a, r) => a + Number(r[2]), 0);
    // Floors: the open fills once; the adds go one after another on their side, each after the previous one's fill.
    const openFloor = FILL_MS;
    const addFloor = ADDS * FILL_MS;
    console.log(`A) USDTNGN only: 1 Open, then ${ADDS} Adds on the same hedge (one account)`);
    console.log(`   open : preview ${s(open.previewMs)}, send→filled ${s(open.sendToFilledMs)}   (floor ${s(openFloor)}: one fill)`);
    console.log(
      `   adds : preview ${s(add.previewMs)} (${ADDS} quotes), send→all filled ${s(add.sendToFilledMs)} = ${s(add.sendToFilledMs / ADDS)} an add   (floor ${s(addFloor)}: one fill each, one at a time on the side)`,
    );
    console.log(
      `   total wall time for ${ADDS + 1} rows incl. previews: ${s(open.totalMs + add.totalMs)}; not filled: ${open.notFilled + add.notFilled}; hedge notional ${hedge.notional_usd} (expected ${expected})`,
    );
  } finally {
    await sb.close();
  }
}

async function scenarioManyMarkets(): Promise<void> {
  // Sandbox-only: 50 made-up markets × 2 sides, so one batch opens 100 separate hedges.
  const markets: MarketConfig[] = Array.from({ length: 50 }, (_, i) => ({
    ...DEFAULT_MARKETS[0],
    symbol: i === 0 ? "USDTNGN" : `USDTX${String(i).padStart(2, "0")}`,
    pair: `USDT/X${i}`,
  }));
  const key = "svc_test_bench_many_markets_1";
  const sb = await startSandbox({
    port: 0,
    http: true,
    fillMs: FILL_MS,
    markets,
    accounts: [
      benchAccount(
        key,
        markets.map((m) => m.symbol),
      ),
    ],
  });
  try {
    const client = new HedgingClient({ apiKey: key, baseUrl: sb.baseUrl });
    const workbook = new MemoryWorkbook();
    const desk = await createDesk({ client, workbook, pollIntervalMs: POLL_MS });
    const grid: CellValue[][] = [["Market", "Side", "Notional", "Tenor", "Client reference"]];
    for (let i = 0; i < 100; i++) grid.push([markets[Math.floor(i / 2)].symbol, i % 2 ? "sell" : "buy", 10_000, 7, `MANY-${i}`]);
    const r = await timedBatch(desk, workbook, "open", grid);
    desk.stop();
    const floor = rateFloorMs(100) + FILL_MS;
    console.log("B) 100 Opens in one batch over 50 sandbox-only markets × 2 sides (one account)");
    console.log(
      `   preview ${s(r.previewMs)} (100 quotes), send ${s(r.sendMs)}, send→all filled ${s(r.sendToFilledMs)}   (floor ${s(floor)}: 100 POSTs at ${RATE}/s (the sandbox's limit), then one fill)`,
    );
    console.log(`   total wall time incl. preview: ${s(r.totalMs)}; not filled: ${r.notFilled}`);
  } finally {
    await sb.close();
  }
}

export async function run(): Promise<void> {
  console.log(
    `fill latency ${FILL_MS} ms (sandbox), sandbox limit ${RATE}/s per key (the client's rate is learned), poll every ${POLL_MS} ms`,
  );
  await scenarioOneMarket();
  await scenarioManyMarkets();
}
