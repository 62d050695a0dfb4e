// Month end over a 5,000-row chained Hedge Log in the memory workbook: nothing flagged untouched; an edited amount, a deleted, swapped, cut-off or pasted row and an edited final status each flagged at its row in the recon sheet's Differences; chains checked across the year sheets after an archive.
import { HedgingApiError } from "../../src/api/errors";
import { MemorySheetWriter } from "../../src/excel/recon-sheet";
import { MemoryWorkbook, columnLetters } from "../../src/excel/memory-workbook";
import type { MonthEndClient } from "../../src/monthend/month-data";
import { MonthEndController } from "../../src/monthend/month-end-controller";
import { verifyLogChain } from "../../src/monthend/log-chain-check";
import { CHAIN_START, finalHashOf, rowHashOf } from "../../src/trading/log/log-chain";
import { LOG_COLUMNS, LOG_HEADERS, LOG_SHEET_NAME, LOG_TABLE_NAME, type LogRecord } from "../../src/trading/log/hedge-log";
import type { CellValue } from "../../src/trading/cells";
import { FINAL_STATUSES } from "../../src/trading/types";
import { logCells, logRow } from "../support/builders";

const NOW = Date.UTC(2026, 11, 2, 9); // month end of November 2026
const ROWS = 5_000;
const AMOUNT = LOG_COLUMNS.findIndex((c) => c.field === "notional");
const STATUS = LOG_COLUMNS.findIndex((c) => c.field === "status");

/** A service with nothing on it: the log's rows are all of October, so the reconciliation of November has no other difference. */
const quietService = {
  environment: "sandbox",
  account: () => Promise.resolve({ data: { account_address: "0xA" }, meta: {} }),
  positions: () => Promise.resolve({ data: [], meta: {} }),
  list: () => Promise.resolve({ data: [], meta: {} }),
  get: () => Promise.reject(new HedgingApiError({ code: "hedge_not_found", status: 404, message: "No hedge." })),
  history: () => Promise.resolve({ data: [], meta: {} }),
} as unknown as MonthEndClient;

/** `n` rows as the add-in writes them: each linked to the one before, sealed once final (the newest few still submitted). */
function chainedRows(n: number, start = Date.UTC(2026, 9, 1), step = 60_000): LogRecord[] {
  const rows: LogRecord[] = [];
  let prev = CHAIN_START;
  for (let i = 0; i < n; i++) {
    const final = i < n - 3;
    const row = logRow({
      loggedAt: new Date(start + i * step).toISOString(),
      idempotencyKey: `key-${String(i).padStart(5, "0")}`,
      clientReference: `DEAL-${i}`,
      notional: 10_000 + i * 1.25,
      status: final ? "filled" : "submitted",
      filledAt: final ? new Date(start + i * step + 2_000).toISOString() : null,
      message: i % 7 === 0 ? "partial quote retried" : null,
      prevHash: prev,
    });
    row.rowHash = rowHashOf(prev, row);
    if (final) row.finalHash = finalHashOf(row.rowHash, row);
    rows.push(row);
    prev = row.rowHash;
  }
  return rows;
}

const WRITTEN = chainedRows(ROWS);
const HEAD = WRITTEN[ROWS - 1].rowHash!;
const CELLS = WRITTEN.map(logCells);

/** A workbook whose Hedge Log table holds these rows' cells, as the user left them (row 1 the header, data from row 2). */
function workbookWith(rows: CellValue[][]): MemoryWorkbook {
  const wb = new MemoryWorkbook().setSheet(LOG_SHEET_NAME, [[...LOG_HEADERS], ...rows]);
  return wb.addTable(LOG_TABLE_NAME, LOG_SHEET_NAME, `A1:${columnLetters(LOG_HEADERS.length - 1)}${rows.length + 1}`);
}

