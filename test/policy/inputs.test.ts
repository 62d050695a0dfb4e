// Reading HEDGE.TARGET's ranges as a user types them: cell addresses in messages (past column Z, hidden rows, other sheets), amounts as text, dates, defaults, and every bad cell's message whole.
import {
  columnLetters,
  dateMs,
  originOf,
  readExposures,
  readHoldings,
  readPolicy,
  serviceHoldings,
  TargetInputError,
  type InputCell,
  type InputRange,
} from "../../src/policy/inputs";

/** The message a call throws (a TargetInputError), or "" when it does not throw. */
function message(call: () => unknown): string {
  try {
    call();
  } catch (e) {
    expect(e).toBeInstanceOf(TargetInputError);
    expect((e as Error).name).toBe("TargetInputError");
    return (e as Error).message;
  }
  return "";
}

const exposures = (rows: InputCell[][], origin?: InputRange["origin"]) =>
  readExposures({ values: [["Market", "Side", "Amount (USD)"], ...rows], origin });
const amountOf = (cell: InputCell) => exposures([["USDTNGN", "buy", cell]])[0].amountUsd;

describe("cell addresses", () => {
  test.each<[number, string]>([
    [1, "A"],
    [26, "Z"],
    [27, "AA"],
    [52, "AZ"],
    [53, "BA"],
    [702, "ZZ"],
    [703, "AAA"],
    [16_384, "XFD"],
  ])("column %i is %s", (n, letters) => expect(columnLetters(n)).toBe(letters));

  test.each<[unknown, InputRange["origin"]]>([
    ["Model!$B$4:$D$9", { row: 4, column: 2, sheet: "Model" }],
    ["'My sheet'!A1:C3", { row: 1, column: 1, sheet: "My sheet" }],
    ["'It''s'!$AB$10", { row: 10, column: 28, sheet: "It's" }],
    ["  c7  ", { row: 7, column: 3 }],
    ["XFD1048576", { row: 1_048_576, column: 16_384 }],
    ["AB10", { row: 10, column: 28 }],
    ["Sheet1!B2,D4", { row: 2, column: 2, sheet: "Sheet1" }],
    ["not an address", undefined],
    ["Model!", undefined],
    ["Model!B", undefined],
    ["B2:", { row: 2, column: 2 }],
    ["B2 trailing", undefined],
    ["ABCD1", undefined],
    [42, undefined],
    [undefined, undefined],
  ])("%p → %p", (address, origin) => expect(originOf(address)).toStrictEqual(origin));

  test("a cell past column Z, on a sheet named in the message; without a sheet, the cell alone", () => {
    const bad = [["USDTNGN", "buy", "lots"]];
    expect(message(() => exposures(bad, { row: 10, column: 26, sheet: "Model" }))).toBe(
      'exposures, cell Model!AB11 (row 11, column Amount (USD)): "lots" is not a number: give the USD amount, 0 or more, e.g. 250,000 (the side says which way).',
    );
    expect(message(() => exposures(bad, { row: 1, column: 1 }))).toBe(
      'exposures, cell C2 (row 2, column Amount (USD)): "lots" is not a number: give the USD amount, 0 or more, e.g. 250,000 (the side says which way).',
    );
  });

  test("a selection without its hidden rows names the sheet row of the bad row, not its place in the range", () => {
    const range: InputRange = {
      values: [
        ["Market", "Side", "Amount (USD)"],
        ["USDTNGN", "buy", 5],
        ["USDTNGN", "sideways", 5],
      ],
      origin: { row: 3, column: 1, rowNumbers: [3, 8, 12] },
    };
    expect(message(() => readExposures(range))).toBe('exposures, cell B12 (row 12, column Side): "sideways": use buy or sell.');
  });
});

