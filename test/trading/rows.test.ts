// Reading trade rows: header mapping with synonyms, per-action required fields, validation messages by sheet row, numbers as text.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { mapColumns, normaliseHeader, parseAmount, parseTenor, readTradeRows } from "../../src/trading/rows";
import type { CellValue } from "../../src/trading/cells";

async function read(action: "open" | "add" | "reduce" | "close", grid: CellValue[][], select = "A2:Z200") {
  const wb = new MemoryWorkbook({ sheets: { Exposures: grid } }).select("Exposures", select);
  return readTradeRows(action, await wb.readSelection());
}

describe("column mapping", () => {
  it("matches headers case-, space- and underscore-insensitively, with synonyms", () => {
    const map = mapColumns(["Deal_ID", "PAIR", "direction", "Notional USD", "Tenor days", "Comment"]);
    expect(map.index).toEqual({ clientReference: 0, market: 1, side: 2, notional: 3, tenor: 4 });
    expect(map.header.notional).toBe("Notional USD");
    expect(mapColumns(["Symbol", "Side", "Amount", "Tenor", "Reference"]).index).toEqual({
      market: 0,
      side: 1,
      notional: 2,
      tenor: 3,
      clientReference: 4,
    });
    expect(mapColumns(["client reference", "notional (usd)"]).index).toEqual({ clientReference: 0, notional: 1 });
    expect(normaliseHeader(" Client_Reference ")).toBe("clientreference");
  });

  it("reports two columns meaning the same field, and sends nothing", async () => {
    const r = await read("add", [
      ["Market", "Side", "Notional", "Amount"],
      ["USDTNGN", "buy", 100, 200],
    ]);
    expect(r.rows).toEqual([]);
    expect(r.problems[0].message).toBe("Row 1: columns Notional and Amount both mean Notional — rename or remove all but one.");
  });

  it("names a missing required column and the headers that would do", async () => {
    const r = await read("open", [
      ["Market", "Side", "Notional", "Tenor"],
      ["USDTNGN", "buy", 100, 7],
    ]);
    expect(r.rows).toEqual([]);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({ field: "columns", rowNumber: 1 });
    expect(r.problems[0].message).toContain("no Client reference column — Open needs one");
    expect(r.problems[0].message).toContain("Deal id");
  });
});

describe("per-action required fields", () => {
  const grid: CellValue[][] = [
    ["Market", "Side", "Amount"],
    ["USDTNGN", "sell", "50,000"],
  ];
  it("Add and Reduce need market, side and amount; Close needs market and side only", async () => {
    for (const action of ["add", "reduce"] as const) {
      const r = await read(action, grid);
      expect(r.problems).toEqual([]);
      expect(r.rows).toEqual([
        { rowNumber: 2, action, market: "USDTNGN", side: "sell", notional: 50_000, tenor: null, clientReference: null },
      ]);
    }
    const close = await read("close", [
      ["Pair", "Direction"],
      ["usdtngn", "BUY"],
    ]);
    expect(close.rows).toEqual([
      { rowNumber: 2, action: "close", market: "USDTNGN", side: "buy", notional: null, tenor: null, clientReference: null },
    ]);
    const open = await read("open", grid);
    expect(open.rows).toEqual([]);
    expect(open.problems.map((p) => p.message).join(" ")).toMatch(/no Tenor column.*no Client reference column/);
  });
});

