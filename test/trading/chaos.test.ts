// Chaos: 50 opens against the sandbox with faults on (answers dropped after commit, 503 bursts, 429s, slow and failing fills) and a pane reload mid-batch; afterwards every row has exactly one effect and the log matches the service.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../src/excel/intent-store";
import { createDesk } from "../../src/trading/desk";
import { FINAL_STATUSES, type Progress } from "../../src/trading/types";
import type { CellValue } from "../../src/trading/cells";
import type { RunningSandbox } from "../../src/sandbox/server";
import { deskClient, controlOk, startWithMarkets, serviceState, testMarkets } from "../sandbox/helpers";
import { killable, resumeInNewPane } from "./desk-harness";

const KEY = "svc_test_chaos_monkey_key_0001";
const ROWS = 50;
const markets = testMarkets(ROWS / 2);

let sb: RunningSandbox;
const sandboxLog: string[] = [];
beforeAll(async () => {
  sb = await startWithMarkets(KEY, markets, { fillMs: 2_500, failRate: 0.2, seed: 7 }, sandboxLog);
});
afterAll(() => sb.close());

function exposureSheet(): CellValue[][] {
  const rows: CellValue[][] = [["Pair", "Direction", "Notional USD", "Tenor days", "Deal id"]];
  for (let i = 0; i < ROWS; i++) {
    const market = markets[Math.floor(i / 2)].symbol;
    rows.push([
      market,
      i % 2 === 0 ? "buy" : "sell",
      `${(10 + i).toLocaleString("en-US")},000`,
      [1, 3, 7][i % 3],
      `CHAOS-${String(i + 1).padStart(2, "0")}`,
    ]);
  }
  return rows;
}

