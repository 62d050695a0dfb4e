// Month end checks a chained Hedge Log against the sandbox over HTTP: a struck rate edited with its seal recomputed, a fork, a cut end on a computer without the journal, and (last: it trades) a forged row for a direct API trade are each flagged at their row; the untouched log gives none; and a hedge's rows (open, add, reduce, close) rewritten with their hashes recomputed are flagged cell by cell, each cell counted in its class.
import { HedgingClient } from "../../src/api/client";
import { MemoryWorkbook, columnLetters } from "../../src/excel/memory-workbook";
import { MemorySheetWriter } from "../../src/excel/recon-sheet";
import { monthLabel, monthOf } from "../../src/monthend/month";
import { reconcileMonth } from "../../src/monthend/run-month-end";
import { startSandbox, type RunningSandbox } from "../../src/sandbox/server";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import { chainHeadOf } from "../../src/trading/chain-head";
import { finalHashOf, rowHashOf } from "../../src/trading/log/log-chain";
import { LOG_HEADERS, LOG_SHEET_NAME, LOG_TABLE_NAME, type LogRecord } from "../../src/trading/log/hedge-log";
import type { Action } from "../../src/trading/types";
import { logCells } from "../support/builders";
import { until } from "../sandbox/helpers";
import { sandboxWorld } from "../support/sandbox-world";

let sandbox: RunningSandbox;
let client: HedgingClient;
/** The log the desk wrote: an open sell and its reduction (rows 2 and 3), and this computer's head. */
let written: LogRecord[];
let head: string | null;
let month: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, http: true, fillMs: 20, seed: 5 });
  client = new HedgingClient({ apiKey: DEMO_API_KEY, baseUrl: sandbox.baseUrl });
  const { workbook, store: journal, desk: deskOf } = sandboxWorld(sandbox, DEMO_API_KEY, { pollIntervalMs: 50 });
  const desk = await deskOf();
  const trade = async (action: Action, header: string[], rows: unknown[][]) => {
    workbook.setSheet(`Deals ${action}`, [header, ...(rows as never[][])]);
    workbook.select(`Deals ${action}`, `A2:${String.fromCharCode(64 + header.length)}${rows.length + 1}`);
    const read = await desk.readRows(action);
    const sent = await desk.send(await desk.preview(action, read.rows), { sendAgain: true });
    expect(sent.skipped).toEqual([]);
    await desk.settled();
  };
  try {
    await trade("open", ["Market", "Side", "Notional", "Tenor", "Client reference"], [["USDTNGN", "sell", 60_000, 7, "SVC-SELL-1"]]);
    await trade("reduce", ["Market", "Side", "Amount"], [["USDTNGN", "sell", 20_000]]);
  } finally {
    desk.stop();
  }
  written = await workbook.readLog();
  expect(written.map((r) => [r.action, r.side, r.status])).toEqual([
    ["open", "sell", "filled"],
    ["reduce", "sell", "filled"],
  ]);
  head = await chainHeadOf(journal, (await workbook.identity()).id);
  month = monthLabel(monthOf(Date.now()));
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
});

/** A workbook whose Hedge Log holds these rows as cells (sheet row 2 on), as another copy of the file would. */
function workbookWith(records: readonly LogRecord[]): MemoryWorkbook {
  const wb = new MemoryWorkbook().setSheet(LOG_SHEET_NAME, [[...LOG_HEADERS], ...records.map(logCells)]);
  return wb.addTable(LOG_TABLE_NAME, LOG_SHEET_NAME, `A1:${columnLetters(LOG_HEADERS.length - 1)}${records.length + 1}`);
}

/** Reconcile month over HTTP; the chain's and the service check's findings as [kind, sheet row, column]. */
async function monthEnd(records: readonly LogRecord[], chainHead: string | null) {
  const wb = workbookWith(records);
  const writer = new MemorySheetWriter(wb);
  const { reconciliation: recon, sheet } = await reconcileMonth(
    { client, readLog: () => wb.readLog(), readLogRows: () => wb.readLogRows(), chainHead: async () => chainHead, writer },
    month,
  );
  return {
    recon,
    grid: wb.cells(sheet.name),
    chain: recon.chain!.lines.map((l) => [l.kind, l.rowNumber]),
    service: recon.service!.lines.map((l) => [l.kind, l.rowNumber, l.field]),
  };
}

