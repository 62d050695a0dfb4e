// The adapters through Microsoft's own serializer (excel-web in a Node vm): the calls they make are ones Office.js can send, and the wire host's answers read back right (visible rows, areas, header names, hostile text, archive).
import { OfficeWorkbook } from "../../src/excel/office-workbook";
import { LOG_HEADERS, LOG_SHEET_NAME } from "../../src/trading/hedge-log";
import { FINAL_STATUSES } from "../../src/trading/types";
import { journalled } from "../support/builders";
import { OfficeMeter } from "./wire/office-vm";
import { WireHost } from "./wire/wire-host";
import { seedLog } from "./wire/scenarios";

const rect = (top: number, left: number, bottom: number, right: number) => ({ top, left, bottom, right });

describe("OfficeWorkbook over Office.js's own requests", () => {
  it("reads the visible rows of two areas of a filtered table", async () => {
    const host = new WireHost();
    const sheet = host.addSheet("Deals").fill(0, 0, [
      ["Market", "Side", "Amount"],
      ["USDTNGN", "buy", 1],
      ["USDTNGN", "sell", 2],
      ["USDTNGN", "buy", 3],
      ["USDTNGN", "sell", 4],
      ["USDTNGN", "buy", 5],
    ]);
    host.addTable("Deals", "Deals", rect(0, 0, 5, 2));
    sheet.hidden.add(2);
    host.select("Deals", rect(1, 1, 3, 1), rect(5, 0, 5, 0));
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