it("50 rows, faults on, pane reloaded mid-batch: one effect per row, nothing missing, log equals service", async () => {
  const workbook = new MemoryWorkbook({ sheets: { Exposures: exposureSheet() } }).select("Exposures", `A2:E${ROWS + 1}`);

  // The pane knows the account from its connection (GET /account before any fault); the reloaded pane is given it too.
  const { account_address: address } = (await deskClient(sb, KEY).account()).data;
  // Faults from the first request: 2 answers lost after commit, a 503 burst longer than the client's 4 attempts, forced 429s.
  await controlOk(sb, "POST", "/faults", {
    drop_after_commit: 2,
    fail_next: { count: 6, code: "service_unavailable", path: "/hedges", method: "POST" },
    rate_limit_next: 6,
    retry_after_seconds: 1,
  });

  // ---- the first pane: preview, confirm, and it dies after 20 rows were accepted ----
  const runtime1 = killable(workbook);
  // This computer's journal (OfficeRuntime.storage in Excel), shared by both panes.
  const intentStore = new MemoryIntentStore();
  const abort = new AbortController();
  let accepted = 0;
  let killed!: () => void;
  const killedNow = new Promise<void>((resolve) => (killed = resolve));
  const desk1 = await createDesk({
    client: deskClient(sb, KEY),
    workbook: runtime1,
    intentStore,
    account: address,
    pollIntervalMs: 1_000,
    concurrency: 4,
    onProgress: (p: Progress) => {
      if (p.row.status === "submitted") accepted++;
      if (accepted >= 20) killed();
    },
  });
  const read = await desk1.readRows("open");
  expect(read.problems).toEqual([]);
  expect(read.rows).toHaveLength(ROWS);
  const preview = await desk1.preview("open", read.rows);
  expect(preview.blockers).toEqual([]);
  const sending = desk1.send(preview, { signal: abort.signal }).catch((e: unknown) => e);
  await killedNow;
  // Pane reload: the runtime stops — in-flight requests are cut, the workbook cannot be reached, memory is gone.
  runtime1.kill();
  abort.abort(new Error("pane closed"));
  desk1.stop();
  await sending;

  const afterKill = await workbook.readLog();
  expect(afterKill).toHaveLength(ROWS); // every row was journalled before any request left
  const unfinishedAtReload = afterKill.filter((r) => !(FINAL_STATUSES as readonly string[]).includes(r.status)).length;
  expect(unfinishedAtReload).toBeGreaterThan(20);
  // Both resume paths are exercised: rows whose request may or may not have arrived, and rows accepted but not filled.
  const submittingAtReload = afterKill.filter((r) => r.status === "submitting").length;
  const submittedAtReload = afterKill.filter((r) => r.status === "submitted").length;
  expect(submittingAtReload).toBeGreaterThan(0);
  expect(submittedAtReload).toBeGreaterThan(0);

  // More trouble while the second pane works: another lost answer, a 503 burst on the poll list, more 429s.
  await controlOk(sb, "POST", "/faults", {
    drop_after_commit: 1,
    fail_next: { count: 5, code: "service_unavailable", path: "/hedges", method: "GET" },
    rate_limit_next: 4,
  });

  // ---- the second pane: a fresh desk over the same workbook resumes from the log ----
  const resumed = await resumeInNewPane(deskClient(sb, KEY), workbook, 120_000, intentStore, address);
  expect(resumed).toBe(unfinishedAtReload);

  // ---- what the service has, against the rows and the log ----
  const service = await serviceState(sb, KEY);
  const log = await workbook.readLog();
  expect(log).toHaveLength(ROWS);
  const references = exposureSheet()
    .slice(1)
    .map((r) => String(r[4]));
  const mismatches: string[] = [];
  for (const reference of references) {
    const hedges = service.hedges.filter((h) => h.client_reference === reference);
    const rows = log.filter((r) => r.clientReference === reference);
    if (hedges.length !== 1) mismatches.push(`${reference}: ${hedges.length} hedges on the service`);
    if (rows.length !== 1) mismatches.push(`${reference}: ${rows.length} log rows`);
    const [hedge] = hedges;
    const [row] = rows;
    if (!hedge || !row) continue;
    const want = {
      status: hedge.status,
      hedgeId: hedge.id,
      orderTxHash: hedge.order_tx_hash,
      fillTxHash: hedge.fill_tx_hash ?? null,
      struckRate: hedge.struck_rate ?? null,
      notional: hedge.notional_usd,
      market: hedge.market,
      side: hedge.side,
      tenor: hedge.tenor_days,
    };
    const got = {
      status: row.status,
      hedgeId: row.hedgeId,
      orderTxHash: row.orderTxHash,
      fillTxHash: row.fillTxHash,
      struckRate: row.struckRate,
      notional: row.notional,
      market: row.market,
      side: row.side,
      tenor: row.tenor,
    };
    if (JSON.stringify(want) !== JSON.stringify(got))
      mismatches.push(`${reference}: log ${JSON.stringify(got)} vs service ${JSON.stringify(want)}`);
  }
  expect(mismatches).toEqual([]);
  expect(service.hedges).toHaveLength(ROWS); // nothing on the service that no row asked for
  const byStatus = (s: string) => log.filter((r) => r.status === s).length;
  expect(byStatus("filled") + byStatus("failed")).toBe(ROWS);
  expect(byStatus("failed")).toBeGreaterThan(0); // the failing fills did happen, and were logged as failed
  // The faults really fired.
  expect(sandboxLog.filter((l) => l.includes("dropped the answer")).length).toBe(3);
  const faults = await controlOk(sb, "GET", "/faults");
  expect(faults).toMatchObject({ drop_after_commit: 0, rate_limit_next: 0, fail_next: [] });

  // The API key is nowhere in the workbook.
  const hits = workbook.everything().filter((c) => c.value.includes(KEY) || c.value.includes(KEY.slice(9)));
  expect(hits).toEqual([]);
  console.log(
    `chaos: ${ROWS} rows; at the reload the log had ${submittingAtReload} submitting and ${submittedAtReload} submitted (${unfinishedAtReload} unfinished); resumed ${resumed}; final: ${byStatus("filled")} filled, ${byStatus("failed")} failed; ` +
      `service hedges ${service.hedges.length}; mismatches 0`,
  );
}, 180_000);
