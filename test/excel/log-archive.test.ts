// Archiving the Hedge Log to "Hedge Log YYYY" sheets, in both adapters: only finished rows older than the cut-off move, month end still reads them all, queries see the live log, and a run cut short is finished without doubling rows.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { OfficeWorkbook } from "../../src/excel/office-workbook";
import { FINAL_STATUSES } from "../../src/trading/types";
import { LOG_SHEET_NAME, type LogArchiveRequest, type LogRecord } from "../../src/trading/log/hedge-log";
import type { Workbook } from "../../src/trading/workbook";
import { ExcelModel } from "./excel-model";
import { journalled } from "../support/builders";

type Archiving = Workbook & Required<Pick<Workbook, "archiveLog">>;

const ROWS: LogRecord[] = [
  journalled("old-filled-2025", { loggedAt: "2025-06-01T10:00:00.000Z", status: "filled" }),
  journalled("old-failed-2026", { loggedAt: "2026-01-15T10:00:00.000Z", status: "failed" }),
  journalled("old-closed-2026", { loggedAt: "2026-09-30T23:59:59.000Z", status: "closed" }),
  journalled("old-open-2025", { loggedAt: "2025-07-01T10:00:00.000Z", status: "submitted" }), // unfinished: stays
  journalled("bad-time", { loggedAt: "sometime", status: "filled" }), // unreadable time: stays
  journalled("recent-filled", { loggedAt: "2026-10-01T00:00:00.000Z", status: "filled" }), // at the cut-off: stays
  journalled("recent-open", { loggedAt: "2026-11-02T00:00:00.000Z", status: "submitting" }),
];
const CUTOFF = "2026-10-01T00:00:00.000Z";
const request = (over: Partial<LogArchiveRequest> = {}): LogArchiveRequest => ({ before: CUTOFF, finalStatuses: FINAL_STATUSES, ...over });
const keys = (rows: LogRecord[]) => rows.map((r) => r.idempotencyKey);

const adapters: Array<[string, () => { wb: Archiving; sheets: () => string[]; cells: (sheet: string) => unknown[][] }]> = [
  [
    "OfficeWorkbook (office-addin-mock)",
    () => {
      const model = new ExcelModel();
      const wb = new OfficeWorkbook(model.excel, { limits: { budgetBytes: 800, maxRows: 2, maxCells: 40 } });
      return { wb, sheets: () => [...model.host.sheets.keys()], cells: (sheet: string) => model.grid(sheet) };
    },
  ],
  [
    "MemoryWorkbook",
    () => {
      const wb = new MemoryWorkbook();
      return { wb, sheets: () => wb.sheetNames(), cells: (sheet: string) => wb.cells(sheet) };
    },
  ],
];

