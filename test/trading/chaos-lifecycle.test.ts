// Chaos for Add, Reduce and Close: batches of each on several market sides with faults on and a pane reload while rows of every kind are pending; afterwards each row had exactly one effect and the log matches the service.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../src/excel/intent-store";
import { createDesk } from "../../src/trading/desk";
import { isFinal } from "../../src/trading/intent";
import type { Action, Progress } from "../../src/trading/types";
import type { CellValue } from "../../src/trading/cells";
import type { LogRecord } from "../../src/trading/log/hedge-log";
import type { RunningSandbox } from "../../src/sandbox/server";
import type { Side } from "../../src/api/schemas";
import { deskClient, controlOk, startWithMarkets, serviceState, sleep, testMarkets, until } from "../sandbox/helpers";
import { killable, resumeInNewPane } from "./desk-harness";

const KEY = "svc_test_chaos_lifecycle_key_0001";
const markets = testMarkets(3);
/** Six market sides; the last one's open fills slowly, so its adds are still pending at the reload whatever the faults did. */
const SIDES: Array<{ market: string; side: Side }> = markets.flatMap((m) =>
  (["buy", "sell"] as const).map((side) => ({ market: m.symbol, side })),
);
const SLOW = SIDES.length - 1;
// The slow side fills only after the reload. Six forced 429s on one request are waited out (Retry-After 1 s each) before
// the first add leaves, so the reload comes some 15 s in: the slow fill must outlast it.
const SLOW_FILL_MS = 20_000;

interface Planned {
  action: Exclude<Action, "open">;
  side: number;
  amount: number | null;
  reference: string;
}
const OPEN = SIDES.map((_, s) => 100_000 + 10_000 * s);
// Distinct amounts, so that a missing row and a doubled one cannot cancel out in a sum.
const PLAN: Planned[] = [
  ...SIDES.flatMap((_, s) =>
    [0, 1].map((j): Planned => ({ action: "add", side: s, amount: 11_000 + 1_000 * s + 500 * j, reference: `LC-ADD-${s}${j}` })),
  ),
  ...[0, 1, 2, 3, 4, 0, 1].map((s, j): Planned => ({
    action: "reduce",
    side: s,
    amount: 21_000 + 1_000 * s + 250 * j,
    reference: `LC-RED-${j}`,
  })),
  ...[0, 2, 4].map((s): Planned => ({ action: "close", side: s, amount: null, reference: `LC-CLO-${s}` })),
];
const rowsOf = (action: Planned["action"]) => PLAN.filter((p) => p.action === action);

let sb: RunningSandbox;
const sandboxLog: string[] = [];
beforeAll(async () => {
  sb = await startWithMarkets(KEY, markets, { fillMs: 1_000, failRate: 0, seed: 11 }, sandboxLog);
});
afterAll(() => sb.close());

function sheet(action: Planned["action"]): CellValue[][] {
  return [
    ["Symbol", "Side", "Amount", "Reference"],
    ...rowsOf(action).map((p) => [SIDES[p.side].market, SIDES[p.side].side, p.amount ?? "", p.reference]),
  ];
}