/** Reconcile month as the pane runs it; the chain table of the recon sheet's Differences as the user reads it. */
async function monthEnd(wb: MemoryWorkbook, head: string | null = HEAD) {
  const writer = new MemorySheetWriter();
  const c = new MonthEndController({
    client: () => quietService,
    readLog: () => wb.readLog(),
    readLogRows: () => wb.readLogRows(),
    chainHead: async () => head,
    writer,
    snapshotter: null,
    now: () => NOW,
  });
  await c.reconcile();
  if (c.view.message?.kind === "error") throw new Error(c.view.message.text);
  const grid = writer.sheets.get("Hedge Recon 2026-11")!.values;
  const header = grid.findIndex((r) => r[0] === "Hedge Log chain");
  expect(grid[header].slice(0, 4)).toEqual(["Hedge Log chain", "Sheet", "Row", "What it means"]);
  const end = grid.findIndex((r, i) => i > header && r[0] === "");
  const lines = grid
    .slice(header + 1, end < 0 ? undefined : end)
    .map((r) => ({ kind: r[0], sheet: r[1], row: r[2], message: String(r[3]) }));
  const found = grid.find((r) => r[0] === "Hedge Log chain findings")?.[1];
  return { lines, found, message: c.view.message };
}

const at = (lines: Array<{ kind: unknown; sheet: unknown; row: unknown }>) => lines.map((l) => [l.kind, l.sheet, l.row]);