describe("amounts as typed", () => {
  test.each<[InputCell, number]>([
    [250_000, 250_000],
    ["1,250,000", 1_250_000],
    ["$250,000", 250_000],
    ["USD 1,000.50", 1_000.5],
    ["usdc1000", 1_000],
    ["1000 USDC", 1_000],
    ["1 000 000", 1_000_000],
    ["1\u00a0000", 1_000],
    ["1'000'000", 1_000_000],
    ["1_000", 1_000],
    ["  12.345  ", 12.35],
    [" $250,000 ", 250_000],
    [" USD 5 ", 5],
    ["0", 0],
    [1e12, 1e12],
  ])("%p reads %p", (cell, usd) => expect(amountOf(cell)).toBe(usd));

  test.each<[InputCell, string]>([
    ["1,25", "is not a number"],
    ["12,3456", "is not a number"],
    [",100", "is not a number"],
    ["1.", "is not a number"],
    ["$ 5 $", "is not a number"],
    ["5 USD x", "is not a number"],
    ["x5", "is not a number"],
    ["1$000", "is not a number"],
    ["1 USD 000", "is not a number"],
    ["1e3", "is not a number"],
    [true, "is not a number"],
    [Infinity, "is not a number"],
    [NaN, "is not a number"],
    [1e12 + 0.01, "is out of range"],
    [-0.01, "is out of range"],
    ["-5", "is out of range"],
  ])("%p %s", (cell, what) => {
    expect(message(() => amountOf(cell))).toMatch(new RegExp(`column Amount \\(USD\\): .*${what}: give the USD amount, 0 or more`));
  });

  test("an empty amount is named", () => {
    expect(message(() => amountOf("  "))).toBe(
      "exposures, row 2 of the range, column Amount (USD): Amount is empty: give the USD amount, e.g. 250,000.",
    );
  });
});

describe("dates", () => {
  test.each<[InputCell, number]>([
    [1, Date.UTC(1899, 11, 31)],
    [46_355.5, Date.UTC(2026, 10, 29, 12)],
    [2_958_465, Date.UTC(9999, 11, 31)],
    ["2026-11-30", Date.UTC(2026, 10, 30)],
    [" 2026-11-30T17:00Z ", Date.UTC(2026, 10, 30, 17)],
  ])("%p is %p", (cell, ms) => expect(dateMs(cell)).toBe(ms));

  test.each<InputCell>([0.999, 2_958_466, -1, Infinity, NaN, true, null, undefined, "soon"])("%p is no date", (cell) => {
    expect(dateMs(cell)).toBeNaN();
  });

  test("one value date cell repeated reads the same each time; a bad one is named on each row where it stands", () => {
    const rows = readExposures({
      values: [
        ["Market", "Side", "Amount", "Value date"],
        ["USDTNGN", "buy", 1, "2026-12-31"],
        ["USDTKES", "sell", 2, "2026-12-31"],
        ["USDTNGN", "buy", 3, ""],
      ],
    });
    expect(rows).toEqual([
      { market: "USDTNGN", side: "buy", amountUsd: 1, valueDateMs: Date.UTC(2026, 11, 31) },
      { market: "USDTKES", side: "sell", amountUsd: 2, valueDateMs: Date.UTC(2026, 11, 31) },
      { market: "USDTNGN", side: "buy", amountUsd: 3 },
    ]);
    const twice = () =>
      readExposures({
        values: [
          ["Market", "Side", "Amount", "Due"],
          ["USDTNGN", "buy", 1, "2026-12-31"],
          ["USDTNGN", "buy", 1, "someday"],
        ],
      });
    expect(message(twice)).toBe(
      'exposures, row 3 of the range, column Value date: "someday" is not a date: give the day it is paid, an Excel date or ISO text such as 2026-12-31, or leave it empty.',
    );
  });
});

