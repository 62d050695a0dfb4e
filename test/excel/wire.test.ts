// The adapters through Microsoft's own serializer (excel-web in a Node vm): the calls they make are ones Office.js can send, and the wire host's answers read back right (visible rows, areas, header names, hostile text, archive).
import { OfficeWorkbook } from "../../src/excel/office-workbook";
import { officeSnapshotter } from "../../src/excel/snapshot";
import { LOG_HEADERS, LOG_SHEET_NAME, type LogRecord } from "../../src/trading/log/hedge-log";
import { FINAL_STATUSES } from "../../src/trading/types";
import { journalled } from "../support/builders";
import { OfficeMeter } from "./wire/office-vm";
import { WireHost } from "./wire/wire-host";
import { MiB, seedLog } from "./wire/scenarios";

const rect = (top: number, left: number, bottom: number, right: number) => ({ top, left, bottom, right });

describe("OfficeWorkbook over Office.js's own requests", () => {
  it("reads the visible rows of two areas of a filtered table, never its totals row", async () => {
    const host = new WireHost();
    const sheet = host.addSheet("Deals").fill(0, 0, [
      ["Market", "Side", "Amount"],
      ["USDTNGN", "buy", 1],
      ["USDTNGN", "sell", 2],
      ["USDTNGN", "buy", 3],
      ["USDTNGN", "sell", 4],
      ["USDTNGN", "buy", 5],
    ]);
    sheet.fill(6, 0, [["Total", "", 15]]);
    host.addTable("Deals", "Deals", rect(0, 0, 6, 2), true); // with its totals row
    sheet.hidden.add(2);
    host.select("Deals", rect(1, 1, 3, 1), rect(5, 0, 6, 0));
    const read = await new OfficeWorkbook(new OfficeMeter(host).excel).readSelection();
    expect(read.rows.map((r) => [r.rowNumber, r.values[2]])).toEqual([
      [2, 1],
      [4, 3],
      [6, 5],
    ]);
    expect(read.hiddenRowsSkipped).toBe(1);
    expect(read.tableName).toBe("Deals");
  });

  it("keeps a log whose columns the user moved, writes hostile text as text, and archives it", async () => {
    const host = new WireHost();
    seedLog(host, [journalled("k1", { loggedAt: "2024-05-01T00:00:00.000Z", status: "filled" }), journalled("k2")]);
    const sheet = host.sheet(LOG_SHEET_NAME);
    // The user swaps the Status and Market columns (header and cells).
    const status = LOG_HEADERS.indexOf("Status");
    const market = LOG_HEADERS.indexOf("Market");
    for (const row of sheet.rows) if (row) [row[status], row[market]] = [row[market], row[status]];
    const wb = new OfficeWorkbook(new OfficeMeter(host).excel);
    await wb.updateLog([{ idempotencyKey: "k2", status: "submitted", message: '=HYPERLINK("http://x")' }]);
    await wb.appendLog([journalled("k3", { clientReference: "+1+1" })]);
    expect(sheet.cell(2, market)).toMatchObject({ v: "submitted" });
    expect(sheet.cell(2, status)).toMatchObject({ v: "USDTNGN" });
    expect(sheet.cell(2, LOG_HEADERS.indexOf("Message"))).toEqual({ v: '=HYPERLINK("http://x")', f: undefined, nf: "@" });
    expect(sheet.cell(3, LOG_HEADERS.indexOf("Client reference"))).toEqual({ v: "+1+1", f: undefined, nf: "@" });
    expect(await wb.archiveLog({ before: "2025-01-01T00:00:00Z", finalStatuses: FINAL_STATUSES })).toMatchObject({
      total: 1,
      sheets: ["Hedge Log 2024"],
    });
    expect((await wb.readLog()).map((r) => [r.idempotencyKey, r.status, r.market])).toEqual([
      ["k1", "filled", "USDTNGN"],
      ["k2", "submitted", "USDTNGN"],
      ["k3", "submitting", "USDTNGN"],
    ]);
    expect((await wb.readLog({ keys: ["k1", "k3"] })).map((r) => r.idempotencyKey)).toEqual(["k3"]);
  });
});

