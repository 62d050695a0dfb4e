// The Hedge Log's hash chain: fixed vectors of the canonical form and the hash, and month end's check flagging each kind of edit at its row and nothing in an untouched log.
import { createHash } from "node:crypto";
import {
  CHAIN_START,
  canonicalBody,
  canonicalFinal,
  checkChain,
  finalHashOf,
  rowHashOf,
  type ChainRow,
} from "../../../src/trading/log/log-chain";
import { hashOf } from "../../../src/trading/log/digest";
import type { LogRecord } from "../../../src/trading/log/hedge-log";

const body = (i: number): Partial<LogRecord> => ({
  loggedAt: new Date(Date.UTC(2026, 10, 1, 9) + i * 60_000).toISOString(),
  environment: "sandbox",
  action: i % 4 === 0 ? "open" : "add",
  market: "USDTNGN",
  side: i % 2 ? "sell" : "buy",
  notional: 10_000 + i * 0.01,
  tenor: i % 4 === 0 ? 7 : null,
  clientReference: `D-${i}`,
  idempotencyKey: `key-${i}`,
  account: "0x00000000000000000000000000000000000000aa",
});
const outcome = (i: number): Partial<LogRecord> => ({
  status: "filled",
  hedgeId: `h-${i}`,
  struckRate: 1500.25,
  filledAt: "2026-11-01T10:00:00.000Z",
  message: null,
});

/** A log of n rows the add-in wrote, chained and sealed, as month end reads it (sheet row 2 on). */
function chainedLog(n: number): ChainRow[] {
  const rows: ChainRow[] = [];
  let prev = CHAIN_START;
  for (let i = 0; i < n; i++) {
    const record = { ...body(i), ...outcome(i) };
    const rowHash = rowHashOf(prev, record);
    rows.push({ rowNumber: i + 2, record, chain: { prevHash: prev, rowHash, finalHash: finalHashOf(rowHash, record) }, final: true });
    prev = rowHash;
  }
  return rows;
}
const renumber = (rows: ChainRow[]) => rows.map((r, i) => ({ ...r, rowNumber: i + 2 }));
const kinds = (rows: ChainRow[], head: string | null = null) => checkChain(rows, head).map((f) => [f.kind, f.rowNumber]);