describe("row validation", () => {
  const header = ["Market", "Side", "Notional", "Tenor", "Client reference"];

  it("lists bad rows by sheet row number with the field and the fix; good rows pass; blank rows are skipped", async () => {
    const r = await read("open", [
      header,
      ["USDTNGN", "buy", 1_000_000, 7, "D-1"], // row 2: fine
      ["", "", "", "", ""], // row 3: blank
      ["USDTNGN", "hold", 100, 3, "D-2"], // row 4: bad side
      ["USDTNGN", "sell", "1.000.000", 1, "D-3"], // row 5: bad amount
      ["USDTNGN", "sell", -5, 1, "D-4"], // row 6: negative
      ["USDTNGN", "buy", 250_000, 5, "D-5"], // row 7: bad tenor
      ["USDTNGN", "buy", 250_000, 7, ""], // row 8: no reference
      ["USDTNGN", "buy", 250_000, 7, "D-1"], // row 9: reference reused
      [null, null, null, null, null], // row 10: blank
      ["USDTNGN", "sell", "75,000.25", "1", "D-10"], // row 11: fine
    ]);
    expect(r.rows.map((x) => x.rowNumber)).toEqual([2, 11]);
    expect(r.rows[1]).toMatchObject({ notional: 75_000.25, tenor: 1, clientReference: "D-10" });
    expect(r.blankRows).toEqual([3, 10]);
    expect(r.problems.map((p) => [p.rowNumber, p.field, p.message])).toEqual([
      [4, "side", 'Row 4: Side "hold" — use buy or sell.'],
      [5, "notional", "Row 5: Notional 1.000.000 is not an amount: use digits, with , for thousands and . for decimals (1,250,000.00)."],
      [6, "notional", "Row 6: Notional -5 must be greater than 0."],
      [7, "tenor", "Row 7: Tenor 5 — use 1, 3 or 7."],
      [8, "clientReference", "Row 8: Client reference is empty — give the deal id; every open carries one."],
      [9, "clientReference", "Row 9: Client reference D-1 is also on row 2 — give each deal its own reference."],
    ]);
  });

  it("reports every problem of a row, not just the first", async () => {
    const r = await read("open", [header, ["", "up", "lots", "2w", "D-9"]]);
    expect(r.problems.map((p) => p.field)).toEqual(["market", "side", "notional", "tenor"]);
    expect(r.rows).toEqual([]);
  });

  it("rounds amounts to the cent as they are shown and sent, and refuses amounts beyond sane bounds with the row and the reason", async () => {
    const r = await read("add", [
      ["Market", "Side", "Amount"],
      ["USDTNGN", "buy", 250_000 / 3], // row 2: 83,333.333… as the cell holds it
      ["USDTNGN", "buy", 1.005], // row 3: 1.00499999… in binary, still 1.01
      ["USDTNGN", "buy", "12,345.675"], // row 4: text
      ["USDTNGN", "buy", 1e300], // row 5
      ["USDTNGN", "buy", 1_000_000_000.01], // row 6: just over
      ["USDTNGN", "buy", 0.004], // row 7: rounds to nothing
      ["USDTNGN", "buy", 1_000_000_000], // row 8: the most one row may carry
    ]);
    expect(r.rows.map((x) => [x.rowNumber, x.notional])).toEqual([
      [2, 83_333.33],
      [3, 1.01],
      [4, 12_345.68],
      [8, 1_000_000_000],
    ]);
    expect(r.problems.map((p) => p.message)).toEqual([
      "Row 5: Amount 1e+300 is more than the 1,000,000,000 USD one row may carry: check the amount, or split the trade.",
      "Row 6: Amount 1000000000.01 is more than the 1,000,000,000 USD one row may carry: check the amount, or split the trade.",
      "Row 7: Amount 0.004 rounds to 0.00: the smallest amount is 0.01.",
    ]);
  });

  it("accepts numbers as numbers or as text with thousands separators", () => {
    expect(parseAmount(1250000)).toEqual({ value: 1_250_000 });
    expect(parseAmount("1,250,000")).toEqual({ value: 1_250_000 });
    expect(parseAmount("1 250 000.50")).toEqual({ value: 1_250_000.5 });
    expect(parseAmount("$1,250,000")).toEqual({ value: 1_250_000 });
    expect(parseAmount("250,000 USD")).toEqual({ value: 250_000 });
    expect(parseAmount("1,25")).toHaveProperty("reason");
    expect(parseAmount("0")).toEqual({ reason: "must be greater than 0" });
    expect(parseAmount("")).toHaveProperty("reason");
    expect(parseTenor("7")).toBe(7);
    expect(parseTenor("3 days")).toBe(3);
    expect(parseTenor(1)).toBe(1);
    expect(parseTenor(2)).toBeNull();
    expect(parseTenor("")).toBeNull();
  });

  it("reads only the selected rows of a plain range, under the sheet's header row, with their sheet row numbers", async () => {
    const r = await read(
      "reduce",
      [
        ["Market", "Side", "Amount"],
        ["USDTNGN", "buy", 1],
        ["USDTNGN", "buy", 2],
        ["USDTNGN", "sell", 3],
        ["USDTNGN", "sell", 4],
      ],
      "B3:B4",
    );
    expect(r.rows.map((x) => [x.rowNumber, x.notional])).toEqual([
      [3, 2],
      [4, 3],
    ]);
    expect(r.address).toBe("Exposures!A3:C4");
  });

  it("reads the table rows the selection covers when it sits in a table", async () => {
    const wb = new MemoryWorkbook({
      sheets: {
        Book: [
          ["notes"],
          [],
          ["Symbol", "Side", "Notional", "Tenor", "Deal id"],
          ["USDTNGN", "buy", "100,000", "7", "A1"],
          ["USDTNGN", "sell", 50_000, 3, "A2"],
        ],
      },
    })
      .addTable("Deals", "Book", "A3:E5")
      .select("Book", "C4:C5");
    const r = readTradeRows("open", await wb.readSelection());
    expect(r.tableName).toBe("Deals");
    expect(r.rows.map((x) => [x.rowNumber, x.side, x.notional, x.tenor, x.clientReference])).toEqual([
      [4, "buy", 100_000, 7, "A1"],
      [5, "sell", 50_000, 3, "A2"],
    ]);
  });
});