describe("Snapshot to values over Office.js's own requests", () => {
  it("reads a HEDGE.HISTORY spill of 5,000 rows in pieces (every answer within 1 MiB) and writes every one of its values", async () => {
    const host = new WireHost();
    const sheet = host.addSheet("Month");
    const rows = 5_001; // the header row and HISTORY's most: 10 pages of 500
    const columns = 15;
    const shown = (r: number, c: number) =>
      r === 0 ? `col_${c}` : c % 3 === 0 ? `hdg_${String(r).padStart(20, "0")}` : 46_000 + r / 1000 + c;
    sheet.put(0, 0, { v: shown(0, 0), f: "=HEDGE.HISTORY()" });
    for (let r = 0; r < rows; r++) for (let c = 0; c < columns; c++) if (r || c) sheet.put(r, c, { v: shown(r, c), spilledFrom: "0,0" });
    sheet.spills.set("0,0", { rows, columns });
    const meter = new OfficeMeter(host);
    const snapshotter = officeSnapshotter({
      run: meter.runner,
      isSetSupported: (_name, version) => version === "1.10" || version === "1.12",
    });
    const result = await snapshotter.snapshot("sheet", new Date("2026-11-30T17:00:00Z"));
    expect(result.replaced).toEqual([{ address: "Month!A1", formula: "=HEDGE.HISTORY()", rows, columns }]);
    expect(OfficeMeter.largest(meter.syncs).response).toBeLessThanOrEqual(MiB);
    expect(sheet.cell(0, 0)).toMatchObject({ v: "col_0", f: undefined });
    const wrong: string[] = [];
    for (let r = 0; r < rows; r++) for (let c = 0; c < columns; c++) if (sheet.value(r, c) !== shown(r, c)) wrong.push(`${r},${c}`);
    expect(wrong).toEqual([]);
  });
});

describe("OfficeWorkbook log calls made while another is under way", () => {
  /** 30 finished rows of 2024 (they archive), then one row still waiting for its fill. */
  const seeded = () => {
    const host = new WireHost();
    const old = Array.from({ length: 30 }, (_, i) =>
      journalled(`old-${i}`, { loggedAt: "2024-05-01T00:00:00.000Z", status: "filled", clientReference: `R-${i}` }),
    );
    seedLog(host, [...old, journalled("pending", { status: "submitted", hedgeId: "h-p", loggedAt: "2024-05-02T00:00:00.000Z" })]);
    const wb = new OfficeWorkbook(new OfficeMeter(host).excel, { limits: { budgetBytes: 2_000, maxRows: 3, maxCells: 60 } });
    return { wb, old };
  };

  it("a fill written while an archive moves rows lands in its own row, and a month-end read meanwhile sees every row once", async () => {
    const { wb, old } = seeded();
    let during: Promise<unknown>[] = [];
    const archived = wb.archiveLog({
      before: "2025-01-01T00:00:00Z",
      finalStatuses: FINAL_STATUSES,
      onProgress: (moved) => {
        // The fill poller and month end do not wait for the pane's archive.
        if (moved > 0 && during.length === 0)
          during = [
            wb.updateLog([{ idempotencyKey: "pending", status: "filled", struckRate: 1500.5 }]),
            wb.readLog(),
            wb.appendLog([journalled("new", { loggedAt: "2024-06-01T00:00:00.000Z" })]),
          ];
      },
    });
    await archived;
    const [, monthEnd] = await Promise.all(during);
    // Every row once, in the archive or the log, whatever moment the read was answered at.
    expect((monthEnd as LogRecord[]).map((r) => r.idempotencyKey).sort()).toEqual([...old.map((r) => r.idempotencyKey), "pending"].sort());
    const all = await wb.readLog();
    expect(all.map((r) => [r.idempotencyKey, r.status])).toEqual([
      ...old.map((r) => [r.idempotencyKey, "filled"]),
      ["pending", "filled"],
      ["new", "submitting"],
    ]);
    expect(all.find((r) => r.idempotencyKey === "pending")).toMatchObject({ struckRate: 1500.5, hedgeId: "h-p" });
    expect(all.filter((r) => r.idempotencyKey.startsWith("old-")).map((r) => r.clientReference)).toEqual(old.map((r) => r.clientReference));
    // The live log holds just the unfinished row and the one appended meanwhile.
    const live = await wb.readLog({ keys: all.map((r) => r.idempotencyKey) });
    expect(live.map((r) => r.idempotencyKey)).toEqual(["pending", "new"]);
  });
});
