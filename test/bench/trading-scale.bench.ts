// Bench: trading at Excel scale against the sandbox over HTTP — a 1,000-row preview of 20 distinct questions (quote requests, time to the first figures) and fill polling of 10,000 submitted rows (requests per round).
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { HedgingClient } from "../../src/api/client";
import { createDesk } from "../../src/trading/desk";
import { pollOnce } from "../../src/trading/fills";
import { intentFromRow, type Intent } from "../../src/trading/intent";
import { startSandbox } from "../../src/sandbox/server";
import { DEFAULT_MARKETS, type MarketConfig } from "../../src/sandbox/pricing";
import type { CellValue } from "../../src/trading/cells";
import { benchAccount } from "../sandbox/helpers";

const KEY = "svc_test_bench_trading_scale_01";
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Funds far beyond any batch here: the scenarios measure requests, not refusals. */
function account(allowed: string[]) {
  return benchAccount(KEY, allowed, 20, { balance_usdc: 1e12, max_exposure_usd: 1e13, per_hedge_limit_usd: 1e12 });
}

async function previewScenario(): Promise<void> {
  const sb = await startSandbox({ port: 0, http: true, fillMs: 50, accounts: [account(["USDTNGN"])] });
  try {
    let quotes = 0;
    let requests = 0;
    const client = new HedgingClient({
      apiKey: KEY,
      baseUrl: sb.baseUrl,
      onAttempt: (e) => {
        requests++;
        if (e.path === "/quotes") quotes++;
      },
    });
    const opened = await client.open({ market: "USDTNGN", side: "buy", notional_usd: 1_000_000, tenor_days: 7, client_reference: "BENCH" });
    while ((await client.get(opened.data.hedge_id!)).data.status !== "filled") await new Promise((r) => setTimeout(r, 20));
    // 1,000 Add rows on the hedge, 20 distinct amounts: 20 distinct questions.
    const grid: CellValue[][] = [
      ["Market", "Side", "Amount"],
      ...Array.from({ length: 1_000 }, (_, i) => ["USDTNGN", "buy", 1_000 * (1 + (i % 20))]),
    ];
    const workbook = new MemoryWorkbook({ sheets: { Rows: grid } }).select("Rows", "A2:C1001");
    const desk = await createDesk({ client, workbook });
    const read = await desk.readRows("add");
    requests = 0;
    quotes = 0;
    const t0 = performance.now();
    let first: number | null = null;
    const preview = await desk.preview("add", read.rows, {
      onProgress: (p) => {
        if (first === null && p.totals.priced > 0) first = performance.now() - t0;
      },
    });
    const total = performance.now() - t0;
    desk.stop();
    console.log("A) Preview of 1,000 Add rows asking 20 distinct questions (same market, side, amount, tenor)");
    console.log(
      `   ${quotes} quote requests (${requests} requests in all, with the account, the markets and the open hedges); first figures after ${s(first ?? total)}, all ${preview.totals.priced} of ${preview.totals.rows} rows priced after ${s(total)}`,
    );
    console.log("   goal: 20 quote requests, first figures within a second (before: 1,000 quotes at 4 in flight under 8/s, ~2 min)");
  } finally {
    await sb.close();
  }
}

async function pollingScenario(): Promise<void> {
  const N = 10_000;
  const markets: MarketConfig[] = Array.from({ length: N / 2 }, (_, i) => ({
    ...DEFAULT_MARKETS[0],
    symbol: `USDTX${String(i).padStart(4, "0")}`,
    pair: `USDT/X${i}`,
    headroom_usd: 1e12,
  }));
  const sb = await startSandbox({ port: 0, http: true, fillMs: 50, markets, accounts: [account(markets.map((m) => m.symbol))] });
  try {
    // 10,000 hedges opened straight on the engine, their fills held: 10,000 rows waiting for their fill.
    sb.engine.setFillsStalled(true);
    const acct = sb.engine.accountState(KEY)!;
    const at = new Date().toISOString();
    const intents: Intent[] = [];
    for (let i = 0; i < N; i++) {
      const market = markets[Math.floor(i / 2)].symbol;
      const side = i % 2 ? "sell" : "buy";
      const result = sb.engine.open(acct, { market, side, notional_usd: 10_000, tenor_days: 7, client_reference: `P-${i}` });
      if (!result.ok) throw new Error(result.error.message);
      const intent = intentFromRow(
        { rowNumber: i + 2, action: "open", market, side, notional: 10_000, tenor: 7, clientReference: `P-${i}` },
        `key-${i}`,
        "sandbox",
        at,
      );
      intents.push(Object.assign(intent, { status: "submitted" as const, hedgeId: result.data.hedge_id! }));
    }
    let requests = 0;
    const client = new HedgingClient({ apiKey: KEY, baseUrl: sb.baseUrl, ratePerSecond: 1_000, burst: 1_000, onAttempt: () => requests++ });
    const round = async (label: string) => {
      requests = 0;
      const t0 = performance.now();
      const r = await pollOnce(client, intents);
      const done = r.judged.filter((j) => j.verdict.kind === "effect" && j.verdict.patch.status !== "submitted").length;
      console.log(`   ${label}: ${requests} requests in ${s(performance.now() - t0)}; ${r.judged.length} rows judged, ${done} final`);
    };
    console.log(`B) Fill polling of ${N.toLocaleString("en-US")} submitted rows (${N / 2} sandbox markets × 2 sides), one round`);
    await round("all still submitted");
    sb.engine.setFillsStalled(false);
    sb.engine.pump();
    await round("all filled          ");
    console.log("   goal: ≤ 25 requests per round (before: 1 list + ~9,500 GETs by id)");
  } finally {
    await sb.close();
  }
}

export async function run(): Promise<void> {
  await previewScenario();
  await pollingScenario();
}