it("adds, reduces and closes on six market sides, faults on, pane reloaded with rows of each kind pending: one effect per row, log equals service", async () => {
  // ---- hedges to act on: five filled, one whose open fills only after the reload ----
  const setup = deskClient(sb, KEY);
  const { account_address: address } = (await setup.account()).data;
  const open = (s: number) =>
    setup.open({ market: SIDES[s].market, side: SIDES[s].side, notional_usd: OPEN[s], tenor_days: 7, client_reference: `LC-OPEN-${s}` });
  for (let s = 0; s < SLOW; s++) await open(s);
  await until(
    async () => (await serviceState(sb, KEY)).hedges.filter((h) => h.status === "filled").length === SLOW,
    20_000,
    "the opens to fill",
  );
  await controlOk(sb, "POST", "/faults", { fill_ms: SLOW_FILL_MS });
  await open(SLOW);
  await controlOk(sb, "POST", "/faults", { fill_ms: 1_000 });

  const workbook = new MemoryWorkbook({ sheets: { Adds: sheet("add"), Reduces: sheet("reduce"), Closes: sheet("close") } });
  const runtime1 = killable(workbook);
  // This computer's journal (OfficeRuntime.storage in Excel), shared by both panes.
  const intentStore = new MemoryIntentStore();
  const abort = new AbortController();
  let reduceAccepted = false;
  const desk1 = await createDesk({
    client: deskClient(sb, KEY),
    workbook: runtime1,
    intentStore,
    account: address,
    pollIntervalMs: 1_000,
    concurrency: 4,
    onProgress: (p: Progress) => {
      if (p.row.action === "reduce" && p.row.status === "submitted") reduceAccepted = true;
    },
  });
  // The analyst previews the three batches while the positions are there to see.
  const previews = [];
  for (const action of ["add", "reduce", "close"] as const) {
    workbook.select(action === "add" ? "Adds" : action === "reduce" ? "Reduces" : "Closes", `A2:D${rowsOf(action).length + 1}`);
    const read = await desk1.readRows(action);
    expect(read.problems).toEqual([]);
    expect(read.rows).toHaveLength(rowsOf(action).length);
    const preview = await desk1.preview(action, read.rows);
    expect(preview.blockers).toEqual([]);
    expect(preview.lines.flatMap((l) => l.blockers)).toEqual([]);
    previews.push(preview);
  }
  const [adds, reduces, closes] = previews;

  // Faults: 3 answers lost after commit, a 503 burst longer than the client's 4 attempts on the trading calls, forced 429s.
  await controlOk(sb, "POST", "/faults", {
    drop_after_commit: 3,
    fail_next: { count: 6, code: "service_unavailable", path: "/hedges", method: "POST" },
    rate_limit_next: 6,
    retry_after_seconds: 1,
  });

  // ---- the first pane: the adds, then the reduces, then the closes; it dies once a reduce was accepted ----
  const loggedActions = async () => (await workbook.readLog()).map((r) => r.action);
  // Rows of one market side leave one at a time (each final in the log before the next): the batches are sent together.
  const sendings = [desk1.send(adds, { signal: abort.signal }).catch((e: unknown) => e)];
  await until(async () => (await loggedActions()).includes("add"), 20_000, "the adds in the log");
  sendings.push(desk1.send(reduces, { signal: abort.signal }).catch((e: unknown) => e));
  await until(async () => (await loggedActions()).includes("reduce"), 20_000, "the reduces in the log");
  sendings.push(desk1.send(closes, { signal: abort.signal }).catch((e: unknown) => e));
  await until(async () => (await loggedActions()).includes("close"), 20_000, "the closes in the log");
  await until(() => reduceAccepted, 20_000, "a reduce accepted by the service");
  await sleep(300); // the log has caught up with the accepted reduce
  // Pane reload: the runtime stops — in-flight requests are cut, the workbook cannot be reached, memory is gone.
  runtime1.kill();
  abort.abort(new Error("pane closed"));
  desk1.stop();
  await Promise.all(sendings);

  const afterKill = await workbook.readLog();
  expect(afterKill).toHaveLength(PLAN.length); // every row was journalled before any request left
  const pendingAtReload = (action: string, status?: string) =>
    afterKill.filter((r) => r.action === action && !isFinal(r.status) && (!status || r.status === status)).length;
  const unfinishedAtReload = afterKill.filter((r) => !isFinal(r.status)).length;
  // Rows of each kind are unfinished; the slow side's first add (its open not filled) and a reduce had been accepted, the closes not yet.
  expect(pendingAtReload("add", "submitted")).toBeGreaterThanOrEqual(1);
  expect(pendingAtReload("add", "submitting")).toBeGreaterThanOrEqual(1);
  expect(pendingAtReload("reduce", "submitted")).toBeGreaterThan(0);
  expect(pendingAtReload("reduce", "submitting")).toBeGreaterThan(0);
  expect(pendingAtReload("close", "submitting")).toBe(rowsOf("close").length);

  // More trouble while the second pane works: more lost answers, 503 bursts on the trading calls and the poll list, more 429s.
  await controlOk(sb, "POST", "/faults", {
    drop_after_commit: 2,
    fail_next: { count: 5, code: "service_unavailable", path: "/hedges", method: "GET" },
    rate_limit_next: 4,
  });
  await controlOk(sb, "POST", "/faults", { fail_next: { count: 5, code: "service_unavailable", path: "/hedges", method: "POST" } });

  // ---- the second pane: a fresh desk over the same workbook resumes from the log ----
  const resumed = await resumeInNewPane(deskClient(sb, KEY), workbook, 30_000, intentStore, address);
  expect(resumed).toBe(unfinishedAtReload);

  // ---- what the service has, against what the rows asked for and what the log says ----
  const service = await serviceState(sb, KEY);
  const log = await workbook.readLog();
  expect(log).toHaveLength(PLAN.length);
  expect(log.filter((r) => !isFinal(r.status))).toEqual([]);
  expect(service.hedges).toHaveLength(SIDES.length); // nothing opened that no row asked for
  const mismatches: string[] = [];
  const orderHashes = new Set<string>();
  for (let s = 0; s < SIDES.length; s++) {
    const where = `${SIDES[s].market} ${SIDES[s].side}`;
    const hedges = service.hedges.filter((h) => h.client_reference === `LC-OPEN-${s}`);
    if (hedges.length !== 1) {
      mismatches.push(`${where}: ${hedges.length} hedges on the service`);
      continue;
    }
    const [hedge] = hedges;
    const planned = PLAN.filter((p) => p.side === s);
    const sum = (action: string) => planned.filter((p) => p.action === action).reduce((t, p) => t + (p.amount ?? 0), 0);
    const closed = planned.some((p) => p.action === "close");
    const wantNotional = OPEN[s] + sum("add") - sum("reduce");
    const records = service.history.filter((r) => r.hedge_id === hedge.id);
    const decreases = records
      .filter((r) => r.exit_type === "decrease")
      .map((r) => r.size_usd)
      .sort((a, b) => a - b);
    const wantDecreases = planned
      .filter((p) => p.action === "reduce")
      .map((p) => p.amount!)
      .sort((a, b) => a - b);
    const closes = records.filter((r) => r.exit_type === "close");

    // The service: each add once (the notional), each reduce once (one decrease record of its size), each close once.
    if (hedge.pending_orders.length !== 0) mismatches.push(`${where}: ${hedge.pending_orders.length} orders still pending on the service`);
    if (JSON.stringify(decreases) !== JSON.stringify(wantDecreases))
      mismatches.push(`${where}: decrease records ${JSON.stringify(decreases)}, rows asked for ${JSON.stringify(wantDecreases)}`);
    if (records.some((r) => r.exit_type !== "decrease" && r.exit_type !== "close"))
      mismatches.push(`${where}: unexpected history ${JSON.stringify(records)}`);
    if (closed) {
      if (hedge.status !== "closed") mismatches.push(`${where}: hedge ${hedge.status}, a row closed it`);
      if (closes.length !== 1 || Math.abs(closes[0].size_usd - wantNotional) > 0.01)
        mismatches.push(`${where}: close records ${JSON.stringify(closes.map((r) => r.size_usd))}, want one of ${wantNotional}`);
    } else {
      if (hedge.status !== "filled") mismatches.push(`${where}: hedge ${hedge.status}, want filled`);
      if (Math.abs(hedge.notional_usd - wantNotional) > 0.01)
        mismatches.push(`${where}: notional ${hedge.notional_usd} on the service, rows make ${wantNotional}`);
      if (closes.length !== 0) mismatches.push(`${where}: ${closes.length} close records, no row closed it`);
    }

    // The log: one row per planned row, final as the service has it, on this hedge, with its own order.
    for (const p of planned) {
      const rows: LogRecord[] = log.filter((r) => r.clientReference === p.reference);
      if (rows.length !== 1) {
        mismatches.push(`${p.reference}: ${rows.length} log rows`);
        continue;
      }
      const [row] = rows;
      const want = {
        action: p.action,
        market: SIDES[s].market,
        side: SIDES[s].side,
        notional: p.amount,
        status: p.action === "close" ? "closed" : "filled",
        hedgeId: hedge.id,
      };
      const got = {
        action: row.action,
        market: row.market,
        side: row.side,
        notional: row.notional,
        status: row.status,
        hedgeId: row.hedgeId,
      };
      if (JSON.stringify(want) !== JSON.stringify(got))
        mismatches.push(`${p.reference}: log ${JSON.stringify(got)} vs want ${JSON.stringify(want)}`);
      if (!row.orderTxHash || orderHashes.has(row.orderTxHash))
        mismatches.push(`${p.reference}: order tx ${row.orderTxHash} missing or shared with another row`);
      else orderHashes.add(row.orderTxHash);
    }
  }
  expect(mismatches).toEqual([]);
  // Nothing else happened on the service: one history record per reduce and close row.
  expect(service.history).toHaveLength(rowsOf("reduce").length + rowsOf("close").length);
  expect(new Set(log.map((r) => r.idempotencyKey)).size).toBe(PLAN.length);
  // The faults really fired.
  expect(sandboxLog.filter((l) => l.includes("dropped the answer")).length).toBe(5);
  const faults = await controlOk(sb, "GET", "/faults");
  expect(faults).toMatchObject({ drop_after_commit: 0, rate_limit_next: 0, fail_next: [] });

  const count = (action: string, status: string) => afterKill.filter((r) => r.action === action && r.status === status).length;
  console.log(
    `chaos lifecycle: ${PLAN.length} rows; at the reload adds ${count("add", "submitting")}/${count("add", "submitted")}, reduces ${count("reduce", "submitting")}/${count("reduce", "submitted")}, ` +
      `closes ${count("close", "submitting")}/${count("close", "submitted")} (submitting/submitted); resumed ${resumed}; all final, mismatches 0`,
  );
}, 60_000);
