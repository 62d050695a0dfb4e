// The workbook port's helpers: the journal's rows among the log's rows read with their places (a row without a key, typed by hand, is not one), a new workbook id's form, and the document property a saved file keeps its id under.
import { journalRecords, newWorkbookId, type PlacedLogRow } from "../../src/trading/workbook";
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { logRow } from "../support/builders";

describe("journalRecords", () => {
  it("keeps the rows with a key, in order, and leaves out a row whose key is empty or only spaces", () => {
    const placed = (rowNumber: number, idempotencyKey: string): PlacedLogRow => ({
      sheet: "Hedge Log",
      rowNumber,
      record: logRow({ idempotencyKey }),
    });
    const rows = [placed(2, "k-1"), placed(3, ""), placed(4, "   "), placed(5, "k-2")];
    expect(journalRecords(rows).map((r) => r.idempotencyKey)).toEqual(["k-1", "k-2"]);
  });
});

describe("newWorkbookId", () => {
  it("is wb- and a fresh random id each time", () => {
    const [a, b] = [newWorkbookId(), newWorkbookId()];
    expect(a).toMatch(/^wb-[0-9a-f-]{32,36}$/);
    expect(a).not.toBe(b);
  });

  it("a file saved with its id under the HedgeWorkbookId property (every version's name) keeps that id: its journal rows still find it", async () => {
    const saved = new MemoryWorkbook({ customProperties: { HedgeWorkbookId: "wb-saved-earlier" } });
    expect(await saved.identity()).toMatchObject({ id: "wb-saved-earlier" });
    expect((await saved.identity()).fresh).toBeFalsy();
  });
});
