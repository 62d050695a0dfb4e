// End to end against the sandbox over HTTP: trade through the desk across a simulated month (sandbox clock), reconcile it, and find the realized totals equal to the sandbox's own history to the cent.
import { HedgingClient } from "../../src/api/client";
import type { ClosedHedge } from "../../src/api/schemas";
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { MemorySheetWriter } from "../../src/excel/recon-sheet";
import { addMonths, monthLabel, monthOf, monthWindow } from "../../src/monthend/month";
import { reconcileMonth } from "../../src/monthend/run-month-end";
import { startSandbox, type RunningSandbox } from "../../src/sandbox/server";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import { chainHeadOf } from "../../src/trading/chain-head";
import type { Action } from "../../src/trading/types";
import type { TradingDesk } from "../../src/trading/desk/contract";
import { FeedHub, type ClientSource } from "../../src/feeds/hub";
import { CellStreams } from "../../src/functions/stream";
import { HISTORY_FIELDS, history as historyFunction } from "../../src/functions/history";
import { excelSerial } from "../../src/functions/cells";
import { control, until } from "../sandbox/helpers";
import { sandboxWorld } from "../support/sandbox-world";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let sandbox: RunningSandbox;
let client: HedgingClient;
/** The month the first test traded in, for the second. */
let tradedMonth: string | null = null;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, http: true, fillMs: 20, seed: 7 });
  client = new HedgingClient({ apiKey: DEMO_API_KEY, baseUrl: sandbox.baseUrl });
});
afterAll(async () => {
  await sandbox?.close();
});

/** A sandbox's clock (moved on by `advanceMs` when given): its control call's data, or a failure naming the status. */
async function clock(sb: RunningSandbox, advanceMs?: number): Promise<{ now_ms: number }> {
  const res = await control(
    sb,
    advanceMs === undefined ? "GET" : "POST",
    "/clock",
    advanceMs === undefined ? undefined : { advance_ms: advanceMs },
  );
  if (res.status !== 200) throw new Error(`/clock: ${res.status} ${res.text}`);
  return res.json.data as { now_ms: number };
}
const sandboxNow = async () => Number((await clock(sandbox)).now_ms);
/** Moves the sandbox clock to `ms` (never backwards). */
async function moveTo(ms: number): Promise<void> {
  const now = await sandboxNow();
  if (ms > now) await clock(sandbox, ms - now);
}

/** Puts rows on a sheet, selects them, and runs the action through the desk until every row is final. */
async function trade(desk: TradingDesk, workbook: MemoryWorkbook, action: Action, header: string[], rows: unknown[][]): Promise<void> {
  const sheet = `Deals ${action}`;
  workbook.setSheet(sheet, [header, ...(rows as never[][])]);
  workbook.select(sheet, `A2:${String.fromCharCode(64 + header.length)}${rows.length + 1}`);
  const read = await desk.readRows(action);
  expect(read.problems).toEqual([]);
  const preview = await desk.preview(action, read.rows);
  expect(preview.blockers).toEqual([]);
  const sent = await desk.send(preview, { sendAgain: true });
  expect(sent.skipped).toEqual([]);
  await desk.settled();
  const log = await workbook.readLog();
  expect(log.filter((r) => ["submitting", "submitted", "rejected", "failed"].includes(r.status))).toEqual([]);
}

const cents = (n: number) => Math.round(n * 100);

