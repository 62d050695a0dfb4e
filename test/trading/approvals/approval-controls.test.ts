// The approvals controls at their edges: what the approver was shown against the block now, a row's key and digest (fixed vectors), a block read back from edited cells, and the canonical cells the batch hash covers.
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { batchChanges, batchHash, canonicalRow } from "../../../src/trading/approvals/batch-hash";
import { approvalKey, blockLines, rowDigest, type ApprovalBatch } from "../../../src/trading/approvals/block";
import { nonBlankLines, parseApprovals } from "../../../src/trading/approvals/block-read";
import { differsFromShown, judgeBlock } from "../../../src/trading/approvals/judgment";
import type { CellValue } from "../../../src/trading/cells";
import type { TradeRequest } from "../../../src/trading/types";

const PREPARER = "fp-00000000000000aa";
const APPROVER = "fp-00000000000000bb";
const ID = "AB-20261125-0123456789ab";
const ROWS: TradeRequest[] = [
  { action: "open", market: "USDTNGN", side: "buy", notional: 20_000, tenor: 7, clientReference: "R-1" },
  { action: "open", market: "USDTKES", side: "sell", notional: 10_000.5, tenor: 1, clientReference: "R-2" },
  { action: "close", market: "USDTGHS", side: "buy", notional: null, tenor: null, clientReference: null },
];
const EDITED = "Approval needs the rows exactly as prepared: undo the edit, or ask the preparer to submit the batch again.";

function grid(over: Partial<Omit<ApprovalBatch, "rows">> = {}, rows = ROWS): CellValue[][] {
  return blockLines({
    id: ID,
    status: "pending",
    hash: batchHash(rows),
    preparedBy: PREPARER,
    preparedAt: "2026-11-25T09:01:00.000Z",
    approvedBy: null,
    decidedAt: null,
    reason: null,
    ...over,
    rows,
  });
}
/** The first block of a grid whose first line is sheet row top + 1. */
const blockOf = (g: CellValue[][], top = 0) => parseApprovals(nonBlankLines(g, top))[0];
const check = (g: CellValue[][], top = 0) => judgeBlock(blockOf(g, top), APPROVER);

describe("the block now against what the approver's check showed", () => {
  const shown = check(grid());

  it("a row edited with the Batch hash cell left as it was: the row and its fields, no word of the hash", () => {
    const rows = [ROWS[0], { ...ROWS[1], side: "buy" as const, notional: 12_000 }, ROWS[2]];
    expect(differsFromShown(shown, check(grid({ hash: batchHash(ROWS) }, rows)))).toBe(
      `Batch ${ID} changed on the sheet since you checked it: row 2: Side, Notional changed. Nothing was sent: check it again and approve only what you see.`,
    );
  });

  it("another batch with the same rows and hash is not the one shown", () => {
    const other = "AB-20261125-00000000000f";
    expect(differsFromShown(shown, check(grid({ id: other })))).toBe(
      `Batch ${ID} changed on the sheet since you checked it: the block read is batch ${other}. Nothing was sent: check it again and approve only what you see.`,
    );
  });
});

describe("what changed since preparation, in the refusal", () => {
  it("a row's Idempotency key cell typed over, its trade cells as prepared: the line is not a prepared row, and that row is missing", () => {
    const g = grid();
    g[4] = [...g[4].slice(0, 6), "not-a-key", ...g[4].slice(7)];
    expect(check(g).refusal).toBe(
      `Batch ${ID} was edited since preparation: row 2 (sheet row 5): added (not one of the prepared rows); row 2 as prepared: removed. ${EDITED}`,
    );
  });

  it("a block lower on the sheet: one row's amount edited and another's market emptied, each named with its own sentence", () => {
    const g = grid();
    g[3] = [...g[3].slice(0, 3), 21_000, ...g[3].slice(4)];
    g[4] = [g[4][0], "", ...g[4].slice(2)];
    expect(check(g, 10).refusal).toBe(
      `Batch ${ID} was edited since preparation: row 1 (sheet row 14): Notional changed; row 2 (sheet row 15): Market is empty — give the market symbol, e.g. USDTNGN. ${EDITED}`,
    );
  });
});

