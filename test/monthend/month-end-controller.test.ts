// The month-end panel's controller: month choice, the reconcile run's progress and result, errors with what to do, and Snapshot to values only after confirmation.
import { HedgingApiError } from "../../src/api/errors";
import { MemorySheetWriter } from "../../src/excel/recon-sheet";
import type { SnapshotResult, Snapshotter } from "../../src/monthend/snapshot-plan";
import type { MonthEndClient } from "../../src/monthend/month-data";
import { MonthEndController, errorMessage, snapshotMessage, type MonthEndView } from "../../src/monthend/month-end-controller";
import { CHAIN_START, rowHashOf } from "../../src/trading/log/log-chain";
import type { PlacedLogRow } from "../../src/trading/workbook";
import { closed, hedge, logRow, position } from "../support/builders";

const NOW = Date.UTC(2026, 11, 2, 9); // 2 December: November is the default

function fakeClient(fail?: HedgingApiError): MonthEndClient {
  const answer = <T>(data: T) => (fail ? Promise.reject(fail) : Promise.resolve({ data, meta: {} }));
  return {
    environment: "sandbox",
    account: () =>
      answer({
        account_address: "0xA",
        balance_usdc: 1,
        margin_used_usdc: 0,
        exposure_usd: 0,
        unrealized_pnl_usd: 0,
        open_positions: 1,
        max_exposure_usd: 1,
        available_exposure_usd: 1,
      }),
    positions: () => answer([position()]),
    list: () => answer([hedge(), hedge({ id: "x", client_reference: "X", status: "closed" })]),
    get: () => Promise.reject(new HedgingApiError({ code: "hedge_not_found", status: 404, message: "No hedge." })),
    history: () => answer([closed({ net_pnl_usd: 1234.5 }), closed({ hedge_id: "x", client_reference: "X", net_pnl_usd: 0.1 })]),
  } as unknown as MonthEndClient;
}

function controller(over: Partial<ConstructorParameters<typeof MonthEndController>[0]> = {}) {
  const writer = new MemorySheetWriter();
  const c = new MonthEndController({
    client: () => fakeClient(),
    readLog: async () => [logRow(), logRow({ action: "close", notional: null, status: "closed", loggedAt: "2026-11-05T09:00:00Z" })],
    writer,
    snapshotter: null,
    now: () => NOW,
    ...over,
  });
  const views: MonthEndView[] = [];
  c.subscribe((v) => views.push(v));
  return { c, writer, views };
}

test("offers the last 13 months and picks the month just closed; ignores a month it does not offer", () => {
  const { c } = controller();
  expect(c.view.month).toBe("2026-11");
  expect(c.view.months[0]).toBe("2026-12");
  c.selectMonth("2026-10");
  expect(c.view.month).toBe("2026-10");
  c.selectMonth("1999-01");
  expect(c.view.month).toBe("2026-10");
});

test("reconcile shows progress, writes the sheet, and sums up the result with the differences", async () => {
  const { c, writer, views } = controller();
  await c.reconcile();
  expect(views.some((v) => v.busy === "reconcile" && v.progress === "Reading the hedge history…")).toBe(true);
  expect(c.view.busy).toBeNull();
  expect(c.view.message?.kind).toBe("warning");
  expect(c.view.message?.text).toBe(
    "Wrote “Hedge Recon 2026-11”: 2 hedges closed (net P&L 1,234.60 USD), 1 open position, 1 difference with the Hedge Log.",
  );
  expect([...writer.sheets.keys()]).toEqual(["Hedge Recon 2026-11"]);
});

test("a history the service would not page through is reported first, as a warning", async () => {
  // A service that ignores from/to: 500 records closed in November, the same ones on every page.
  const full = Array.from({ length: 500 }, (_, i) =>
    closed({ hedge_id: `f${i}`, client_reference: `F${i}`, closed_at: new Date(Date.UTC(2026, 10, 20) + i * 60_000).toISOString() }),
  );
  const client = { ...fakeClient(), history: () => Promise.resolve({ data: full, meta: {} }) } as MonthEndClient;
  const { c, writer } = controller({ client: () => client });
  await c.reconcile();
  expect(c.view.message?.kind).toBe("warning");
  expect(c.view.message?.text).toMatch(
    /^History incomplete: only the newest 500 records of the month could be read, so the sheet may miss hedges closed earlier in it\. Wrote “Hedge Recon 2026-11”/,
  );
  expect(c.view.message?.details[0]).toMatch(/may ignore the from\/to filters/);
  const grid = writer.sheets.get("Hedge Recon 2026-11")!.values;
  expect(grid[1][0]).toBe("WARNING: history incomplete");
});