describe("markets and sides", () => {
  test("a market and a side repeated read the same each time, whatever their spelling", () => {
    expect(
      exposures([
        ["usdt/ngn", " BUY ", 1],
        ["usdt/ngn", "Sell", 2],
        ["USDT NGN", "buy", 3],
      ]),
    ).toEqual([
      { market: "USDTNGN", side: "buy", amountUsd: 1 },
      { market: "USDTNGN", side: "sell", amountUsd: 2 },
      { market: "USDTNGN", side: "buy", amountUsd: 3 },
    ]);
  });

  test.each<[InputCell[][], string]>([
    [[["", "buy", 1]], "exposures, row 2 of the range, column Market: Market is empty: give the market symbol, e.g. USDTNGN."],
    [[["*", "buy", 1]], 'exposures, row 2 of the range, column Market: "*" is not a market symbol: use one such as USDTNGN.'],
    [
      [
        ["US", "buy", 1],
        ["US", "buy", 1],
      ],
      'exposures, row 2 of the range, column Market: "US" is not a market symbol: use one such as USDTNGN.',
    ],
    [[["USDTNGN", " ", 1]], "exposures, row 2 of the range, column Side: Side is empty: use buy or sell."],
    [[["USDTNGN", 7, 1]], "exposures, row 2 of the range, column Side: 7: use buy or sell."],
    [[["USDTNGN", "  long  ", 1]], 'exposures, row 2 of the range, column Side: "long": use buy or sell.'],
  ])("%j: %s", (rows, text) => expect(message(() => exposures(rows))).toBe(text));

  test("an empty policy market says * is allowed there; a * exposure market is not", () => {
    expect(
      message(() =>
        readPolicy({
          values: [
            ["Market", "Ratio", "Tenor"],
            [null, 50, 7],
          ],
        }),
      ),
    ).toBe(
      "policy, row 2 of the range, column Market: Market is empty: give the market symbol, e.g. USDTNGN, or * for every other market.",
    );
  });

  test("a policy market given as a number is read as text, and refused when it is no symbol", () => {
    expect(
      message(() =>
        readPolicy({
          values: [
            ["Market", "Ratio", "Tenor"],
            [0, 50, 7],
          ],
        }),
      ),
    ).toBe("policy, row 2 of the range, column Market: 0 is not a market symbol: use one such as USDTNGN.");
  });

  test("a policy market already read for another row is still checked for a second row", () => {
    expect(
      message(() =>
        readPolicy({
          values: [
            ["Market", "Ratio", "Tenor"],
            [" * ", 50, 7],
            ["*", 60, 7],
          ],
        }),
      ),
    ).toBe("policy, row 3 of the range, column Market: * also has a policy row above: keep one row per market.");
  });
});

describe("ranges and headers", () => {
  test.each<[string, () => unknown, string]>([
    ["no rows at all", () => readExposures({ values: [] }), "exposures: give a range whose first row holds the headers."],
    ["a single value", () => readPolicy({ values: "x" as never }), "policy: give a range whose first row holds the headers."],
    [
      "no values at all (null)",
      () => readExposures({ values: null as never }),
      "exposures: give a range whose first row holds the headers.",
    ],
    [
      "a first row that is no row",
      () => readHoldings({ values: ["Market"] as never }),
      "positions: give a range whose first row holds the headers.",
    ],
    [
      "no Amount column",
      () => readExposures({ values: [["Market", "Side"]] }),
      "exposures: no Amount (USD) column. Add a column headed Amount (USD) (also read: amount, amountusd, exposure; case, spaces and punctuation are ignored).",
    ],
    [
      "no Market column in the positions",
      () => readHoldings({ values: [["Side", "Size"]] }),
      "positions: no Market column. Add a column headed Market (also read: market, pair, symbol; case, spaces and punctuation are ignored).",
    ],
    [
      "no Tenor column in the policy",
      () => readPolicy({ values: [["Market", "Ratio"]] }),
      "policy: no Tenor (days) column. Add a column headed Tenor (days) (also read: tenor, tenordays; case, spaces and punctuation are ignored).",
    ],
    [
      "two size columns",
      () => readHoldings({ values: [["Market", "Side", "Size (USD)", "Notional"]] }),
      "positions: columns Size (USD) and Notional both mean Size (USD): rename or remove all but one.",
    ],
  ])("%s", (_name, call, text) => expect(message(call)).toBe(text));

  test("a blank header and a blank row are skipped; a header that is a number is read as text", () => {
    expect(
      readExposures({
        values: [
          ["Market", null, "Side", 2026, "Amount"],
          ["USDTNGN", "x", "sell", "y", 5],
          [null, "", "  ", undefined, null],
        ],
      }),
    ).toEqual([{ market: "USDTNGN", side: "sell", amountUsd: 5 }]);
  });
});

