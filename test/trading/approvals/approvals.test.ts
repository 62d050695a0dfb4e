// The Approvals sheet's model over the memory workbook: the block as written (plain values, keys, digests), read back tolerant of edits, and the judgment naming which row changed and why a key may not approve.
import { createHash } from "node:crypto";
import { publicKeyFingerprint } from "../../../src/api/environment";
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { Approvals } from "../../../src/trading/approvals/approval-desk";
import { APPROVALS_SHEET_NAME, approvalKey } from "../../../src/trading/approvals/block";
import { parseApprovals, nonBlankLines } from "../../../src/trading/approvals/block-read";
import { batchHash } from "../../../src/trading/approvals/batch-hash";
import type { CellValue } from "../../../src/trading/cells";
import type { Preview, SendOptions, SendResult, TradeRow } from "../../../src/trading/types";
import type { TradingDesk } from "../../../src/trading/desk/contract";
import { logRow } from "../../support/builders";

const PREPARER = publicKeyFingerprint("svc_test_demo_read_key_0001");
const APPROVER = publicKeyFingerprint("svc_test_demo_sandbox_key_0001");

const ROWS: TradeRow[] = [
  { rowNumber: 2, action: "open", market: "USDTNGN", side: "buy", notional: 100_000, tenor: 7, clientReference: "=1+1" },
  { rowNumber: 3, action: "add", market: "USDTNGN", side: "sell", notional: 25_000.5, tenor: null, clientReference: "00123" },
  { rowNumber: 4, action: "reduce", market: "USDTNGN", side: "buy", notional: 10_000, tenor: null, clientReference: null },
  { rowNumber: 5, action: "close", market: "USDTKES", side: "sell", notional: null, tenor: null, clientReference: "C-9" },
];

/** A preview as the desk returns it, reduced to what submit reads. */
function previewOf(rows: TradeRow[], blockers: { batch?: string[]; row?: string[] } = {}): Preview {
  return {
    action: "column",
    environment: "sandbox",
    account: { account_address: "0xACC0" },
    lines: rows.map((row, i) => ({ row, blockers: i === 0 ? (blockers.row ?? []) : [] })),
    blockers: blockers.batch ?? [],
    cancelled: false,
  } as unknown as Preview;
}

const request = ({ action, market, side, notional, tenor, clientReference }: TradeRow) => ({
  action,
  market,
  side,
  notional,
  tenor,
  clientReference,
});

async function submitted(rows = ROWS) {
  const workbook = new MemoryWorkbook();
  let t = Date.UTC(2026, 10, 25, 9, 0, 0);
  const approvals = new Approvals({ sheet: workbook, now: () => new Date((t += 60_000)) });
  const batch = await approvals.submit(previewOf(rows), PREPARER);
  const cells = () => workbook.cells(APPROVALS_SHEET_NAME);
  /** Edits the sheet as a user would (the grid rewritten: rows inserted, removed, moved, cells typed over). */
  const edit = (change: (grid: CellValue[][]) => void) => {
    const grid = cells();
    change(grid);
    workbook.setSheet(APPROVALS_SHEET_NAME, grid);
  };
  return { workbook, approvals, batch, cells, edit };
}

describe("publicKeyFingerprint", () => {
  it('is "fp-" and the first 16 hex of SHA-256 over the label and the key (fixed vector); it never shows the key', () => {
    const key = "svc_test_demo_sandbox_key_0001";
    const expected = createHash("sha256").update(`hedge-key-fingerprint-v1\n${key}`).digest("hex").slice(0, 16);
    expect(publicKeyFingerprint(key)).toBe(`fp-${expected}`);
    expect(PREPARER).not.toBe(APPROVER);
    expect(APPROVER).not.toContain("0001");
  });
});