test("says to connect first when there is no key, and sends nothing", async () => {
  const { c, writer } = controller({ client: () => null });
  await c.reconcile();
  expect(c.view.message).toMatchObject({ kind: "error", text: expect.stringMatching(/^Not connected/) });
  expect(writer.sheets.size).toBe(0);
});

test("a service error shows its code, message and what to do; no sheet is written", async () => {
  const error = new HedgingApiError({ code: "invalid_api_key", status: 401, message: "Key not found or revoked." });
  const { c, writer } = controller({ client: () => fakeClient(error) });
  await c.reconcile();
  expect(c.view.message?.kind).toBe("error");
  expect(c.view.message?.text).toBe("invalid_api_key: Key not found or revoked.");
  expect(c.view.message?.details[0]).toMatch(/^What to do: /);
  expect(writer.sheets.size).toBe(0);
});

test("Snapshot to values runs only after confirmation, and reports what was left as formulas", async () => {
  const calls: string[] = [];
  const result: SnapshotResult = {
    sheetName: "Desk",
    address: "Desk!A1:E6",
    replaced: [{ address: "Desk!B1", formula: '=HEDGE.PRICE("USDTNGN")', rows: 1, columns: 1 }],
    skipped: [
      {
        address: "Desk!E1",
        formula: "=HEDGE.QUOTE(1)",
        reason: "it shows #BUSY! (still calculating or an error): wait for a value, then snapshot again",
      },
    ],
    cells: 1,
    marker: "note",
  };
  const snapshotter: Snapshotter = { snapshot: async (scope, at) => (calls.push(`${scope} ${at?.toISOString()}`), result) };
  const { c } = controller({ snapshotter });
  await c.snapshot(); // nothing confirmed yet
  expect(calls).toEqual([]);
  c.askSnapshot("sheet");
  expect(c.view.confirming).toBe("sheet");
  c.cancelSnapshot();
  await c.snapshot();
  expect(calls).toEqual([]);
  c.askSnapshot("selection");
  await c.snapshot();
  expect(calls).toEqual([`selection ${new Date(NOW).toISOString()}`]);
  expect(c.view.message?.kind).toBe("warning");
  expect(c.view.message?.text).toBe("Replaced 1 HEDGE formula (1 cell) on Desk by their values; each has a note saying when.");
  expect(c.view.message?.details).toEqual([
    "Desk!E1 =HEDGE.QUOTE(1) left as a formula: it shows #BUSY! (still calculating or an error): wait for a value, then snapshot again.",
  ]);
});

test("without the log's rows in their places the chain is not checked, and the sheet says so", async () => {
  const { c, writer } = controller();
  await c.reconcile();
  const grid = writer.sheets.get("Hedge Recon 2026-11")!.values;
  const header = grid.findIndex((r) => r[0] === "Hedge Log chain");
  expect(grid[header + 1][0]).toBe("The Hedge Log's hash chain was not checked.");
  expect(grid.some((r) => r[0] === "Hedge Log chain findings")).toBe(false);
});