describe("every header the guide lists is read (src/functions/README.md, The inputs)", () => {
  test.each<[string, string[]]>([
    ["Market", ["Market", "Pair", "Symbol"]],
    ["Side", ["Side", "Direction"]],
    ["Amount (USD)", ["Amount", "Amount (USD)", "Exposure", "Exposure (USD)", "Notional", "Notional (USD)"]],
    ["Value date", ["Value date", "Due", "Due date", "Settlement date"]],
  ])("exposures' %s: %j", (_column, headers) => {
    for (const header of headers) {
      const names = ["Market", "Side", "Amount", "Value date"].map((h) => (h === _column.replace(" (USD)", "") ? header : h));
      const [e] = readExposures({ values: [names, ["USDTNGN", "sell", 5, "2026-12-31"]] });
      expect([header, e]).toEqual([header, { market: "USDTNGN", side: "sell", amountUsd: 5, valueDateMs: Date.UTC(2026, 11, 31) }]);
    }
  });

  test.each<[number, string[], InputCell, Partial<Record<string, unknown>>]>([
    [1, ["Hedge ratio", "Hedge ratio (%)", "Ratio", "Ratio (%)", "Hedge %"], 40, { ratio: 0.4 }],
    [2, ["Tenor", "Tenor (days)"], 3, { tenor: 3 }],
    [3, ["Round to", "Round to (USD)", "Rounding", "Rounding (USD)"], 500, { roundToUsd: 500 }],
    [4, ["Min trade", "Min trade (USD)", "Minimum trade", "Minimum trade (USD)"], 700, { minTradeUsd: 700 }],
    [5, ["Max trade", "Max trade (USD)", "Maximum trade", "Maximum trade (USD)"], 900, { maxTradeUsd: 900 }],
    [6, ["Net sides", "Net"], "no", { netSides: false }],
    [7, ["Roll within", "Roll within (hours)", "Roll window", "Roll window (hours)"], 6, { rollWithinHours: 6 }],
    [8, ["Roll", "Roll mode", "Rolls"], " Early ", { roll: "early" }],
    [8, ["Roll"], "at-maturity", { roll: "at maturity" }],
    [8, ["Roll"], "Maturity", { roll: "at maturity" }],
    [8, ["Roll"], "At _ Maturity", { roll: "at maturity" }],
    [9, ["Working days", "Work days", "Business days"], "Mon-Fri", { workingDays: [1, 2, 3, 4, 5] }],
  ])("policy column %i: %j", (i, headers, cell, read) => {
    const names = ["Market", "Ratio", "Tenor", "Round to", "Min trade", "Max trade", "Net", "Roll within", "Roll", "Working days"];
    const row: InputCell[] = ["*", 100, 7, 1, 0, 1_000, "yes", 24, "", ""];
    row[i] = cell;
    for (const header of headers) {
      const values = [names.map((h, j) => (j === i ? header : h)), row];
      expect([header, readPolicy({ values })[0]]).toEqual([header, expect.objectContaining(read)]);
    }
  });

  test.each<[string, string[]]>([
    ["Size (USD)", ["Size", "Size (USD)", "size_usd", "Notional", "Notional (USD)", "Amount", "Amount (USD)", "Current", "Current (USD)"]],
    ["Maturity", ["Maturity", "Maturity at", "maturity_at", "Maturity date"]],
  ])("positions' %s: %j", (column, headers) => {
    for (const header of headers) {
      const names = ["Market", "Side", column === "Maturity" ? "Size" : header, column === "Maturity" ? header : "Maturity"];
      const [h] = readHoldings({ values: [names, ["USDTNGN", "buy", 5, "2026-11-30T17:00Z"]] });
      expect([header, h]).toEqual([header, { market: "USDTNGN", side: "buy", sizeUsd: 5, maturityMs: Date.UTC(2026, 10, 30, 17) }]);
    }
  });
});

