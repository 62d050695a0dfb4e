// The approvals rules called directly on a block's cells: every refusal and error sentence whole (what the approver reads), the block's number formats, the batch id's shape, and the edges of reading a block back (an unreadable Rows cell or hash, emptied trade cells, a block at the column's end).
import { batchHash } from "../../../src/trading/approvals/batch-hash";
import {
  APPROVAL_WIDTH,
  approvalKey,
  blockFormats,
  blockLines,
  newBatchId,
  type ApprovalBatch,
} from "../../../src/trading/approvals/block";
import { blockSpan, nonBlankLines, parseApprovals } from "../../../src/trading/approvals/block-read";
import { decidedMeanwhile, decisionCells, noSuchBatch, statusAllows } from "../../../src/trading/approvals/decision";
import { differsFromShown, judgeBlock } from "../../../src/trading/approvals/judgment";
import { doneSince, recordRefusal } from "../../../src/trading/approvals/record";
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

/** The block's lines as submit writes them (a pending batch unless told). */
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
/** The first block of a grid, as read from a sheet whose first line is row 1. */
const blockOf = (g: CellValue[][]) => parseApprovals(nonBlankLines(g, 0))[0];
const refusal = (g: CellValue[][], key = APPROVER) => judgeBlock(blockOf(g), key).refusal;

describe("the block as written", () => {
  it("number formats: the Rows count whole, each row's amount and Notional before to the cent and tenor whole, titles General; a second block starts over", () => {
    const g = [...grid(), ...grid({ id: "AB-20261125-000000000001" })];
    const G = Array<string>(APPROVAL_WIDTH).fill("General");
    const header = G.map((f, i) => (i === 3 ? "0" : f));
    const row = G.map((f, i) => (i === 3 || i === 8 ? "#,##0.00" : i === 4 ? "0" : f));
    const one = [G, header, G, row, row, row];
    expect(blockFormats(g)).toEqual([...one, ...one]);
  });

  it("a batch id is the UTC day and the random source's first 12 hex digits, lower case, anything else dropped", () => {
    expect(newBatchId(new Date("2026-11-25T23:59:59.999Z"), () => "XYZ-12AB34cd56EF78")).toBe("AB-20261125-12ab34cd56ef");
  });

  it("a decision's cells: status, who, when and reason, blanks for none", () => {
    expect(decisionCells({ status: "approved", approvedBy: APPROVER, decidedAt: null, reason: null })).toEqual([
      "approved",
      APPROVER,
      "",
      "",
    ]);
  });
});

