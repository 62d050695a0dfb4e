// Reading trade rows: header mapping with synonyms, per-action required fields, validation messages by sheet row, numbers as text.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { MAX_AMOUNT_USD } from "../../src/api/schemas";
import {
  HEADER_SYNONYMS,
  mapColumns,
  normaliseHeader,
  parseAmount,
  parseMarket,
  parseSide,
  parseTenor,
  PROPOSAL_HEADERS,
  PROPOSAL_TRADE_COLUMNS,
  readTradeRows,
  roundToCent,
} from "../../src/trading/rows";
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
    // Two columns for one field: the first is the one read (and named); both are listed as a conflict.
    const twice = mapColumns(["Amount", "Side", "Notional"]);
    expect([twice.index.notional, twice.header.notional, twice.conflicts]).toEqual([
      0,
      "Amount",
      [{ field: "notional", headers: ["Amount", "Notional"] }],
    ]);
  });

  it("reads a proposal's header row by the proposal's own headers, not by the synonyms", () => {
    const saved = { ...HEADER_SYNONYMS };
    const synonyms = HEADER_SYNONYMS as Record<string, readonly string[]>;
    try {
      for (const f of Object.keys(synonyms)) synonyms[f] = []; // no synonym at all: the proposal's columns still read
      const map = mapColumns([...PROPOSAL_HEADERS]);
      expect(map.index).toEqual({ action: 0, market: 1, side: 2, notional: 3, tenor: 4, clientReference: 5 });
      expect(map.header).toEqual(PROPOSAL_TRADE_COLUMNS);
      expect(map.conflicts).toEqual([]);
    } finally {
      Object.assign(synonyms, saved);
    }
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
    expect(r.problems[0]).toMatchObject({ field: "columns", rowNumber: 1, value: "" });
    expect(r.problems[0].message).toContain("no Client reference column — Open needs one");
    expect(r.problems[0].message).toContain("Deal id");
    const close = await read("close", [
      ["Market", "Notional"],
      ["USDTNGN", 100],
    ]);
    expect(close.problems.map((p) => p.message)).toEqual([
      "Row 1: no Side column — Close needs one: add a column headed Side or Direction.",
    ]);
  });

  it("names every column each action needs and the header lacks", async () => {
    const missing = async (action: "open" | "add" | "reduce" | "close") =>
      (await read(action, [["Comment"], ["a note"]])).problems.map((p) => /no (.*?) column/.exec(p.message)?.[1]);
    expect(await missing("open")).toEqual(["Market", "Side", "Notional", "Tenor", "Client reference"]);
    expect(await missing("add")).toEqual(["Market", "Side", "Notional"]);
    expect(await missing("reduce")).toEqual(["Market", "Side", "Notional"]);
    expect(await missing("close")).toEqual(["Market", "Side"]);
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
      ["", "buy", 100, 7, "D-12"], // row 12: no market
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
      [12, "market", "Row 12: Market is empty — give the market symbol, e.g. USDTNGN."],
    ]);
    // Each problem carries the cell as typed, blank when empty.
    expect(r.problems.map((p) => p.value)).toEqual(["hold", "1.000.000", "-5", "5", "", "D-1", ""]);
  });

  it("a cell given as null, or missing from a short row, is empty, as a blank one is", () => {
    const r = readTradeRows("close", {
      sheetName: "Exposures",
      address: "Exposures!A2:B3",
      tableName: null,
      headers: ["Market", "Side"],
      headerRowNumber: 1,
      rows: [
        { rowNumber: 2, values: ["USDTNGN", null] },
        { rowNumber: 3, values: [null, null] },
        { rowNumber: 4, values: ["USDTNGN"] }, // a row shorter than the headers
      ],
      hiddenRowsSkipped: 0,
    });
    expect(r.problems).toEqual([
      { rowNumber: 2, field: "side", value: "", message: "Row 2: Side is empty — use buy or sell." },
      { rowNumber: 4, field: "side", value: "", message: "Row 4: Side is empty — use buy or sell." },
    ]);
    expect(r.blankRows).toEqual([3]);
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

describe("what the user typed, read as the service needs it", () => {
  it("names every header a missing column may have, and says which action needs it", async () => {
    const r = await read("add", [
      ["Side", "Comment"],
      ["buy", "x"],
    ]);
    expect(r.problems.map((p) => p.message)).toEqual([
      "Row 1: no Market column — Add needs one: add a column headed Market, Pair or Symbol.",
      "Row 1: no Notional column — Add needs one: add a column headed Notional or Amount.",
    ]);
    const open = await read("open", [["Market", "Side", "Amount"]]);
    expect(open.problems.map((p) => p.message)).toEqual([
      "Row 1: no Tenor column — Open needs one: add a column headed Tenor.",
      "Row 1: no Client reference column — Open needs one: add a column headed Client reference, Deal id or Reference.",
    ]);
  });

  it("an Add, Reduce or Close keeps the row's client reference when there is one; two reference columns are refused for them too", async () => {
    for (const action of ["add", "reduce", "close"] as const) {
      const r = await read(action, [
        ["Market", "Side", "Amount", "Deal id"],
        ["USDTNGN", "buy", 1_000, " D-7 "],
        ["USDTNGN", "buy", 2_000, "D-7"],
      ]);
      expect(r.rows.map((x) => x.clientReference)).toEqual(["D-7", "D-7"]); // an Add may share its deal's reference
      const twice = await read(action, [
        ["Market", "Side", "Amount", "Deal id", "Reference"],
        ["USDTNGN", "buy", 1_000, "D-7", "D-8"],
      ]);
      expect(twice.problems.map((p) => p.message)).toEqual([
        "Row 1: columns Deal id and Reference both mean Client reference — rename or remove all but one.",
      ]);
    }
    // Two Tenor columns do not matter to an Add, which reads none.
    const add = await read("add", [
      ["Market", "Side", "Amount", "Tenor", "Tenor days"],
      ["USDTNGN", "buy", 1_000, 7, 3],
    ]);
    expect(add.problems).toEqual([]);
  });

  it("a row whose cells for this action are all blank is skipped as blank, even with a comment beside it", async () => {
    const r = await read("add", [
      ["Market", "Side", "Amount", "Comment", "Tenor"],
      ["  ", "", null, "not this one", 7],
      ["USDTNGN", "buy", 10, "", ""],
    ]);
    expect(r.blankRows).toEqual([2]);
    expect(r.rows.map((x) => x.rowNumber)).toEqual([3]);
    expect(r.problems).toEqual([]);
  });

  it("says what is wrong with each cell of an Add, and how to fix it", async () => {
    const r = await read("add", [
      ["Market", "Side", "Amount"],
      ["", "", ""],
      ["US", " Hold ", "lots"],
      ["USDTNGN", "buy", ""],
    ]);
    expect(r.problems.map((p) => [p.rowNumber, p.field, p.value, p.message])).toEqual([
      [3, "market", "US", 'Row 3: Market "US" — give a market symbol such as USDTNGN.'],
      [3, "side", "Hold", 'Row 3: Side "Hold" — use buy or sell.'],
      [3, "notional", "lots", "Row 3: Amount lots is not an amount: use digits, with , for thousands and . for decimals (1,250,000.00)."],
      [4, "notional", "", "Row 4: Amount is empty — give the USD amount, e.g. 250,000."],
    ]);
    expect(r.blankRows).toEqual([2]);
    const reduce = await read("reduce", [
      ["Market", "Side", "Amount"],
      ["USDTNGN", "buy", " "],
      ["USDTNGN", "buy", 0.004],
    ]);
    expect(reduce.problems.map((p) => p.message)).toEqual([
      "Row 2: Amount is empty — give the USD amount, e.g. 250,000.",
      "Row 3: Amount 0.004 rounds to 0.00: the smallest amount is 0.01.",
    ]);
    const empty = await read("open", [
      ["Market", "Side", "Notional", "Tenor", "Reference"],
      ["", "", 5, "", "D-1"],
    ]);
    expect(empty.problems.map((p) => p.message)).toEqual([
      "Row 2: Market is empty — give the market symbol, e.g. USDTNGN.",
      "Row 2: Side is empty — use buy or sell.",
      "Row 2: Tenor is empty — use 1, 3 or 7 (days).",
    ]);
  });

  it("a client reference of up to 128 characters", async () => {
    const header = ["Market", "Side", "Notional", "Tenor", "Reference"];
    const r = await read("open", [header, ["USDTNGN", "buy", 5, 7, "R".repeat(128)], ["USDTNGN", "sell", 5, 7, "S".repeat(129)]]);
    expect(r.rows.map((x) => x.rowNumber)).toEqual([2]);
    expect(r.problems.map((p) => p.message)).toEqual(["Row 3: Client reference is 129 characters — use at most 128."]);
    expect(r.problems.map((p) => p.field)).toEqual(["clientReference"]);
  });

  it("says what it read: the sheet, the address, the table, the columns and the hidden rows skipped", async () => {
    const wb = new MemoryWorkbook({
      sheets: {
        Exposures: [
          ["Pair", "Direction", "Amount USD"],
          ["USDTNGN", "sell", 5],
        ],
      },
    }).select("Exposures", "A2:C2");
    const selection = await wb.readSelection();
    const r = readTradeRows("close", selection);
    expect(r).toMatchObject({
      action: "close",
      sheetName: "Exposures",
      address: "Exposures!A2:C2",
      tableName: null,
      columns: { market: "Pair", side: "Direction", notional: "Amount USD" },
      hiddenRowsSkipped: 0,
    });
    expect(readTradeRows("close", { ...selection, hiddenRowsSkipped: 3 }).hiddenRowsSkipped).toBe(3);
  });

  it("reads markets, sides and tenors as typed", () => {
    expect(parseMarket(" usdt/ngn ")).toBe("USDTNGN");
    expect(parseMarket("USDT-NGN")).toBe("USDTNGN");
    expect(parseMarket("usdt_ngn")).toBe("USDTNGN");
    expect(parseMarket("USD")).toBe("USD");
    expect(parseMarket("US")).toBeNull();
    expect(parseMarket("A".repeat(20))).toBe("A".repeat(20));
    expect(parseMarket("A".repeat(21))).toBeNull();
    expect(parseMarket("USD$NGN")).toBeNull();
    expect(parseMarket(null)).toBeNull();
    expect(parseSide(" SELL ")).toBe("sell");
    expect(parseSide("b")).toBeNull();
    expect(parseSide(null)).toBeNull();
    expect(parseTenor("7d")).toBe(7);
    expect(parseTenor(" 3 Day ")).toBe(3);
    expect(parseTenor("1days")).toBe(1);
    expect(parseTenor("7 weeks")).toBeNull();
    expect(parseTenor("d")).toBeNull();
    expect(parseTenor(null)).toBeNull();
  });

  it("reads amounts as typed, rounded to the cent as sent, within what one row may carry", () => {
    expect(parseAmount("USD 1,000")).toEqual({ value: 1_000 });
    expect(parseAmount("usdc1000")).toEqual({ value: 1_000 });
    expect(parseAmount("USDC 1,250,000")).toEqual({ value: 1_250_000 }); // once refused: "USD" was taken off, leaving "C"
    expect(parseAmount("1,000 usdc")).toEqual({ value: 1_000 });
    expect(parseAmount("1\u00a0000\u202f000")).toEqual({ value: 1_000_000 });
    expect(parseAmount("1_000'000")).toEqual({ value: 1_000_000 });
    expect(parseAmount(" 12.5 ")).toEqual({ value: 12.5 });
    expect(parseAmount(" $1,000 ")).toEqual({ value: 1_000 });
    expect(parseAmount("1,000USD")).toEqual({ value: 1_000 });
    // Letters or signs inside the number are not an amount, whatever they spell.
    for (const text of ["12USD34", "100 USD 5", "1-000", "1,000 $"])
      expect(parseAmount(text)).toEqual({ reason: expect.stringMatching(/^is not an amount/) });
    expect(parseAmount(83_333.333)).toEqual({ value: 83_333.33 });
    expect(parseAmount(1.005)).toEqual({ value: 1.01 });
    expect(parseAmount(0.005)).toEqual({ value: 0.01 });
    expect(parseAmount(0.004)).toEqual({ reason: "rounds to 0.00: the smallest amount is 0.01" });
    expect(parseAmount("0.004")).toEqual({ reason: "rounds to 0.00: the smallest amount is 0.01" });
    expect(parseAmount(MAX_AMOUNT_USD)).toEqual({ value: MAX_AMOUNT_USD });
    expect(parseAmount(MAX_AMOUNT_USD + 1)).toEqual({
      reason: "is more than the 1,000,000,000 USD one row may carry: check the amount, or split the trade",
    });
    expect(parseAmount("-5")).toEqual({ reason: "must be greater than 0" });
    expect(parseAmount(-5)).toEqual({ reason: "must be greater than 0" });
    expect(parseAmount(0)).toEqual({ reason: "must be greater than 0" });
    expect(parseAmount(Number.NaN)).toEqual({ reason: "is not a number" });
    expect(parseAmount(Number.POSITIVE_INFINITY)).toEqual({ reason: "is not a number" });
    expect(parseAmount(true)).toEqual({ reason: "is not a number" });
    expect(parseAmount("12,34,567")).toHaveProperty("reason");
    expect(parseAmount("1234,567")).toHaveProperty("reason");
    expect(parseAmount("1,234,567.")).toHaveProperty("reason");
    expect(parseAmount("x1000")).toHaveProperty("reason");
    expect(parseAmount("1000x")).toHaveProperty("reason");
    expect(roundToCent(2.675)).toBe(2.68);
  });

  it("maps every header synonym, and ignores blank headers", () => {
    expect(mapColumns(["", "Market", "Side", "Amount (USD)", "Tenor"]).index).toEqual({ market: 1, side: 2, notional: 3, tenor: 4 });
    expect(mapColumns(["Notional", "Symbol", "Client Reference"]).index).toEqual({ notional: 0, market: 1, clientReference: 2 });
    expect(mapColumns(["", " ", "?"]).index).toEqual({});
  });
});

describe("an Action column: each row carries its own action (a proposal)", () => {
  const PROPOSAL: CellValue[][] = [
    ["Action", "Market", "Side", "Amount (USD)", "Tenor (days)", "Client reference", "Current (USD)", "Target (USD)", "Reason"],
    ["Close", "USDTNGN", "sell", "", "", "TARGET-2026-11-25-USDTNGN-SELL-1", 20_000, 0, "Close: target 0.00"],
    ["reduce", "USDTKES", "buy", 30_000, "", "", 130_000, 100_000, ""],
    ["OPEN", "USDTNGN", "buy", 500_000, 7, "TARGET-2026-11-25-USDTNGN-BUY-1", 0, 750_000, ""],
    ["Add", "USDTNGN", "buy", 250_000, "", "TARGET-2026-11-25-USDTNGN-BUY-2", 0, 750_000, ""],
    ["", "", "", "", "", "", "", "", "a note under the proposal"],
  ];

  it("whatever the batch's choice, each row's action comes from its cell; the read says 'column'", async () => {
    const r = await read("open", PROPOSAL);
    expect(r.action).toBe("column");
    expect(r.problems).toEqual([]);
    expect(r.rows.map((x) => [x.rowNumber, x.action, x.market, x.side, x.notional, x.tenor, x.clientReference])).toEqual([
      [2, "close", "USDTNGN", "sell", null, null, "TARGET-2026-11-25-USDTNGN-SELL-1"],
      [3, "reduce", "USDTKES", "buy", 30_000, null, null],
      [4, "open", "USDTNGN", "buy", 500_000, 7, "TARGET-2026-11-25-USDTNGN-BUY-1"],
      [5, "add", "USDTNGN", "buy", 250_000, null, "TARGET-2026-11-25-USDTNGN-BUY-2"],
    ]);
    expect(r.blankRows).toEqual([6]);
  });

  it("a bad or empty action is named with the fix; each row is checked for its own action's fields", async () => {
    const r = await read("close", [
      ["Action", "Market", "Side", "Amount", "Tenor", "Reference"],
      ["Buy", "USDTNGN", "buy", 5, 7, "A"],
      ["", "USDTNGN", "buy", 5, 7, "B"],
      ["Open", "USDTNGN", "buy", 5, "", "C"],
      ["Close", "USDTNGN", "sell", "", "", ""],
    ]);
    expect(r.problems.map((p) => p.message)).toEqual([
      'Row 2: Action "Buy" — use Open, Add, Reduce or Close.',
      "Row 3: Action is empty — use Open, Add, Reduce or Close.",
      "Row 4: Tenor is empty — use 1, 3 or 7 (days).",
    ]);
    // Each problem names the cell it is about, with what the cell holds.
    expect(r.problems.map((p) => [p.field, p.value])).toEqual([
      ["action", "Buy"],
      ["action", ""],
      ["tenor", ""],
    ]);
    expect(r.rows.map((x) => x.action)).toEqual(["close"]);
  });

  it("a row with its Action alone is no blank row: each cell its action needs is named", async () => {
    const r = await read("open", [
      ["Action", "Market", "Side", "Amount", "Tenor", "Reference"],
      ["Open", "", "", "", "", ""],
    ]);
    expect(r.blankRows).toEqual([]);
    expect(r.problems.map((p) => p.field)).toEqual(["market", "side", "notional", "tenor", "clientReference"]);
  });

  it("the Action column is found by any case of its name; two Action columns are refused", async () => {
    const lower = await read("open", [
      ["action", "Market", "Side"],
      [" Close ", "USDTNGN", "buy"],
    ]);
    expect([lower.action, lower.rows.map((x) => x.action)]).toEqual(["column", ["close"]]);
    const twice = await read("open", [
      ["Action", "Market", "Side", "Action"],
      ["Close", "USDTNGN", "buy", "Close"],
    ]);
    expect(twice.problems.map((p) => p.message)).toEqual([
      "Row 1: columns Action and Action both mean Action — rename or remove all but one.",
    ]);
  });

  it("a column several actions need is asked for by all of them; a row whose action cannot be read asks for none", async () => {
    const r = await read("open", [
      ["Action", "Market", "Side", "Tenor", "Reference"],
      ["Open", "USDTNGN", "buy", 7, "A"],
      ["Add", "USDTNGN", "buy", "", "B"],
      ["Buy", "USDTNGN", "buy", "", "C"],
    ]);
    expect(r.problems.map((p) => p.message)).toEqual([
      "Row 1: no Notional column — Open and Add rows need one: add a column headed Notional or Amount.",
    ]);
  });

  it("a column only some actions need is asked for by the actions present", async () => {
    const r = await read("open", [
      ["Action", "Market", "Side", "Amount"],
      ["Open", "USDTNGN", "buy", 5],
      ["Add", "USDTNGN", "buy", 5],
    ]);
    expect(r.problems.map((p) => p.message)).toEqual([
      "Row 1: no Tenor column — Open rows need one: add a column headed Tenor.",
      "Row 1: no Client reference column — Open rows need one: add a column headed Client reference, Deal id or Reference.",
    ]);
    const closes = await read("open", [
      ["Action", "Market", "Side"],
      ["Close", "USDTNGN", "buy"],
    ]);
    expect(closes.problems).toEqual([]);
  });
});