describe("the policy's cells", () => {
  const policy = (header: string[], row: InputCell[]) =>
    readPolicy({
      values: [
        ["Market", "Ratio", "Tenor", ...header],
        ["*", ...row],
      ],
    });

  test("left out: Round to 0.01 (to the cent), Min trade 0, no Max trade, sides netted, Roll within 24, Roll at maturity, every day a working day", () => {
    expect(policy([], [75, "7 days"])).toEqual([
      {
        market: "*",
        ratio: 0.75,
        tenor: 7,
        roundToUsd: 0.01,
        minTradeUsd: 0,
        maxTradeUsd: null,
        netSides: true,
        rollWithinHours: 24,
        roll: "at maturity",
        workingDays: [0, 1, 2, 3, 4, 5, 6],
      },
    ]);
  });

  test.each<[InputCell, boolean]>([
    [true, true],
    ["Yes", true],
    ["y", true],
    [" TRUE ", true],
    ["1", true],
    [1, true],
    ["", true],
    [false, false],
    ["No", false],
    ["n", false],
    ["false", false],
    ["0", false],
    [0, false],
  ])("Net sides %p is %p", (cell, net) => expect(policy(["Net"], [100, 7, cell])[0].netSides).toBe(net));

  test("a ratio under one percent is taken when typed as text with its sign; 1 and 0 as numbers are percentages", () => {
    expect([
      policy([], ["0.5%", 7])[0].ratio,
      policy([], ["0.5", 7])[0].ratio,
      policy([], [1, 7])[0].ratio,
      policy([], [0, 7])[0].ratio,
    ]).toEqual([0.005, 0.005, 0.01, 0]);
  });

  test.each<[string[], InputCell[], string]>([
    [[], ["", 7], "policy, row 2 of the range, column Hedge ratio (%): Hedge ratio is empty: give a percentage from 0 to 100, e.g. 75."],
    [[], [-1, 7], "policy, row 2 of the range, column Hedge ratio (%): -1 is out of range: give a percentage from 0 to 100, e.g. 75."],
    [
      [],
      [100.01, 7],
      "policy, row 2 of the range, column Hedge ratio (%): 100.01 is more than 100: give a percentage from 0 to 100, e.g. 75.",
    ],
    [
      [],
      [0.75, 7],
      'policy, row 2 of the range, column Hedge ratio (%): 0.75 would be 0.75 %; a cell formatted as a percentage holds 0.75 for 75 %: type the percentage as a number (75) or as text ("75%", or "0.75%" if you mean under one percent).',
    ],
    [[], [50, ""], "policy, row 2 of the range, column Tenor (days): Tenor is empty: use 1, 3 or 7 (days)."],
    [[], [50, "2 days"], 'policy, row 2 of the range, column Tenor (days): "2 days": use 1, 3 or 7 (days).'],
    [
      ["Round to"],
      [50, 7, 0],
      "policy, row 2 of the range, column Round to (USD): 0 is out of range: give the USD step to round targets to, e.g. 1,000 (0.01 at least).",
    ],
    [
      ["Min trade"],
      [50, 7, -1],
      "policy, row 2 of the range, column Min trade (USD): -1 is out of range: give the smallest change worth trading in USD, e.g. 10,000 (0 trades any).",
    ],
    [
      ["Max trade"],
      [50, 7, 0],
      "policy, row 2 of the range, column Max trade (USD): 0 is out of range: give the largest USD amount of one row, e.g. 500,000, or leave it empty.",
    ],
    [["Net sides"], [50, 7, "maybe"], 'policy, row 2 of the range, column Net sides: "maybe": use yes or no (empty means yes).'],
    [
      ["Roll within"],
      [50, 7, 24.01],
      "policy, row 2 of the range, column Roll within (hours): 24.01 is more than 24: give hours from 0 to 24, at most the shortest tenor, so a hedge just rolled is never rolled again at once.",
    ],
    [["Roll"], [50, 7, "later"], 'policy, row 2 of the range, column Roll: "later": use at maturity or early (empty means at maturity).'],
    [
      ["Working days"],
      [50, 7, "weekdays"],
      'policy, row 2 of the range, column Working days: "weekdays" names no weekdays: use days or ranges of days such as Mon-Fri or Sun-Thu, Sat (empty means every day).',
    ],
    [
      ["Roll within"],
      [50, 7, "soon"],
      'policy, row 2 of the range, column Roll within (hours): "soon" is not a number: give the hours before a maturity when the hedge is rolled, from 0 to 24 (empty means 24).',
    ],
  ])("%j %j: %s", (header, row, text) => expect(message(() => policy(header, row))).toBe(text));

  test("the edges allowed: ratio 0 and 100 %, Round to and Max trade 0.01, Min trade 0, Roll within 0 and 24", () => {
    const [p] = policy(["Round to", "Min trade", "Max trade", "Roll within"], ["100 %", 1, 0.01, 0, 0.01, "0"]);
    expect(p).toMatchObject({ ratio: 1, tenor: 1, roundToUsd: 0.01, minTradeUsd: 0, maxTradeUsd: 0.01, rollWithinHours: 0 });
    expect(policy(["Roll within"], [0, 3, 24])[0]).toMatchObject({ ratio: 0, tenor: 3, rollWithinHours: 24 });
  });
});