/** The row appended after `prev` with its link and seal recomputed, as someone with the add-in's code would write it. */
function linked(record: LogRecord, prev: string): LogRecord {
  const row = { ...record, prevHash: prev };
  row.rowHash = rowHashOf(prev, row);
  row.finalHash = finalHashOf(row.rowHash, row);
  return row;
}

test("the untouched log: no chain finding, every row compared with its hedge, no difference with the service", async () => {
  const { chain, service, recon, grid } = await monthEnd(written, head);
  expect(chain).toEqual([]);
  expect(service).toEqual([]);
  expect(recon.service!.compared).toBe(2);
  expect(recon.service!.complete).toBe(true);
  // On the sheet: the table's header, then the sentence that nothing differs.
  const at = grid.findIndex((r) => r[0] === "Hedge Log against the service");
  expect(grid[at].slice(0, 7)).toEqual([
    "Hedge Log against the service",
    "Sheet",
    "Row",
    "Column",
    "Log says",
    "Service says",
    "What it means",
  ]);
  // Worded by class: the Open's 15 cells and the Reduce's 11 checked (its amount against its reduction record), the rest of
  // the two rows' 28 cells sealed.
  expect(recon.service!.cells).toEqual({ checked: 26, sealed: 30, workbookOnly: 0 });
  expect(grid[at + 1][0]).toBe(
    "No difference in the 26 cells checked against the service (2 row(s) compared with the hedges the service shows); no action of the service after the newest row. Not checked against the service: 30 sealed cells (held only by the hash chain) and 0 cells in the workbook only.",
  );
  expect(grid.find((r) => r[0] === "Log cells checked against the service")?.[1]).toBe(26);
  expect(grid.find((r) => r[0] === "Log cells sealed (held only by the hash chain)")?.[1]).toBe(30);
  expect(grid.find((r) => r[0] === "Log cells in the workbook only")?.[1]).toBe(0);
}, 30_000);

test("a final row's struck rate edited, its seal recomputed: the chain verifies, the service flags the Struck rate at its row", async () => {
  const rows = written.map((r) => ({ ...r }));
  const sell = rows[0];
  sell.struckRate = (sell.struckRate as number) + 0.5;
  sell.finalHash = finalHashOf(sell.rowHash!, sell);
  const { chain, service, recon, grid } = await monthEnd(rows, head);
  expect(chain).toEqual([]);
  expect(service).toEqual([["differs", 2, "Struck rate"]]);
  const line = recon.service!.lines[0];
  expect(line.logSays).toBe(String(sell.struckRate));
  expect(line.serviceSays).toBe(String(written[0].struckRate));
  expect(line.message).toMatch(/^Row 2: Struck rate: the log says /);
  // The sheet lists it at its sheet and row, and its header counts it.
  expect(grid.find((r) => r[0] === "Differs from the service")?.slice(1, 4)).toEqual([LOG_SHEET_NAME, 2, "Struck rate"]);
  expect(grid.find((r) => r[0] === "Hedge Log against the service findings")?.[1]).toBe(1);
}, 30_000);

test("a fork (a row linked to a row that already has its follower) is a chain finding at its row", async () => {
  const fork = linked(
    { ...written[1], idempotencyKey: "fork-key-1", loggedAt: new Date(Date.now() - 300_000).toISOString() },
    written[0].rowHash!,
  );
  const { chain, recon } = await monthEnd([...written, fork], head);
  expect(chain).toEqual([["forked", 4]]);
  expect(recon.chain!.lines[0].message).toMatch(/^Row 4: the chain forks: it follows row 2, as row 3 does\./);
}, 30_000);