describe("a block read back", () => {
  it("an untouched block: the batch, its rows, and no refusal for another key", () => {
    const block = blockOf(grid());
    expect(block.preparedRows).toBe(3);
    expect(block.problems).toEqual([]);
    expect(block.batch).toMatchObject({ id: ID, status: "pending", hash: batchHash(ROWS), preparedBy: PREPARER, approvedBy: null });
    expect(judgeBlock(block, APPROVER)).toMatchObject({ changes: [], recomputedHash: batchHash(ROWS), refusal: null });
  });

  it("a Rows cell that is no count (text, 0, 2.5) is no count: a row cut off the end is then not seen as removed, but the hash is", () => {
    for (const rows of ["three", 0, 2.5]) {
      const g = grid();
      g[1][3] = rows;
      g.pop();
      const block = blockOf(g);
      expect(block.preparedRows).toBeNull();
      expect(judgeBlock(block, APPROVER).changes).toEqual([]);
      expect(judgeBlock(block, APPROVER).refusal).toBe(
        `Batch ${ID} was edited since preparation: its rows no longer match the batch hash written at preparation. Approval needs the rows exactly as prepared: undo the edit, or ask the preparer to submit the batch again.`,
      );
    }
  });

  it("a Batch hash cell typed over and a status typed in: each a problem, both in one refusal", () => {
    const g = grid();
    g[1][1] = "Done";
    g[1][2] = "A".repeat(64);
    expect(refusal(g)).toBe(
      `Batch ${ID} cannot be approved: its Status cell reads "Done", not one the add-in writes (pending, approved, rejected, executed); its Batch hash cell is not the hash written at preparation. Ask the preparer to submit the batch again. ` +
        `Batch ${ID} was edited since preparation: its rows no longer match the batch hash written at preparation. Approval needs the rows exactly as prepared: undo the edit, or ask the preparer to submit the batch again.`,
    );
  });

  it("a row whose trade cells were emptied (its key and digest left) is named at its sheet row, its sentence within the refusal's", () => {
    const g = grid();
    g[4] = ["", "", "", "", "", "", g[4][6], g[4][7], ""];
    expect(refusal(g)).toBe(
      `Batch ${ID} was edited since preparation: row 2 (sheet row 5): its trade cells are empty. Approval needs the rows exactly as prepared: undo the edit, or ask the preparer to submit the batch again.`,
    );
  });

  it("a digest cell that is not one the add-in writes names every field", () => {
    const g = grid();
    g[3][7] = "typed";
    g[5][0] = "add";
    g[5][3] = 5;
    g[4][7] = `${String(g[4][7])}-0000`; // a group more than the add-in writes, the six before it untouched
    expect(refusal(g)).toBe(
      `Batch ${ID} was edited since preparation: row 1 (sheet row 4): Action, Market, Side, Notional, Tenor, Client reference changed; row 2 (sheet row 5): Action, Market, Side, Notional, Tenor, Client reference changed; row 3 (sheet row 6): Action, Notional changed. Approval needs the rows exactly as prepared: undo the edit, or ask the preparer to submit the batch again.`,
    );
  });

  it("a line carrying the key of a position past the Rows count, its digest right, is added; so is a row line pasted twice", () => {
    const g = grid();
    g.push(grid({}, [...ROWS, ROWS[0]])[6]); // the next key and digest, as anyone could compute them
    expect(judgeBlock(blockOf(g), APPROVER).changes).toEqual([{ kind: "added", position: 4 }]);
    const twice = grid();
    twice.splice(4, 0, [...twice[3]]);
    expect(judgeBlock(blockOf(twice), APPROVER).changes).toEqual([{ kind: "added", position: 2 }]);
  });

  it("with the Rows cell unreadable, a row missing before a row whose key is read is still removed", () => {
    const g = grid();
    g[1][3] = "three";
    g.splice(3, 1);
    expect(judgeBlock(blockOf(g), APPROVER).changes).toContainEqual({ kind: "removed", position: 1 });
  });

  it("a block whose values line and row titles were cleared: no id, its problems named, every row line still read", () => {
    const g = grid();
    g[1] = Array<CellValue>(APPROVAL_WIDTH).fill("");
    g[2] = Array<CellValue>(APPROVAL_WIDTH).fill("");
    const block = blockOf(g);
    expect(block.batch.id).toBe("");
    expect(block.problems).toEqual([
      'its Status cell reads "", not one the add-in writes (pending, approved, rejected, executed)',
      "its Batch hash cell is not the hash written at preparation",
    ]);
    expect(block.lines.map((l) => l.rowNumber)).toEqual([4, 5, 6]);
  });

  it("where a block is in the first column: up to the next block, or to the column's end; null for an id no block holds", () => {
    const column = [...grid(), [""], ...grid({ id: "AB-20261125-000000000001" })].map((l) => l[0]);
    expect(blockSpan(column, ` ${ID} `)).toEqual({ start: 0, end: 7 });
    expect(blockSpan(column, "AB-20261125-000000000001")).toEqual({ start: 7, end: 13 });
    expect(blockSpan(column, "AB-20261125-000000000002")).toBeNull();
    expect(blockSpan(["Batch id"], "")).toBeNull(); // a titles line with no line below holds no id
  });
});

describe("why a key may not approve, whole", () => {
  it("the preparer's own key", () => {
    expect(refusal(grid(), PREPARER)).toBe(
      `The key that prepared a batch cannot approve it: approval needs a second person's trading key (batch ${ID} was prepared by ${PREPARER}, the key in use).`,
    );
  });

  it("a batch already decided: executed, approved (for another key), rejected with and without a reason", () => {
    const at = "2026-11-25T10:00:00.000Z";
    expect(refusal(grid({ status: "executed", approvedBy: APPROVER, decidedAt: at }))).toBe(
      `Batch ${ID} was already approved by ${APPROVER} and executed at ${at}: it is never sent twice.`,
    );
    expect(refusal(grid({ status: "approved", approvedBy: PREPARER.replace("aa", "cc"), decidedAt: at }))).toBe(
      `Batch ${ID} was already approved by fp-00000000000000cc at ${at}; only that approver can finish sending it.`,
    );
    expect(refusal(grid({ status: "approved", approvedBy: APPROVER, decidedAt: at }))).toBeNull(); // its approver finishes it
    expect(refusal(grid({ status: "rejected", approvedBy: APPROVER, decidedAt: at, reason: "too large" }))).toBe(
      `Batch ${ID} was rejected by ${APPROVER} at ${at} ("too large"): prepare and submit it again to trade it.`,
    );
    expect(refusal(grid({ status: "rejected" }))).toBe(`Batch ${ID} was rejected: prepare and submit it again to trade it.`);
  });

  it("a block whose rows are not the batch's: each change named, in sheet order", () => {
    const g = grid();
    [g[3], g[4]] = [g[4], g[3]];
    g.splice(5, 1, ["open", "USDTNGN", "buy", 1, 7, "X", "", ""]);
    expect(refusal(g)).toBe(
      `Batch ${ID} was edited since preparation: row 1 (sheet row 4): moved (prepared as row 2); row 2 (sheet row 5): moved (prepared as row 1); row 3 (sheet row 6): added (not one of the prepared rows); row 3 as prepared: removed. Approval needs the rows exactly as prepared: undo the edit, or ask the preparer to submit the batch again.`,
    );
  });
});