describe("open positions", () => {
  test("a size left empty is 0; a maturity is kept when given; a side's rows are kept apart", () => {
    expect(
      readHoldings({
        values: [
          ["Market", "Side", "Size", "Maturity"],
          ["USDTNGN", "buy", "", ""],
          ["USDTNGN", "buy", 5, "2026-11-30T17:00Z"],
        ],
      }),
    ).toEqual([
      { market: "USDTNGN", side: "buy", sizeUsd: 0 },
      { market: "USDTNGN", side: "buy", sizeUsd: 5, maturityMs: Date.UTC(2026, 10, 30, 17) },
    ]);
  });

  test("a negative size is refused, named", () => {
    expect(
      message(() =>
        readHoldings({
          values: [
            ["Market", "Side", "Size"],
            ["USDTNGN", "buy", -1],
          ],
        }),
      ),
    ).toBe("positions, row 2 of the range, column Size (USD): -1 is out of range: give the open hedge's USD size, 0 or more.");
  });

  test("the service's positions: a maturity it gives is kept, one the client cannot read as a time is left out (never rolled)", () => {
    expect(
      serviceHoldings([
        { market: "USDTNGN", side: "buy", size_usd: 1_000, maturity_at: "2026-11-30T17:00:00Z" },
        { market: "USDTKES", side: "sell", size_usd: 2_000, maturity_at: "next Tuesday" },
        { market: "USDTZAR", side: "sell", size_usd: 3_000 } as never,
      ]),
    ).toEqual([
      { market: "USDTNGN", side: "buy", sizeUsd: 1_000, maturityMs: Date.UTC(2026, 10, 30, 17) },
      { market: "USDTKES", side: "sell", sizeUsd: 2_000 },
      { market: "USDTZAR", side: "sell", sizeUsd: 3_000 },
    ]);
  });

  test("a service position on a side neither buy nor sell is refused, named, whatever lines come before it", () => {
    const text = message(() =>
      serviceHoldings([
        { market: "USDTNGN", side: "buy", size_usd: 1, maturity_at: "2026-11-30T17:00:00Z" },
        { market: "USDTKES", side: "long" as never, size_usd: 1, maturity_at: "2026-11-30T17:00:00Z" },
      ]),
    );
    expect(text).toBe(
      'The service shows an open USDTKES position on the side "long", which is neither buy nor sell: no proposal is made until it is closed or the add-in understands that side.',
    );
  });
});