test("the last row cut off, on a computer without the journal: the service's later reduction names the cut at the log's last row", async () => {
  const cut = written.slice(0, 1);
  const { chain, service, recon } = await monthEnd(cut, null);
  expect(chain).toEqual([]); // no head here: the chain alone cannot see it
  // The open's notional is still what the hedge took (its notional now and its reduction); the reduction is after the newest row.
  expect(service).toEqual([["cut_off", 2, null]]);
  expect(recon.service!.lines[0].message).toMatch(
    /^Row 2: the service shows a decrease of USDTNGN sell 20,000\.00 \(hedge hdg_\w+\) at .*, after the newest row of the log \(row 2, logged .*\), and no row sent it: rows were cut off the end/,
  );
  expect(recon.counts.serviceFindings).toBe(1);
}, 30_000);

test("a trade made straight through the API and a forged row appended with a valid link: flagged at the forged row (logged after the service opened it)", async () => {
  const opened = await client.open(
    { market: "USDTNGN", side: "buy", notional_usd: 5_000, tenor_days: 1, client_reference: "API-1" },
    { idempotencyKey: "api-direct-1" },
  );
  const id = opened.data.hedge_id!;
  const hedge = await until(
    async () => {
      const h = (await client.get(id)).data;
      return h.status === "filled" ? h : undefined;
    },
    Infinity,
    "the direct trade to fill",
  );
  try {
    // Everything the service shows of the hedge copied into a row the add-in would write, ten minutes after the trade.
    const later = new Date(Date.parse(hedge.opened_at!) + 600_000).toISOString();
    const forged = linked(
      {
        ...written[0],
        side: "buy",
        loggedAt: later,
        idempotencyKey: "forged-key-1",
        clientReference: "API-1",
        notional: 5_000,
        tenor: 1,
        hedgeId: id,
        orderTxHash: hedge.order_tx_hash ?? null,
        fillTxHash: hedge.fill_tx_hash ?? null,
        struckRate: hedge.struck_rate ?? null,
        filledAt: hedge.filled_at ?? null,
        sentAt: later,
      },
      written[1].rowHash!,
    );
    const { chain, service, recon } = await monthEnd([...written, forged], forged.rowHash!);
    expect(chain).toEqual([]); // a valid link: the chain alone cannot tell
    expect(service).toEqual([
      ["logged_after", 4, "Logged at (UTC)"],
      ["logged_after", 4, "Sent at (UTC)"],
    ]);
    expect(recon.service!.lines[0].message).toMatch(/^Row 4: Logged at \(UTC\) .* is after the service opened hedge hdg_/);
  } finally {
    await client.close({ market: "USDTNGN", side: "buy" }).catch(() => undefined);
  }
}, 30_000);