describe("month end over a chained Hedge Log of 5,000 rows", () => {
  it("flags nothing in the untouched log, and says the chain verified up to the newest row this computer wrote", async () => {
    const { lines, found, message } = await monthEnd(workbookWith(CELLS));
    expect(found).toBe(0);
    expect(at(lines)).toEqual([["Chain holds", "", ""]]);
    expect(lines[0].message).toBe(
      `No edit found in Excel: the hashes of the ${ROWS} rows of the chain hold, none deleted, inserted or moved; its last row is the newest this computer wrote. The hashes are not secret: a rewrite that recomputes them holds too, so the sealed cells rest on the chain alone; the cells the service knows are checked below.`,
    );
    expect(message?.text).toMatch(/3 still pending\)\.$/); // the 3 submitted rows; nothing about the chain
  });

  it("flags an edited amount at its row", async () => {
    const rows = CELLS.map((r) => [...r]);
    rows[1233][AMOUNT] = (rows[1233][AMOUNT] as number) + 1000; // sheet row 1235
    const { lines, found, message } = await monthEnd(workbookWith(rows));
    expect(at(lines)).toEqual([["Edited after it was written", LOG_SHEET_NAME, 1235]]);
    expect(lines[0].message).toMatch(/^Row 1235: a cell of what was sent \(amount/);
    expect(found).toBe(1);
    expect(message?.kind).toBe("warning");
    expect(message?.text).toMatch(/the Hedge Log's chain has 1 finding/);
  });

  it("flags a deleted row at the row that followed it", async () => {
    const rows = CELLS.filter((_, i) => i !== 2500); // sheet row 2502 deleted: the row after it moves up into 2502
    const { lines } = await monthEnd(workbookWith(rows));
    expect(at(lines)).toEqual([["Row deleted before it", LOG_SHEET_NAME, 2502]]);
  });

  it("flags two swapped rows, each at the row it now stands in", async () => {
    const rows = [...CELLS];
    [rows[1999], rows[2999]] = [rows[2999], rows[1999]]; // sheet rows 2001 and 3001
    const { lines } = await monthEnd(workbookWith(rows));
    expect(at(lines)).toEqual([
      ["Row moved", LOG_SHEET_NAME, 2001],
      ["Row moved", LOG_SHEET_NAME, 3001],
    ]);
    expect(lines[0].message).toBe("Row 2001: moved: it was written after row 3000.");
  });

  it("flags the last row cut off, from the head this computer's journal keeps", async () => {
    const { lines } = await monthEnd(workbookWith(CELLS.slice(0, -1)));
    expect(at(lines)).toEqual([["Rows cut off the end", LOG_SHEET_NAME, ROWS]]);
    expect(lines[0].message).toMatch(/rows were cut off after row 5000\.$/);
    // Without the head (another computer, a journal older than the chain), a cut end is not seen, and the sheet says so.
    const blind = await monthEnd(workbookWith(CELLS.slice(0, -1)), null);
    expect(at(blind.lines)).toEqual([["Chain holds", "", ""]]);
    expect(blind.lines[0].message).toMatch(
      /this computer's journal holds no newest row of this log, so rows cut off its end could not be seen/,
    );
  });

  it("flags a copied row pasted into the log", async () => {
    const rows = [...CELLS];
    rows.splice(4000, 0, [...CELLS[99]]); // a copy of sheet row 101 pasted as sheet row 4002
    const { lines } = await monthEnd(workbookWith(rows));
    expect(at(lines)).toEqual([["Row inserted", LOG_SHEET_NAME, 4002]]);
    expect(lines[0].message).toBe("Row 4002: a copy of row 101, pasted by hand.");
  });

  it("flags a row typed in by hand, without a key or a link", async () => {
    const typed = logCells(logRow({ idempotencyKey: "", loggedAt: "2026-10-02T00:00:00.000Z" }));
    const rows = [...CELLS.slice(0, 50), typed, ...CELLS.slice(50, 100)]; // sheet row 52
    const { lines } = await monthEnd(workbookWith(rows), WRITTEN[99].rowHash!);
    expect(at(lines)).toEqual([["Row inserted", LOG_SHEET_NAME, 52]]);
  });

  it("flags an edited final status, whether to another final status or back to an unfinished one", async () => {
    const rows = CELLS.map((r) => [...r]);
    rows[10][STATUS] = "failed"; // sheet row 12
    rows[20][STATUS] = "submitted"; // sheet row 22
    const { lines } = await monthEnd(workbookWith(rows));
    expect(at(lines)).toEqual([
      ["Outcome edited after it was final", LOG_SHEET_NAME, 12],
      ["Outcome edited after it was final", LOG_SHEET_NAME, 22],
    ]);
  });

  it("lists rows of a log older than the chain on one line, not judged, and judges the rows after them", async () => {
    const legacy = Array.from({ length: 3 }, (_, i) =>
      logCells(logRow({ idempotencyKey: `old-${i}`, loggedAt: `2026-09-0${i + 1}T10:00:00.000Z`, notional: 500 })),
    );
    const { lines, found } = await monthEnd(workbookWith([...legacy, ...CELLS.slice(0, 100)]), WRITTEN[99].rowHash!);
    expect(at(lines)).toEqual([
      ["Before the chain: not judged", LOG_SHEET_NAME, 2],
      ["Chain holds", "", ""],
    ]);
    expect(lines[0].message).toBe("3 row(s) from row 2 were written before the log kept a hash chain: not judged.");
    expect(lines[1].message).toMatch(/^No edit found in Excel: the hashes of the 100 rows of the chain hold/);
    expect(found).toBe(0);
  });

  it("a log written wholly before the chain is not judged, and is not said to be verified", async () => {
    const legacy = Array.from({ length: 3 }, (_, i) =>
      logCells(logRow({ idempotencyKey: `old-${i}`, loggedAt: `2026-09-0${i + 1}T10:00:00.000Z` })),
    );
    const { lines, found } = await monthEnd(workbookWith(legacy), null);
    expect(at(lines)).toEqual([["Before the chain: not judged", LOG_SHEET_NAME, 2]]);
    expect(found).toBe(0);
  });

  it("flags a final status typed into a row the add-in never sealed (spaces around it change nothing)", async () => {
    const rows = CELLS.map((r) => [...r]);
    rows[ROWS - 1][STATUS] = " filled "; // the newest row, still submitted when written: sheet row 5001
    const { lines } = await monthEnd(workbookWith(rows));
    expect(at(lines)).toEqual([["Final status not written by the add-in", LOG_SHEET_NAME, ROWS + 1]]);
  });

  it("flags a fork: a row forged after a row that already had its follower", async () => {
    const forged = logRow({
      loggedAt: "2026-10-04T12:00:00.000Z",
      idempotencyKey: "key-forged",
      clientReference: "DIRECT",
      prevHash: WRITTEN[99].rowHash,
    });
    forged.rowHash = rowHashOf(WRITTEN[99].rowHash!, forged);
    forged.finalHash = finalHashOf(forged.rowHash, forged); // sealed as the add-in would: only the fork gives it away
    const { lines } = await monthEnd(workbookWith([...CELLS, logCells(forged)]));
    expect(at(lines)).toEqual([["Chain forks", LOG_SHEET_NAME, ROWS + 2]]);
    expect(lines[0].message).toBe(
      `Row ${ROWS + 2}: the chain forks: it follows row 101, as row 102 does. Two computers wrote into the log at once, or this row was forged after the log was written.`,
    );
  });
});

describe("the chain across the year sheets", () => {
  /** 40 rows a week apart from November 2025, archived before October 2026: the first rows go to Hedge Log 2025 and 2026. */
  async function archived(): Promise<{ wb: MemoryWorkbook; rows: LogRecord[] }> {
    const rows = chainedRows(40, Date.UTC(2025, 10, 1), 7 * 86_400_000);
    const wb = new MemoryWorkbook();
    await wb.appendLog(rows);
    const moved = await wb.archiveLog({ before: "2026-07-01T00:00:00.000Z", finalStatuses: FINAL_STATUSES });
    expect(moved.sheets).toEqual(["Hedge Log 2025", "Hedge Log 2026"]);
    return { wb, rows };
  }

  it("an empty log, where this computer wrote rows, was cut off: the finding stands at no row", () => {
    expect(verifyLogChain([], "some-head")).toEqual({
      rows: 0,
      chained: 0,
      headKnown: true,
      lines: [
        {
          kind: "cut_off",
          sheet: null,
          rowNumber: null,
          message: "The newest row this computer wrote is not in the log: rows were cut off.",
        },
      ],
    });
  });

  it("verifies an archived untouched log without a finding", async () => {
    const { wb, rows } = await archived();
    const report = verifyLogChain(await wb.readLogRows(), rows[rows.length - 1].rowHash!);
    expect(report.lines).toEqual([]);
    expect(report.chained).toBe(40);
  });

  it("names the year sheet and its row, and rows of other sheets by their sheet", async () => {
    const { wb, rows } = await archived();
    const sheet = wb.cells("Hedge Log 2026");
    const row = 3; // sheet row 4 of Hedge Log 2026
    sheet[row][AMOUNT] = 1; // edited in the year sheet
    wb.setSheet("Hedge Log 2026", sheet);
    const placed = await wb.readLogRows();
    const firstLive = placed.findIndex((p) => p.sheet === LOG_SHEET_NAME);
    const tampered = placed.filter((_, i) => i !== firstLive - 1); // the last row of Hedge Log 2026 deleted
    tampered.push({ ...placed[1], sheet: LOG_SHEET_NAME, rowNumber: 99 }); // Hedge Log 2025's row 3 pasted at the log's end
    const report = verifyLogChain(tampered, rows[rows.length - 1].rowHash!);
    expect(report.lines.map((l) => [l.kind, l.sheet, l.rowNumber])).toEqual([
      ["edited", "Hedge Log 2026", 4],
      ["deleted_before", LOG_SHEET_NAME, 2],
      ["inserted", LOG_SHEET_NAME, 99],
    ]);
    expect(report.lines[2].message).toBe("Row 99: a copy of row 3 of Hedge Log 2025, pasted by hand.");
  });
});