test("a month of opens, adds, reductions and closes reconciles, and the realized totals equal the sandbox's history to the cent", async () => {
  // The sandbox's current month when two days fit in what is left of it, else the next one; every action of the test
  // falls in it. (The sandbox computes its price path second by second, so the clock is moved no further than needed.)
  const now = await sandboxNow();
  const current = monthWindow(monthLabel(monthOf(now)));
  const month = now + 3 * DAY < current.endMs ? current.label : monthLabel(addMonths(monthOf(now), 1));
  const period = monthWindow(month);
  const start = Math.max(now + 60_000, period.startMs + 60_000);
  const at = (hours: number) => start + hours * HOUR;

  const { workbook, store: journal, desk: deskOf } = sandboxWorld(sandbox, DEMO_API_KEY, { pollIntervalMs: 50 });
  const desk = await deskOf();
  const ORDER = ["Market", "Side", "Notional", "Tenor", "Client reference"];
  const AMOUNT = ["Market", "Side", "Amount"];
  try {
    await moveTo(at(0));
    await trade(desk, workbook, "open", ORDER, [
      ["USDTNGN", "buy", 100_000, 7, "E2E-BUY-1"],
      ["USDTNGN", "sell", 60_000, 7, "E2E-SELL-1"],
    ]);
    await moveTo(at(1));
    await trade(desk, workbook, "add", AMOUNT, [["USDTNGN", "buy", 25_000]]);
    await moveTo(at(2));
    await trade(desk, workbook, "reduce", AMOUNT, [
      ["USDTNGN", "sell", 20_000],
      ["USDTNGN", "buy", 12_345.67],
    ]);
    await moveTo(at(3));
    await trade(desk, workbook, "close", ["Market", "Side"], [["USDTNGN", "buy"]]);
    // A one-day hedge left to mature: the service closes it, the log never does (a difference to flag).
    await moveTo(at(4));
    await trade(desk, workbook, "open", ORDER, [["USDTNGN", "buy", 30_000, 1, "E2E-BUY-2"]]);
    await moveTo(at(29));
    // A hedge traded outside this workbook: in the service, not in the log.
    const outside = await client.open({
      market: "USDTNGN",
      side: "buy",
      notional_usd: 10_000,
      tenor_days: 3,
      client_reference: "OUTSIDE-1",
    });
    // Polled until it is so, bounded by the test's timeout alone (a busy machine is slow, not wrong).
    await until(async () => (await client.get(outside.data.hedge_id!)).data.status === "filled", Infinity, "the outside hedge to fill");
    await moveTo(at(30));
    await client.close({ market: "USDTNGN", side: "buy" });
    await until(async () => (await client.get(outside.data.hedge_id!)).data.status === "closed", Infinity, "the outside hedge to close");
    await moveTo(at(31));
  } finally {
    desk.stop();
  }
  tradedMonth = month;
  const generatedAt = await sandboxNow();
  expect(generatedAt).toBeLessThan(period.endMs);

  const writer = new MemorySheetWriter(workbook);
  const { reconciliation: recon, sheet } = await reconcileMonth(
    {
      client,
      readLog: () => workbook.readLog(),
      readLogRows: () => workbook.readLogRows(),
      chainHead: async () => chainHeadOf(journal, (await workbook.identity()).id),
      writer,
      now: () => generatedAt,
    },
    month,
  );
  // The log the desk wrote (sends, fills, closes, a maturity left unlogged) checks clean up to this computer's head.
  expect(recon.chain).toEqual({
    rows: (await workbook.readLog()).length,
    chained: (await workbook.readLog()).length,
    headKnown: true,
    lines: [],
  });

  // The sandbox's own history of the month, read raw over HTTP, summed in whole cents.
  const res = await fetch(
    `${sandbox.baseUrl}/hedges/history?from=${new Date(period.startMs).toISOString()}&to=${new Date(period.endMs).toISOString()}&limit=500`,
    {
      headers: { authorization: `Bearer ${DEMO_API_KEY}` },
    },
  );
  const own = ((await res.json()) as { data: ClosedHedge[] }).data;
  expect(own.length).toBe(5); // reduce sell, reduce buy, close buy, the maturity, the outside close (opens and adds realize nothing)
  const sum = (side: string | null, field: keyof ClosedHedge) =>
    own.filter((r) => side === null || r.side === side).reduce((s, r) => s + cents(r[field] as number), 0);

  expect(recon.realized).toHaveLength(own.length);
  for (const t of recon.realizedTotals) {
    const side = t.label === "all" ? null : t.label;
    expect(t.count).toBe(own.filter((r) => side === null || r.side === side).length);
    expect(cents(t.netPnlUsd)).toBe(sum(side, "net_pnl_usd"));
    expect(cents(t.grossPnlUsd)).toBe(sum(side, "gross_pnl_usd"));
    expect(cents(t.carryUsd)).toBe(sum(side, "carry_usd"));
    expect(cents(t.feesUsd)).toBe(sum(side, "fees_usd"));
    expect(cents(t.sizeUsd)).toBe(sum(side, "size_usd"));
  }
  expect(recon.realized.map((l) => l.record.exit_type).sort()).toEqual(["close", "close", "decrease", "decrease", "maturity"]);

  // Open at the end: the sell hedge, 60,000 − 20,000.
  expect(recon.open.map((l) => [l.position.side, l.position.size_usd, l.clientReference])).toEqual([["sell", 40_000, "E2E-SELL-1"]]);

  // Exactly the one real difference: the outside hedge. The hedge left to mature settled at maturity, which no log row
  // records and which is no difference (issue 39; it was "Status disagrees" before).
  expect(recon.differences.map((d) => [d.kind, d.clientReference])).toEqual([["service_not_in_log", "OUTSIDE-1"]]);
  expect(recon.realized.find((l) => l.clientReference === "E2E-BUY-2")?.record.exit_type).toBe("maturity");

  // The sheet holds the same totals, as plain values.
  const grid = workbook.cells(sheet.name);
  expect(sheet.name).toBe(`Hedge Recon ${month}`);
  const header = grid.findIndex((r) => r[0] === "Closed at (UTC)");
  const net = grid[header].indexOf("Net P&L (USD)");
  const totalRow = grid.find((r) => r[0] === `Total (${own.length})`)!;
  expect(cents(totalRow[net] as number)).toBe(sum(null, "net_pnl_usd"));
  for (const row of grid) for (const v of row) expect(String(v).startsWith("=")).toBe(false);

  // The same month against a service whose records are as the spec shows them (no hedge_id, no client_reference):
  // every record is tied to its hedge by market, side and opening time, and the same difference comes out.
  const specClient = Object.assign(Object.create(client) as HedgingClient, {
    history: async (...args: Parameters<HedgingClient["history"]>) => {
      const page = await client.history(...args);
      return { ...page, data: page.data.map(({ hedge_id: _id, client_reference: _ref, ...spec }) => spec) };
    },
  });
  const { reconciliation: bare } = await reconcileMonth(
    { client: specClient, readLog: () => workbook.readLog(), writer, now: () => generatedAt },
    month,
  );
  expect(bare.realized.every((l) => l.record.hedge_id === undefined && l.record.client_reference === undefined)).toBe(true);
  expect(bare.realized.map((l) => [l.hedgeId, l.clientReference])).toEqual(recon.realized.map((l) => [l.hedgeId, l.clientReference]));
  expect(bare.differences.map((d) => [d.kind, d.clientReference, d.serviceSays])).toEqual(
    recon.differences.map((d) => [d.kind, d.clientReference, d.serviceSays]),
  );
}, 90_000);