describe("the canonical form and the hash (fixed vectors)", () => {
  it("SHA-256 is the standard one (FIPS 180-2 vector), and a link is the hash of the previous link and the body joined by a newline", () => {
    expect(hashOf("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const record = body(1);
    const oracle = createHash("sha256")
      .update(`${CHAIN_START}\n${canonicalBody(record)}`)
      .digest("hex");
    expect(rowHashOf(CHAIN_START, record)).toBe(oracle);
  });

  it("the body is the sent fields in a fixed order, amounts to the cent, times to the second in UTC, empty cells null", () => {
    expect(canonicalBody({ ...body(1), loggedAt: "2026-11-01T10:01:00.4+01:00" })).toBe(
      '["2026-11-01T09:01:00.000Z","sandbox","add","USDTNGN","sell","10000.01",null,"D-1","key-1","0x00000000000000000000000000000000000000aa",null,null,null]',
    );
    // What Excel gives back of the same row hashes alike: a time a millisecond off, an amount as 10000.010000000002.
    expect(canonicalBody({ ...body(1), loggedAt: "2026-11-01T09:01:00.001Z", notional: 10_000.010000000002 })).toBe(canonicalBody(body(1)));
    expect(canonicalFinal({ status: "filled", struckRate: 1500.25, message: "" })).toBe(
      '["filled",null,null,null,1500.25,null,null,null,null,null,null,null]',
    );
  });

  it("a row sent under an approval: the batch hash and both fingerprints are body, after the account; the chain's own cells are in neither form", () => {
    const approved: Partial<LogRecord> = {
      ...body(0),
      batchHash: "9f2c".repeat(16),
      preparedBy: "fp-0123456789abcdef",
      approvedBy: "fp-fedcba9876543210",
      prevHash: "1".repeat(64),
      rowHash: "2".repeat(64),
      finalHash: "3".repeat(64),
    };
    const spelled =
      '["2026-11-01T09:00:00.000Z","sandbox","open","USDTNGN","buy","10000.00",7,"D-0","key-0","0x00000000000000000000000000000000000000aa",' +
      `"${"9f2c".repeat(16)}","fp-0123456789abcdef","fp-fedcba9876543210"]`;
    expect(canonicalBody(approved)).toBe(spelled);
    const link = createHash("sha256").update(`${CHAIN_START}\n${spelled}`).digest("hex");
    expect(rowHashOf(CHAIN_START, approved)).toBe(link);
    // The seal covers the outcome only: its own cell, the links and the approval are not in it.
    const finalState = '["filled","h-0",null,null,1500.25,"2026-11-01T10:00:00.000Z",null,null,null,null,null,null]';
    expect(canonicalFinal({ ...approved, ...outcome(0) })).toBe(finalState);
    expect(finalHashOf(link, { ...approved, ...outcome(0) })).toBe(createHash("sha256").update(`${link}\n${finalState}`).digest("hex"));
    // A row without an approval hashes otherwise than the same row with one: editing a fingerprint breaks the link.
    expect(rowHashOf(CHAIN_START, { ...approved, approvedBy: "fp-0123456789abcdef" })).not.toBe(link);
  });
});

describe("month end's check of the chain", () => {
  it("an untouched log of 5,000 rows: nothing flagged", () => {
    const rows = chainedLog(5_000);
    expect(checkChain(rows, rows[rows.length - 1].chain.rowHash)).toEqual([]);
  });

  it("an amount edited after it was written is flagged at its row; the rows after it are not", () => {
    const rows = chainedLog(10);
    rows[4] = { ...rows[4], record: { ...rows[4].record, notional: 99_999 } };
    expect(kinds(rows)).toEqual([["edited", 6]]);
  });

  it("an outcome edited after the row was final, and a status made final by hand, are flagged at their rows", () => {
    const rows = chainedLog(6);
    rows[1] = { ...rows[1], record: { ...rows[1].record, struckRate: 1400 } };
    rows[3] = { ...rows[3], chain: { ...rows[3].chain, finalHash: null } };
    expect(kinds(rows)).toEqual([
      ["edited_after_final", 3],
      ["not_sealed", 5],
    ]);
  });

  it("a deleted row is flagged at the row after it; a row moved is flagged at its row; a row typed or pasted in is inserted", () => {
    const deleted = chainedLog(8);
    deleted.splice(3, 1);
    expect(kinds(renumber(deleted))).toEqual([["deleted_before", 5]]);
    const swapped = chainedLog(8);
    [swapped[2], swapped[3]] = [swapped[3], swapped[2]];
    // One of the two is the fewest that moved; its finding names the row it was written after.
    expect(checkChain(renumber(swapped))).toEqual([{ kind: "moved", rowNumber: 4, message: "Row 4: moved: it was written after row 5." }]);
    const movedUp = chainedLog(8);
    movedUp.splice(1, 0, movedUp.splice(6, 1)[0]);
    expect(kinds(renumber(movedUp))).toEqual([["moved", 3]]);
    const typed = chainedLog(4);
    typed.splice(2, 0, { rowNumber: 0, record: body(99), chain: { prevHash: null, rowHash: null, finalHash: null }, final: false });
    typed.push({ ...typed[1] });
    expect(kinds(renumber(typed))).toEqual([
      ["inserted", 4],
      ["inserted", 7],
    ]);
  });

  it("the last row cut off is seen against the head this computer's journal kept; rows older than the chain are named, not judged", () => {
    const rows = chainedLog(5);
    const head = rows[4].chain.rowHash;
    expect(kinds(rows.slice(0, 4), head)).toEqual([["cut_off", 5]]);
    const older: ChainRow[] = [0, 1].map((i) => ({
      rowNumber: i + 2,
      record: body(100 + i),
      chain: { prevHash: null, rowHash: null, finalHash: null },
      final: true,
    }));
    const findings = checkChain(renumber([...older, ...rows]), head);
    expect(findings).toEqual([{ kind: "before_chain", rowNumber: 2, message: expect.stringContaining("2 row(s) from row 2") }]);
  });
});