describe("the Approvals sheet's block", () => {
  it("holds the header line, the rows, a UUID-shaped key per row derived from the batch id and position, and per-field digests", async () => {
    const { batch, cells } = await submitted();
    const grid = cells();
    expect(grid[0]).toEqual([
      "Batch id",
      "Status",
      "Batch hash",
      "Rows",
      "Prepared by",
      "Prepared at (UTC)",
      "Approved/rejected by",
      "Decided at (UTC)",
      "Reason",
      "Environment",
      "Account",
    ]);
    // Bound to where and when it was prepared: the environment, account and Prepared at are in the hash.
    const binding = { environment: "sandbox" as const, account: "0xACC0", preparedAt: "2026-11-25T09:01:00.000Z" };
    expect(grid[1]).toEqual([
      batch.id,
      "pending",
      batchHash(ROWS, binding),
      4,
      PREPARER,
      binding.preparedAt,
      "",
      "",
      "",
      "sandbox",
      "0xACC0",
    ]);
    expect(grid[2].slice(0, 8)).toEqual([
      "Action",
      "Market",
      "Side",
      "Notional (USD)",
      "Tenor",
      "Client reference",
      "Idempotency key",
      "Row digest",
    ]);
    expect(grid[3].slice(0, 6)).toEqual(["open", "USDTNGN", "buy", 100_000, 7, "=1+1"]);
    expect(grid[4].slice(0, 6)).toEqual(["add", "USDTNGN", "sell", 25_000.5, "", "00123"]);
    const keys = grid.slice(3, 7).map((r) => r[6]);
    keys.forEach((k, i) => expect(k).toBe(approvalKey(batch.id, i + 1)));
    for (const k of keys) expect(k).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(4);
    expect(approvalKey(batch.id, 1)).toBe(keys[0]);
    expect(approvalKey(`${batch.id}x`, 1)).not.toBe(keys[0]);
    for (const r of grid.slice(3, 7)) expect(r[7]).toMatch(/^([0-9a-f]{4}-){5}[0-9a-f]{4}$/);
  });

  it("writes plain values through the safe writer: a reference typed as =1+1 or 00123 stays text; amounts are numbers to the cent", async () => {
    const { workbook } = await submitted();
    expect(workbook.formulas(APPROVALS_SHEET_NAME).flat().filter(Boolean)).toEqual([]);
    expect(workbook.formatAt(APPROVALS_SHEET_NAME, 3, 5)).toBe("@");
    expect(workbook.cells(APPROVALS_SHEET_NAME)[4][5]).toBe("00123");
    expect(workbook.formatAt(APPROVALS_SHEET_NAME, 4, 3)).toBe("#,##0.00");
  });

  it("reads back the rows as prepared: the hash recomputed matches and another key may approve", async () => {
    const { approvals, batch } = await submitted();
    expect(batch.rows.map(request)).toEqual(ROWS.map(request));
    const check = await approvals.check(batch.id, APPROVER);
    expect(check).toMatchObject({ changes: [], recomputedHash: batch.hash, refusal: null });
  });

  it("keeps blocks apart: a second batch below the first (after a blank line), listed newest first, each read alone", async () => {
    const { approvals, batch, workbook } = await submitted();
    const second = await approvals.submit(previewOf(ROWS.slice(0, 2)), PREPARER);
    expect(workbook.cells(APPROVALS_SHEET_NAME)[7].every((v) => v === "" || v === null)).toBe(true);
    expect((await approvals.list()).map((b) => [b.id, b.rows.length])).toEqual([
      [second.id, 2],
      [batch.id, 4],
    ]);
    expect((await approvals.check(second.id, APPROVER)).refusal).toBeNull();
    expect(await workbook.readApprovals(second.id)).toHaveLength(5);
  });
});