describe("the block against what the approver's check showed", () => {
  const shown = judgeBlock(blockOf(grid()), APPROVER);

  it("the same block: nothing to say", () => {
    expect(differsFromShown(shown, judgeBlock(blockOf(grid()), APPROVER))).toBeNull();
  });

  it("rows rewritten with a recomputed hash: each row, and the hash then and now", () => {
    const rows = [{ ...ROWS[0], side: "sell" as const }, ROWS[2], ROWS[1], ROWS[2]];
    const now = judgeBlock(blockOf(grid({ hash: batchHash(rows) }, rows)), APPROVER);
    expect(differsFromShown(shown, now)).toBe(
      `Batch ${ID} changed on the sheet since you checked it: row 1: Side changed; row 2: moved (was row 3); row 3: moved (was row 2); row 4: added; Batch hash ${batchHash(ROWS).slice(0, 12)}… when checked, ${batchHash(rows).slice(0, 12)}… now. Nothing was sent: check it again and approve only what you see.`,
    );
    const fewer = ROWS.slice(0, 2);
    expect(differsFromShown(shown, judgeBlock(blockOf(grid({ hash: batchHash(fewer) }, fewer)), APPROVER))).toMatch(
      /since you checked it: row 3 as checked: removed; Batch hash /,
    );
  });

  it("the Batch hash cell alone typed over: the hash then and now", () => {
    const now = judgeBlock(blockOf(grid({ hash: "b".repeat(64) })), APPROVER);
    expect(differsFromShown(shown, now)).toBe(
      `Batch ${ID} changed on the sheet since you checked it: Batch hash ${batchHash(ROWS).slice(0, 12)}… when checked, bbbbbbbbbbbb… now. Nothing was sent: check it again and approve only what you see.`,
    );
  });
});

describe("writing a decision", () => {
  it("only over a status it expects, read as the add-in writes it (case and spaces aside)", () => {
    expect(statusAllows(" Pending ", ["pending"])).toBe(true);
    expect(statusAllows("approved", ["pending"])).toBe(false);
    expect(statusAllows(null, ["pending"])).toBe(false);
  });

  it("the errors say what happened and that nothing was written", () => {
    expect(noSuchBatch(ID).message).toBe(`No batch ${ID} on the Approvals sheet: it was deleted or its Batch id cell edited.`);
    expect(decidedMeanwhile(ID, " approved ", ["pending"]).message).toBe(
      `Batch ${ID} is approved now, not pending: someone decided it first, so nothing was written.`,
    );
    expect(decidedMeanwhile(ID, "", ["pending", "approved"]).message).toBe(
      `Batch ${ID} is without a status now, not pending or approved: someone decided it first, so nothing was written.`,
    );
  });
});

it("an approval key is UUID-shaped (version 8, variant 10xx) and differs by position", () => {
  const keys = [1, 2].map((p) => approvalKey(ID, p));
  for (const k of keys) expect(k).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(keys[0]).not.toBe(keys[1]);
});

it("the record: a key this computer approved with, naming itself as the preparer, is left to the preparer's rule; an id not of the add-in's form gives no day", () => {
  const batch: ApprovalBatch = {
    id: ID,
    status: "pending",
    hash: batchHash(ROWS),
    preparedBy: APPROVER,
    preparedAt: "2026-11-25T09:01:00.000Z",
    rows: [],
    approvedBy: null,
    decidedAt: null,
    reason: null,
  };
  expect(recordRefusal(batch, { journalled: null, logRows: [], preparerApprovedHere: true }, APPROVER)).toBeNull();
  expect(doneSince({ ...batch, id: `X${ID}` })).toBe("2026-11-25T09:01:00.000Z");
});
