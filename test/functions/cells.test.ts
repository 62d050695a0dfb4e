// Cell shaping: Excel date serials (UTC, unrounded), tables with header rows, field/value spills, nested field names.
import { excelSerial, fieldValues, serialFromMs, table, toCell } from "../../src/functions/cells";

describe("excelSerial", () => {
  test("counts days since 1899-12-30 in UTC, the time of day as the fraction", () => {
    expect(excelSerial("1899-12-31T00:00:00Z")).toBe(1);
    expect(excelSerial("1970-01-01T00:00:00Z")).toBe(25_569);
    expect(excelSerial("2025-01-06T12:00:00Z")).toBe(45_663.5);
  });

  test("an offset is converted to UTC; no offset means UTC", () => {
    expect(excelSerial("2025-01-06T13:00:00+01:00")).toBe(45_663.5);
    expect(excelSerial("2025-01-06T12:00:00")).toBe(45_663.5);
    expect(excelSerial("2025-01-06")).toBe(45_663);
  });

  test("is not rounded: one millisecond shows", () => {
    const a = excelSerial("2025-01-06T12:00:00.000Z") as number;
    const b = excelSerial("2025-01-06T12:00:00.001Z") as number;
    expect((b - a) * 86_400_000).toBeCloseTo(1, 3);
    expect(serialFromMs(Date.UTC(2025, 0, 6, 12, 0, 0, 1))).toBe(b);
  });

  test("text that is not a date stays text", () => {
    expect(excelSerial("soon")).toBe("soon");
  });
});

describe("shapes", () => {
  test("timestamps become serials, missing values empty cells", () => {
    expect(toCell("maturity_at", "2025-01-06T12:00:00Z")).toBe(45_663.5);
    expect(toCell("fill_tx_hash", null)).toBe("");
    expect(toCell("order_key", undefined)).toBe("");
    expect(toCell("client_reference", "2025-01-06T12:00:00Z")).toBe("2025-01-06T12:00:00Z");
  });

  test("a table has a header row; nested fields are read by dotted name", () => {
    const rows = [
      { market: "A", rate: { buy: 1, sell: 2 } },
      { market: "B", rate: { buy: 3, sell: 4 } },
    ];
    expect(table(rows, ["market", "rate.sell"])).toEqual([
      ["market", "rate.sell"],
      ["A", 2],
      ["B", 4],
    ]);
    expect(table([], ["market"])).toEqual([["market"]]);
  });

  test("a field/value spill has two columns", () => {
    expect(fieldValues({ a: 1, b: { c: "x" } }, ["a", "b.c", "d"])).toEqual([
      ["a", 1],
      ["b.c", "x"],
      ["d", ""],
    ]);
  });
});