describe("an edit since preparation blocks approval and names the row", () => {
  it("an edited amount: the row and the field", async () => {
    const { approvals, batch, edit } = await submitted();
    edit((g) => (g[4][3] = 26_000));
    const check = await approvals.check(batch.id, APPROVER);
    expect(check.changes).toEqual([{ kind: "changed", position: 2, fields: ["notional"] }]);
    expect(check.recomputedHash).not.toBe(batch.hash);
    expect(check.refusal).toContain("row 2 (sheet row 5): Notional changed");
  });

  it("a row added inside the block, and one removed", async () => {
    const { approvals, batch, edit } = await submitted();
    edit((g) => g.splice(5, 0, ["open", "USDTNGN", "buy", 5_000, 1, "EXTRA"]));
    expect((await approvals.check(batch.id, APPROVER)).changes).toEqual([{ kind: "added", position: 3 }]);
    expect((await approvals.check(batch.id, APPROVER)).refusal).toContain("row 3 (sheet row 6): added");
    edit((g) => g.splice(5, 2));
    const check = await approvals.check(batch.id, APPROVER);
    expect(check.changes).toEqual([{ kind: "removed", position: 3 }]);
    expect(check.refusal).toContain("row 3 as prepared: removed");
  });

  it("the last row cut off: the Rows count says one is missing", async () => {
    const { approvals, batch, edit } = await submitted();
    edit((g) => g.splice(6, 1));
    expect((await approvals.check(batch.id, APPROVER)).changes).toEqual([{ kind: "removed", position: 4 }]);
  });

  it("two rows swapped, moved whole or retyped", async () => {
    const { approvals, batch, edit } = await submitted();
    edit((g) => ([g[4], g[5]] = [g[5], g[4]]));
    const moved = await approvals.check(batch.id, APPROVER);
    expect(moved.changes).toEqual([
      { kind: "moved", position: 2, from: 3 },
      { kind: "moved", position: 3, from: 2 },
    ]);
    expect(moved.refusal).toContain("row 2 (sheet row 5): moved (prepared as row 3)");
    edit((g) => ([g[4], g[5]] = [g[5], g[4]]));
    expect((await approvals.check(batch.id, APPROVER)).refusal).toBeNull();
    edit((g) => {
      const [a, b] = [g[4].slice(0, 6), g[5].slice(0, 6)];
      g[4].splice(0, 6, ...b);
      g[5].splice(0, 6, ...a);
    });
    expect((await approvals.check(batch.id, APPROVER)).changes.map((c) => c.kind)).toEqual(["moved", "moved"]);
  });

  it("a cell edited into something that is no trade row: its problem, at its row", async () => {
    const { approvals, batch, edit } = await submitted();
    edit((g) => (g[3][4] = 5));
    const check = await approvals.check(batch.id, APPROVER);
    expect(check.changes).toEqual([{ kind: "changed", position: 1, fields: [] }]);
    expect(check.refusal).toContain("row 1 (sheet row 4): Tenor 5 — use 1, 3 or 7.");
  });
});