describe.each(adapters)("archiveLog in %s", (_name, make) => {
  it("counts first (a dry run moves nothing), then moves finished rows by year, keeping unfinished and unreadable ones", async () => {
    const { wb, sheets } = make();
    await wb.appendLog(ROWS);
    const dry = await wb.archiveLog(request({ dryRun: true }));
    expect(dry).toEqual({ total: 3, byYear: { 2025: 1, 2026: 2 }, kept: 2, sheets: ["Hedge Log 2025", "Hedge Log 2026"] });
    expect(sheets()).toEqual([LOG_SHEET_NAME]);

    const progress: Array<[number, number]> = [];
    const done = await wb.archiveLog(request({ onProgress: (moved, total) => progress.push([moved, total]) }));
    expect(done).toEqual(dry);
    expect(progress.at(-1)).toEqual([3, 3]);
    expect(sheets()).toEqual([LOG_SHEET_NAME, "Hedge Log 2025", "Hedge Log 2026"]);

    // Queries (the hot path: unfinished rows, recent rows, known keys) read the live log only.
    expect(keys(await wb.readLog({ statusNotIn: FINAL_STATUSES }))).toEqual(["old-open-2025", "recent-open"]);
    expect(keys(await wb.readLog({ keys: ["old-filled-2025", "recent-filled"] }))).toEqual(["recent-filled"]);
    // Month end reads everything: the years first, then the log.
    const all = await wb.readLog();
    expect(keys(all)).toEqual([
      "old-filled-2025",
      "old-failed-2026",
      "old-closed-2026",
      "old-open-2025",
      "bad-time",
      "recent-filled",
      "recent-open",
    ]);
    expect(all.find((r) => r.idempotencyKey === "old-failed-2026")).toEqual(ROWS[1]);

    // The live log still takes updates and appends at the right rows.
    await wb.updateLog([{ idempotencyKey: "recent-open", status: "filled" }]);
    await wb.appendLog([journalled("new", { loggedAt: "2026-11-03T00:00:00.000Z" })]);
    expect(keys(await wb.readLog({ statusNotIn: FINAL_STATUSES }))).toEqual(["old-open-2025", "new"]);

    // Again: nothing more to move.
    expect((await wb.archiveLog(request())).total).toBe(0);
  });

  it("counts a row found both in a year sheet and in the log once, and archiving again does not copy it twice", async () => {
    const { wb, cells } = make();
    const finished = ROWS.slice(0, 3);
    await wb.appendLog(finished);
    await wb.archiveLog(request({ before: "2026-01-16T00:00:00.000Z" })); // the 2025 row and old-failed-2026
    await wb.appendLog([ROWS[1]]); // as a run stopped after copying it and before removing it would leave it
    expect(keys(await wb.readLog()).filter((k) => k === "old-failed-2026")).toHaveLength(1);
    expect(await wb.archiveLog(request())).toMatchObject({ total: 2 }); // old-closed-2026, and the leftover copy
    const all = await wb.readLog();
    expect(keys(all).filter((k) => k === "old-failed-2026")).toHaveLength(1);
    expect(all).toHaveLength(finished.length);
    expect(keys(await wb.readLog({ keys: ["old-failed-2026"] }))).toEqual([]);
    expect(
      cells("Hedge Log 2026")
        .flat()
        .filter((v) => v === "old-failed-2026"),
    ).toHaveLength(1);
  });

  it("moves chains whole: only the rows above the first row that must stay, in years that never go back", async () => {
    const { wb, sheets } = make();
    await wb.appendLog([
      journalled("a-2025", { loggedAt: "2025-06-01T10:00:00.000Z", status: "filled" }),
      journalled("b-2025-open", { loggedAt: "2025-06-02T10:00:00.000Z", status: "submitted" }), // must stay
      journalled("c-2025", { loggedAt: "2025-06-03T10:00:00.000Z", status: "filled" }), // finished, but after it: stays
    ]);
    expect(await wb.archiveLog(request())).toEqual({ total: 1, byYear: { 2025: 1 }, kept: 2, sheets: ["Hedge Log 2025"] });
    expect(keys(await wb.readLog())).toEqual(["a-2025", "b-2025-open", "c-2025"]);
    await wb.updateLog([{ idempotencyKey: "b-2025-open", status: "filled" }]);
    expect(await wb.archiveLog(request())).toMatchObject({ total: 2, kept: 0 });
    expect(keys(await wb.readLog({ keys: ["a-2025", "b-2025-open", "c-2025"] }))).toEqual([]);

    // A row logged in a year older than a year sheet already there would read before that sheet's rows: it stays.
    await wb.appendLog([
      journalled("d-2026", { loggedAt: "2026-02-01T10:00:00.000Z", status: "filled" }),
      journalled("e-2025-late", { loggedAt: "2025-12-31T10:00:00.000Z", status: "filled" }), // clock set back
      journalled("f-2026", { loggedAt: "2026-02-02T10:00:00.000Z", status: "filled" }),
    ]);
    expect(await wb.archiveLog(request())).toEqual({ total: 1, byYear: { 2026: 1 }, kept: 2, sheets: ["Hedge Log 2026"] });
    expect(sheets()).toEqual([LOG_SHEET_NAME, "Hedge Log 2025", "Hedge Log 2026"]);
    expect(await wb.archiveLog(request())).toMatchObject({ total: 0, kept: 2 });
    expect(keys(await wb.readLog())).toEqual(["a-2025", "b-2025-open", "c-2025", "d-2026", "e-2025-late", "f-2026"]);
  });
});

describe("archiveLog through Office.js, stopped by Excel part-way", () => {
  it("leaves every row somewhere, and a second run finishes without doubling any", async () => {
    const limits = { budgetBytes: 800, maxRows: 2, maxCells: 40 };
    const probe = new ExcelModel();
    const first = new OfficeWorkbook(probe.excel, { limits });
    await first.appendLog(ROWS);
    const before = probe.syncs;
    await first.archiveLog(request());
    const model = new ExcelModel();
    const wb = new OfficeWorkbook(model.excel, { limits });
    await wb.appendLog(ROWS);
    model.failAtSync = model.syncs + (probe.syncs - before); // the last removal
    await expect(wb.archiveLog(request())).rejects.toThrow(/could not complete/);
    model.failAtSync = null;
    const meanwhile = await wb.readLog();
    expect(meanwhile).toHaveLength(ROWS.length);
    await wb.archiveLog(request());
    const all = await wb.readLog();
    expect(keys(all).sort()).toEqual(keys(ROWS).sort());
    expect(keys(await wb.readLog({ keys: keys(ROWS) })).sort()).toEqual(["bad-time", "old-open-2025", "recent-filled", "recent-open"]);
  });
});