test("HEDGE.HISTORY over the sandbox spills the same records as its history, newest first", async () => {
  expect(tradedMonth).not.toBeNull();
  const period = monthWindow(tradedMonth!);
  const source: ClientSource = { client, onChange: () => () => undefined };
  const hub = new FeedHub({ source });
  const results: unknown[] = [];
  try {
    // Waits for the cell's first value itself, however long a busy machine takes (the test's own timeout is the bound).
    await new Promise<void>((firstValue) =>
      historyFunction(
        new CellStreams(hub, (e) => e),
        {
          setResult: (v) => {
            results.push(v);
            firstValue();
          },
        },
        new Date(period.startMs).toISOString().slice(0, 10),
        null,
      ),
    );
  } finally {
    hub.dispose();
  }
  const spill = results[results.length - 1] as unknown[][];
  // Read through the client, which waits out the sandbox's rate limit (on a loaded machine the feed's own reads can reach it).
  const own: ClosedHedge[] = (await client.history({ from: new Date(period.startMs).toISOString(), limit: 500 })).data;
  expect(spill[0]).toEqual([...HISTORY_FIELDS]);
  expect(spill.slice(1)).toEqual(
    own.map((r) => HISTORY_FIELDS.map((f) => (f.endsWith("_at") ? excelSerial(r[f] as string) : (r[f] ?? "")))),
  );
  const closedAt = spill.slice(1).map((r) => r[HISTORY_FIELDS.indexOf("closed_at")] as number);
  expect([...closedAt].sort((a, b) => b - a)).toEqual(closedAt);
}, 90_000);

test("a reduce that leaves less than the close tolerance closes the hedge; the month reconciles with no difference", async () => {
  // A sandbox of its own, so the month holds only this hedge.
  const own = await startSandbox({ port: 0, http: true, fillMs: 20, seed: 11 });
  const ownClient = new HedgingClient({ apiKey: DEMO_API_KEY, baseUrl: own.baseUrl });
  const { workbook, desk: deskOf } = sandboxWorld(own, DEMO_API_KEY, { intentStore: null, pollIntervalMs: 50 });
  const desk = await deskOf();
  try {
    const now = (await clock(own)).now_ms;
    const current = monthWindow(monthLabel(monthOf(now)));
    if (now + DAY > current.endMs) await clock(own, current.endMs - now + HOUR);
    const month = monthLabel(monthOf((await clock(own)).now_ms));
    const run = async (action: Action, header: string[], row: unknown[]) => {
      workbook.setSheet(`Deals ${action}`, [header, row as never[]]);
      workbook.select(`Deals ${action}`, `A2:${String.fromCharCode(64 + header.length)}2`);
      const read = await desk.readRows(action);
      const sent = await desk.send(await desk.preview(action, read.rows), { sendAgain: true });
      expect(sent.skipped).toEqual([]);
      await desk.settled();
    };
    await run("open", ["Market", "Side", "Notional", "Tenor", "Client reference"], ["USDTNGN", "buy", 100_000, 7, "WHOLE-1"]);
    await run("reduce", ["Market", "Side", "Amount"], ["USDTNGN", "buy", 99_950]);
    const log = await workbook.readLog();
    expect(log.map((r) => [r.action, r.status])).toEqual([
      ["open", "filled"],
      ["reduce", "closed"],
    ]);
    const generatedAt = (await clock(own)).now_ms;
    const { reconciliation: recon } = await reconcileMonth(
      { client: ownClient, readLog: () => workbook.readLog(), writer: new MemorySheetWriter(workbook), now: () => generatedAt },
      month,
    );
    expect(recon.realized.map((l) => [l.record.exit_type, l.record.size_usd, l.clientReference])).toEqual([
      ["decrease", 100_000, "WHOLE-1"],
    ]);
    expect(recon.open).toEqual([]);
    expect(recon.differences).toEqual([]);
  } finally {
    desk.stop();
    await own.close();
  }
}, 60_000);