describe("an Environment cell typed over", () => {
  it("one the add-in does not write refuses approval, naming what it reads; blank (a block written before batches were bound) is no problem", () => {
    const staging = grid({ environment: "sandbox", account: "0xACC0" });
    staging[1][9] = " Staging ";
    expect(blockOf(staging).problems).toContain('its Environment cell reads "Staging", not one the add-in writes (production, sandbox)');
    expect(check(staging).refusal).toMatch(/its Environment cell reads "Staging", not one the add-in writes \(production, sandbox\)/);
    expect(blockOf(grid()).problems).toEqual([]);
  });
});

describe("a row's key and digest (fixed vectors: the derivation's labels are part of them)", () => {
  it("the idempotency key of row 1 of a batch", () => {
    expect(approvalKey(ID, 1)).toBe("a27148bb-cc67-8a31-8344-dddcf0e7613a");
  });

  it("a row's digest, one group per field", () => {
    expect(rowDigest(ROWS[0])).toBe("3203-ae98-b626-8f68-baa2-46f8");
  });

  it("a close row's empty amount, tenor, reference and Notional before are empty cells", () => {
    expect(grid()[5]).toEqual(["close", "USDTGHS", "buy", "", "", "", approvalKey(ID, 3), rowDigest(ROWS[2]), "", "", ""]);
  });

  it("a block is written on the sheet named Approvals", async () => {
    const book = new MemoryWorkbook();
    await book.appendApproval(grid());
    expect(book.sheetNames()).toContain("Approvals");
  });
});

describe("a block read back from edited cells", () => {
  it("a Batch id titles line last on the sheet: a block with nothing readable, not an error", () => {
    const block = parseApprovals(nonBlankLines([grid()[0]], 0))[0];
    expect(block.batch.id).toBe("");
    expect(block.lines).toEqual([]);
  });

  it("a Batch hash cell with text before or after the 64 hex digits is not the hash written at preparation", () => {
    for (const hash of [`x${batchHash(ROWS)}`, `${batchHash(ROWS)}0`]) {
      expect(blockOf(grid({ hash })).problems).toEqual(["its Batch hash cell is not the hash written at preparation"]);
    }
  });

  it("the rows' titles line deleted: the header line is not taken for a row", () => {
    const g = grid();
    g.splice(2, 1);
    const block = blockOf(g);
    expect(block.lines.map((l) => l.rowNumber)).toEqual([3, 4, 5]);
    expect(block.rowProblems).toEqual([]);
  });

  it("empty decision cells (null as Excel may give them) read as no decision", () => {
    const g = grid();
    g[1] = [...g[1].slice(0, 6), null, null, null];
    expect(blockOf(g).batch).toMatchObject({ approvedBy: null, decidedAt: null, reason: null });
  });

  it("a row whose trade cells were emptied: its problem names the row and the Action field, its value empty", () => {
    const g = grid();
    g[4] = ["", "", "", "", "", "", ...g[4].slice(6)];
    expect(blockOf(g).rowProblems).toEqual([{ rowNumber: 5, field: "action", value: "", message: "Row 5: its trade cells are empty." }]);
  });
});

describe("the cells the batch hash covers", () => {
  it("an empty or absent cell is null, like a null one", () => {
    const row = { ...ROWS[0], clientReference: "", notional: undefined as unknown as null };
    expect(canonicalRow(row)).toEqual(["open", "USDTNGN", "buy", null, 7, null]);
  });

  it("a row edited to read like the next row is changed in place, not moved", () => {
    expect(batchChanges(ROWS.slice(0, 2), [ROWS[1], ROWS[1]])).toEqual([
      { kind: "changed", position: 1, fields: ["market", "side", "notional", "tenor", "clientReference"] },
    ]);
  });
});
