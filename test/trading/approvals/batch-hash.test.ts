// The approval batch hash: a fixed vector of its canonical form, a hash any edit changes, and which row changed.
import { createHash } from "node:crypto";
import { batchChanges, batchHash, canonicalBatch } from "../../../src/trading/approvals/batch-hash";
import type { TradeRequest } from "../../../src/trading/types";

const rows: TradeRequest[] = [
  { action: "close", market: "USDTNGN", side: "sell", notional: null, tenor: null, clientReference: null },
  { action: "reduce", market: "USDTNGN", side: "buy", notional: 25_000.005, tenor: null, clientReference: "R-1" },
  { action: "open", market: "USDTNGN", side: "buy", notional: 100_000, tenor: 7, clientReference: "TARGET-2026-11-25-USDTNGN-BUY-1" },
];

describe("the batch hash", () => {
  it("covers action, market, side, amount to the cent, tenor and client reference, row by row in order (fixed vector)", () => {
    expect(canonicalBatch(rows)).toBe(
      [
        '["close","USDTNGN","sell",null,null,null]',
        '["reduce","USDTNGN","buy","25000.01",null,"R-1"]',
        '["open","USDTNGN","buy","100000.00",7,"TARGET-2026-11-25-USDTNGN-BUY-1"]',
      ].join("\n"),
    );
    expect(batchHash(rows)).toBe(
      createHash("sha256")
        .update(`hedge-batch-v1\n${canonicalBatch(rows)}`)
        .digest("hex"),
    );
  });

  it("bound to where and when it was prepared (hedge-batch-v2, fixed vector): the environment, the account (empty when not known) and Prepared at, then the rows", () => {
    const at = "2026-11-25T09:01:00.000Z";
    const v2 = (environment: string, account: string) =>
      createHash("sha256")
        .update(["hedge-batch-v2", environment, account, at, canonicalBatch(rows)].join("\n"))
        .digest("hex");
    expect(batchHash(rows, { environment: "sandbox", account: "0xACC0", preparedAt: at })).toBe(v2("sandbox", "0xACC0"));
    expect(batchHash(rows, { environment: "production", account: null, preparedAt: at })).toBe(v2("production", ""));
    expect(batchHash(rows, { environment: "sandbox", account: "0xACC0", preparedAt: at })).not.toBe(batchHash(rows));
  });

  it("the same rows read back (an amount as Excel keeps it, spaces around a reference) hash alike; any edit changes it", () => {
    const readBack = rows.map((r) => ({ ...r, clientReference: r.clientReference ? ` ${r.clientReference} ` : null }));
    readBack[1].notional = 25_000.01;
    expect(batchHash(readBack)).toBe(batchHash(rows));
    const edits: TradeRequest[][] = [
      rows.map((r, i) => (i === 2 ? { ...r, notional: 100_001 } : r)),
      rows.map((r, i) => (i === 0 ? { ...r, side: "buy" as const } : r)),
      [rows[1], rows[0], rows[2]],
      rows.slice(0, 2),
      [...rows, rows[2]],
    ];
    for (const e of edits) expect(batchHash(e)).not.toBe(batchHash(rows));
  });
});

describe("which row changed since it was prepared", () => {
  it("an amount edited names its row and field; a row removed, added or moved is named at its place", () => {
    expect(batchChanges(rows, rows)).toEqual([]);
    expect(
      batchChanges(
        rows,
        rows.map((r, i) => (i === 2 ? { ...r, notional: 100_001, tenor: 3 as const } : r)),
      ),
    ).toEqual([{ kind: "changed", position: 3, fields: ["notional", "tenor"] }]);
    expect(batchChanges(rows, [rows[0], rows[2]])).toEqual([
      { kind: "moved", position: 2, from: 3 },
      { kind: "removed", position: 2 },
    ]);
    expect(batchChanges(rows, [...rows, { ...rows[2], clientReference: "EXTRA" }])).toEqual([{ kind: "added", position: 4 }]);
    expect(batchChanges(rows, [rows[1], rows[0], rows[2]])).toEqual([
      { kind: "moved", position: 1, from: 2 },
      { kind: "moved", position: 2, from: 1 },
    ]);
  });
});