describe("what the panel says", () => {
  const snap = (over: Partial<SnapshotResult>): SnapshotResult => ({
    sheetName: "Desk",
    address: "Desk!A1:E6",
    replaced: [],
    skipped: [],
    cells: 0,
    marker: "note",
    ...over,
  });
  const replaced = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ address: `Desk!B${i + 1}`, formula: '=HEDGE.PRICE("USDTNGN")', rows: 1, columns: 1 }));

  it("after Snapshot to values: how many formulas and cells, the marker Excel could leave, nothing found, nothing replaced", () => {
    expect(snapshotMessage(snap({ replaced: replaced(2), cells: 5 }))).toEqual({
      kind: "success",
      text: "Replaced 2 HEDGE formulas (5 cells) on Desk by their values; each has a note saying when.",
      details: [],
    });
    expect(snapshotMessage(snap({ replaced: replaced(1), cells: 1, marker: "comment" })).text).toBe(
      "Replaced 1 HEDGE formula (1 cell) on Desk by their values; each has a comment saying when.",
    );
    expect(snapshotMessage(snap({ replaced: replaced(1), cells: 3, marker: "none" })).text).toBe(
      "Replaced 1 HEDGE formula (3 cells) on Desk by their values; each has no note (this Excel has neither notes nor comments) saying when.",
    );
    expect(snapshotMessage(snap({ address: "" }))).toEqual({
      kind: "info",
      text: "No HEDGE formulas found on Desk: nothing was changed.",
      details: [],
    });
    const skipped = { address: "Desk!E1", formula: "=HEDGE.QUOTE(1)", reason: "it shows #N/A" };
    expect(snapshotMessage(snap({ skipped: [skipped] }))).toEqual({
      kind: "warning",
      text: "No formula was replaced on Desk.",
      details: ["Desk!E1 =HEDGE.QUOTE(1) left as a formula: it shows #N/A."],
    });
  });

  it("an error: the service's code, message and advice; any other error's own message, or what was thrown", () => {
    expect(errorMessage(new HedgingApiError({ code: "rate_limited", status: 429, message: "Slow down." }))).toMatchObject({
      kind: "error",
      text: "rate_limited: Slow down.",
    });
    expect(errorMessage(new Error("the workbook is busy"))).toEqual({ kind: "error", text: "the workbook is busy", details: [] });
    expect(errorMessage("no sheet")).toEqual({ kind: "error", text: "no sheet", details: [] });
  });

  it("a month that agrees is a success, said without differences; pending rows, chain findings and service findings are each counted", async () => {
    const agreeing = {
      ...fakeClient(),
      list: () => Promise.resolve({ data: [hedge()], meta: {} }),
      history: () => Promise.resolve({ data: [closed({ net_pnl_usd: -0.5 })], meta: {} }),
      positions: () => Promise.resolve({ data: [], meta: {} }),
    } as unknown as MonthEndClient;
    const quiet = controller({ client: () => agreeing });
    await quiet.c.reconcile();
    expect(quiet.c.view.message).toEqual({
      kind: "success",
      text: "Wrote “Hedge Recon 2026-11”: 1 hedge closed (net P&L -0.50 USD), 0 open positions, 0 differences with the Hedge Log.",
      details: [
        "Open positions, hedge states and notionals are as of the time generated: the service does not give them as of a past date.",
      ],
    });

    // Row 3's amount edited after it was hashed (a chain finding), its struck rate not the service's (a service finding),
    // and a row still pending.
    const open = logRow({ struckRate: 1499, prevHash: CHAIN_START });
    open.rowHash = rowHashOf(CHAIN_START, open);
    const placed: PlacedLogRow[] = [
      { sheet: "Hedge Log", rowNumber: 2, record: { ...open, notional: 100_001 } },
      {
        sheet: "Hedge Log",
        rowNumber: 3,
        record: logRow({ action: "close", notional: null, status: "closed", loggedAt: "2026-11-05T09:00:00Z" }),
      },
      {
        sheet: "Hedge Log",
        rowNumber: 4,
        record: logRow({ status: "submitted", hedgeId: null, clientReference: "LATE", loggedAt: "2026-11-20T09:00:00Z" }),
      },
    ];
    const busy = controller({ client: () => agreeing, readLogRows: async () => placed, chainHead: async () => null });
    await busy.c.reconcile();
    expect(busy.c.view.message?.kind).toBe("warning");
    expect(busy.c.view.message?.text).toBe(
      "Wrote “Hedge Recon 2026-11”: 1 hedge closed (net P&L -0.50 USD), 0 open positions, 1 difference with the Hedge Log (1 still pending); the Hedge Log's chain has 3 findings (a row edited, inserted, deleted, moved or cut off); the Hedge Log differs from the service in 2 findings (a cell, a row logged after the service acted, rows cut off): see the sheet's Differences.",
    );
  });

  it("one Reconcile at a time: a second click while it runs writes no second sheet", async () => {
    const { c, writer } = controller();
    await Promise.all([c.reconcile(), c.reconcile()]);
    expect([...writer.sheets.keys()]).toEqual(["Hedge Recon 2026-11"]);
  });

  it("Snapshot to values is offered only where a snapshotter is, and not while a run is busy; a listener that left hears no more", async () => {
    const none = controller();
    expect(none.c.canSnapshot).toBe(false);
    none.c.askSnapshot("sheet");
    expect(none.c.view.confirming).toBeNull();

    let release: () => void = () => undefined;
    const snapshotter: Snapshotter = {
      snapshot: () => new Promise((resolve) => (release = () => resolve(snap({})))),
    };
    const { c, views } = controller({ snapshotter });
    expect(c.canSnapshot).toBe(true);
    c.askSnapshot("sheet");
    const running = c.snapshot();
    expect(c.view.busy).toBe("snapshot");
    c.askSnapshot("selection");
    expect(c.view.confirming).toBeNull();
    const heard: MonthEndView[] = [];
    const leave = c.subscribe((v) => heard.push(v));
    leave();
    release();
    await running;
    expect(c.view.busy).toBeNull();
    expect(heard).toHaveLength(1);
    expect(views.at(-1)?.message?.text).toBe("No HEDGE formulas found on Desk: nothing was changed.");
  });
});