describe("a hedge's rows rewritten with their hashes recomputed, over HTTP, on a computer without the journal", () => {
  let own: RunningSandbox;
  let ownClient: HedgingClient;
  /** The desk's log: a buy opened (30,000), added to (20,000), reduced (10,000), closed; sheet rows 2–5. */
  let rows: LogRecord[];

  beforeAll(async () => {
    own = await startSandbox({ port: 0, http: true, fillMs: 20, seed: 11 });
    ownClient = new HedgingClient({ apiKey: DEMO_API_KEY, baseUrl: own.baseUrl });
    const { workbook, desk: deskOf } = sandboxWorld(own, DEMO_API_KEY, { pollIntervalMs: 50 });
    const desk = await deskOf();
    const trade = async (action: Action, header: string[], cells: unknown[]) => {
      workbook.setSheet(`Deals ${action}`, [header, cells as never[]]);
      workbook.select(`Deals ${action}`, `A2:${String.fromCharCode(64 + header.length)}2`);
      const read = await desk.readRows(action);
      const sent = await desk.send(await desk.preview(action, read.rows), { sendAgain: true });
      expect(sent.skipped).toEqual([]);
      await desk.settled();
    };
    try {
      await trade("open", ["Market", "Side", "Notional", "Tenor", "Client reference"], ["USDTNGN", "buy", 30_000, 7, "SVC-BUY-1"]);
      await trade("add", ["Market", "Side", "Amount"], ["USDTNGN", "buy", 20_000]);
      await trade("reduce", ["Market", "Side", "Amount"], ["USDTNGN", "buy", 10_000]);
      await trade("close", ["Market", "Side", "Client reference"], ["USDTNGN", "buy", "SVC-BUY-CLOSE"]);
    } finally {
      desk.stop();
    }
    rows = await workbook.readLog();
    expect(rows.map((r) => [r.action, r.status])).toEqual([
      ["open", "filled"],
      ["add", "filled"],
      ["reduce", "filled"],
      ["close", "closed"],
    ]);
  }, 60_000);
  afterAll(async () => {
    await own?.close();
  });

  /** Month end (no head) over the rows with `edit` applied and every link and seal recomputed from the first row on. */
  async function rehashed(edit: (rows: LogRecord[]) => void = () => undefined) {
    const edited = rows.map((r) => ({ ...r }));
    edit(edited);
    let prev = edited[0].prevHash!;
    const relinked = edited.map((r) => {
      const row = linked(r, prev);
      prev = row.rowHash!;
      return row;
    });
    const wb = workbookWith(relinked);
    const { reconciliation: recon } = await reconcileMonth(
      {
        client: ownClient,
        readLog: () => wb.readLog(),
        readLogRows: () => wb.readLogRows(),
        chainHead: async () => null,
        writer: new MemorySheetWriter(wb),
      },
      month,
    );
    expect(recon.chain!.lines).toEqual([]);
    return recon.service!;
  }
  const found = async (edit: (rows: LogRecord[]) => void) => (await rehashed(edit)).lines.map((l) => [l.rowNumber, l.field, l.kind]);
  const earlier = (t: string | null | undefined) => new Date(Date.parse(t!) - 3 * 86_400_000).toISOString();

  test("untouched: no finding with the sandbox's own blend and records; the classes counted", async () => {
    const service = await rehashed();
    expect(service.lines).toEqual([]);
    // The Open 15 checked, the Add 11 (the only Add), the Reduce 11 (its record), the Close 10; the rest of 4 × 28 sealed.
    expect(service.cells).toEqual({ checked: 47, sealed: 4 * 28 - 47, workbookOnly: 0 });
  }, 30_000);

  test("each service-known cell edit is flagged at its row", async () => {
    expect(await found((r) => (r[0].notional = 300_000))).toEqual([
      [2, "Notional (USD)", "differs"],
      [3, "Notional (USD)", "differs"],
    ]);
    expect(await found((r) => (r[0].struckRate = (r[0].struckRate as number) * 0.9))).toEqual([[2, "Struck rate", "differs"]]);
    expect(
      await found((r) => {
        r[1].notional = 25_000;
        r[2].notional = 15_000;
      }),
    ).toEqual([
      [2, "Notional (USD)", "differs"],
      [3, "Notional (USD)", "differs"],
      [4, "Notional (USD)", "differs"],
    ]);
    expect(
      await found((r) => {
        r[0].loggedAt = earlier(r[0].loggedAt);
        r[0].sentAt = earlier(r[0].sentAt);
      }),
    ).toEqual([
      [2, "Logged at (UTC)", "logged_long_before"],
      [2, "Sent at (UTC)", "logged_long_before"],
    ]);
    expect(await found((r) => (r[0].clientReference = "SVC-OTHER"))).toEqual([[2, "Client reference", "differs"]]);
    // The Close names the deal of another hedge: one the service shows (a hedge opened straight through the API).
    const other = await ownClient.open(
      { market: "USDTNGN", side: "sell", notional_usd: 1_000, tenor_days: 1, client_reference: "API-SELL-1" },
      { idempotencyKey: "cells-api-1" },
    );
    expect(other.data.hedge_id).toBeTruthy();
    // (That trade, after the log's newest row, is also named at the last row: the service cannot tell it from a cut end.)
    expect(await found((r) => (r[3].clientReference = "API-SELL-1"))).toEqual([
      [5, "Client reference", "differs"],
      [5, null, "cut_off"],
    ]);
  }, 60_000);

  test("what the service cannot answer stays sealed: a Reduce's order transaction, a Close's own reference", async () => {
    const untouched = (await rehashed()).cells;
    const edited = await rehashed((r) => {
      r[2].orderTxHash = "0xforged";
      r[3].clientReference = "SVC-BUY-CLOSE-2";
    });
    expect(edited.lines.filter((l) => l.kind !== "cut_off")).toEqual([]); // the API trade above is after the newest row
    expect(edited.cells).toEqual(untouched);
  }, 30_000);
});