describe("who may approve or reject, and when", () => {
  it("the key that prepared a batch cannot approve it, with the reason", async () => {
    const { approvals, batch } = await submitted();
    const check = await approvals.check(batch.id, PREPARER);
    expect(check.refusal).toMatch(/^The key that prepared a batch cannot approve it: approval needs a second person's trading key/);
  });

  it("reject needs a reason; a rejected batch cannot be approved nor rejected again", async () => {
    const { approvals, batch, cells } = await submitted();
    await expect(approvals.reject(batch.id, APPROVER, "   ")).rejects.toThrow(/Reason is empty/);
    expect(cells()[1][1]).toBe("pending");
    const rejected = await approvals.reject(batch.id, APPROVER, " amounts too large ");
    expect(rejected).toMatchObject({
      status: "rejected",
      approvedBy: APPROVER,
      reason: "amounts too large",
      decidedAt: "2026-11-25T09:02:00.000Z",
    });
    expect((await approvals.check(batch.id, APPROVER)).refusal).toContain("was rejected by");
    await expect(approvals.reject(batch.id, APPROVER, "again")).rejects.toThrow(/was rejected/);
  });

  it("a status cell edited into something else is never taken for pending approval", async () => {
    const { approvals, batch, edit } = await submitted();
    edit((g) => (g[1][1] = "OK by Bob"));
    expect((await approvals.check(batch.id, APPROVER)).refusal).toContain('its Status cell reads "OK by Bob"');
  });

  it("a decision is written only over the status it expects (another approver first: nothing written)", async () => {
    const { workbook, batch, cells } = await submitted();
    const decision = { status: "approved" as const, approvedBy: APPROVER, decidedAt: "2026-11-25T10:00:00.000Z", reason: null };
    await workbook.setApprovalStatus(batch.id, ["pending"], decision);
    await expect(workbook.setApprovalStatus(batch.id, ["pending"], decision)).rejects.toThrow(/is approved now, not pending/);
    expect(cells()[1].slice(6)).toEqual([APPROVER, "2026-11-25T10:00:00.000Z", "", "sandbox", "0xACC0"]);
  });

  it("submit refuses a preview with blockers, and anything but a fingerprint as the preparer", async () => {
    const { approvals } = await submitted();
    await expect(approvals.submit(previewOf(ROWS, { batch: ["Balance too low."] }), PREPARER)).rejects.toThrow(/Balance too low/);
    await expect(approvals.submit(previewOf(ROWS, { row: ["No open hedge."] }), PREPARER)).rejects.toThrow(/row 2: No open hedge/);
    await expect(approvals.submit(previewOf(ROWS), "svc_test_demo_read_key_0001")).rejects.toThrow(/never the key itself/);
  });

  it("parses nothing out of a sheet without blocks", () => {
    expect(parseApprovals(nonBlankLines([["notes"], [], ["Action"]], 0))).toEqual([]);
  });
});

describe("approve: the order of things and the keys", () => {
  /** A desk that previews the rows it is given and, on send, logs one row per line under the keys it was handed (as the journal does). */
  function scriptedDesk(workbook: MemoryWorkbook, statusAtSend: () => unknown) {
    const sends: Array<{ options: SendOptions | undefined; status: unknown }> = [];
    const desk = {
      preview: async (_action: string, rows: TradeRow[]) => previewOf(rows),
      send: async (preview: Preview, options?: SendOptions): Promise<SendResult> => {
        sends.push({ options, status: statusAtSend() });
        const keys = options?.approval?.idempotencyKeys ?? [];
        const held = new Set((await workbook.readLog({ keys })).map((r) => r.idempotencyKey));
        const fresh = keys.filter((k) => !held.has(k));
        await workbook.appendLog(fresh.map((k) => logRow({ idempotencyKey: k, status: "submitted" })));
        return { rows: [], skipped: [] };
      },
    } as unknown as TradingDesk;
    return { desk, sends };
  }

  it("marks approved after the confirmation and before the send, sends the batch's hash, fingerprints and derived keys, then executed", async () => {
    const { workbook, approvals, batch, cells } = await submitted();
    const { desk, sends } = scriptedDesk(workbook, () => cells()[1][1]);
    let confirmedWhile: unknown = null;
    await approvals.approve(batch.id, APPROVER, desk, async () => {
      confirmedWhile = cells()[1][1];
      return true;
    });
    expect(confirmedWhile).toBe("pending");
    expect(sends).toEqual([
      {
        status: "approved",
        options: {
          approval: {
            batchHash: batch.hash,
            preparedBy: PREPARER,
            approvedBy: APPROVER,
            idempotencyKeys: [1, 2, 3, 4].map((p) => approvalKey(batch.id, p)),
            preparedAt: "2026-11-25T00:00:00.000Z", // the batch id's UTC day: the service is asked first what of it is done since
          },
        },
      },
    ]);
    expect(cells()[1].slice(0, 2)).toEqual([batch.id, "executed"]);
    expect(cells()[1][6]).toBe(APPROVER);
  });

  it("a declined confirmation leaves the batch pending and sends nothing", async () => {
    const { workbook, approvals, batch, cells } = await submitted();
    const { desk, sends } = scriptedDesk(workbook, () => cells()[1][1]);
    expect(await approvals.approve(batch.id, APPROVER, desk, async () => false)).toEqual({ rows: [], skipped: [] });
    expect(sends).toEqual([]);
    expect(cells()[1][1]).toBe("pending");
  });

  it("stays approved while rows are missing from the log; the same approver finishes it with the same keys", async () => {
    const { workbook, approvals, batch, cells } = await submitted();
    const { desk, sends } = scriptedDesk(workbook, () => cells()[1][1]);
    const failing = { ...desk, send: async () => Promise.reject(new Error("Excel closed")) } as unknown as TradingDesk;
    await expect(approvals.approve(batch.id, APPROVER, failing)).rejects.toThrow(/Excel closed/);
    expect(cells()[1][1]).toBe("approved");
    await expect(approvals.approve(batch.id, publicKeyFingerprint("svc_test_other_0001"), desk)).rejects.toThrow(/only that approver/);
    await approvals.approve(batch.id, APPROVER, desk);
    expect(sends.map((s) => s.options?.approval?.idempotencyKeys?.[0])).toEqual([approvalKey(batch.id, 1)]);
    expect(cells()[1][1]).toBe("executed");
    await expect(approvals.approve(batch.id, APPROVER, desk)).rejects.toThrow(/already approved by .* and executed/);
    expect(sends).toHaveLength(1);
  });
});
