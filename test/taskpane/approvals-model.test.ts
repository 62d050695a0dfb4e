// The Approvals panel's view models: the list (pending first, then the newest decided), a batch's check as shown in place (which row, which field), who may approve, the rejection's required reason, the LIVE question; and the workbook's "LIVE trades need approval" rule in its document settings.
import { LIVE_NEEDS_APPROVAL_SETTING, memoryDocumentRules, officeDocumentRules } from "../../src/excel/document-settings";
import type { ApprovalBatch, ApprovalCheck } from "../../src/trading/approvals/approval-desk";
import { batchChanges, batchHash } from "../../src/trading/approvals/batch-hash";
import type { TradeRow } from "../../src/trading/types";
import {
  approvalLiveQuestion,
  approvalsList,
  batchItem,
  checkView,
  rejectionReason,
  shortHash,
  submittedText,
} from "../../src/taskpane/approvals-model";
import { openLine, preview, row } from "./fixtures";

const PREPARER = "fp-1111222233334444";
const APPROVER = "fp-aaaabbbbccccdddd";

function batch(id: string, over: Partial<ApprovalBatch> = {}): ApprovalBatch {
  const rows = over.rows ?? [row(5), row(6, { side: "sell", notional: 50_000 })];
  return {
    id,
    status: "pending",
    hash: batchHash(rows),
    preparedBy: PREPARER,
    preparedAt: "2026-11-25T17:05:09Z",
    rows,
    approvedBy: null,
    decidedAt: null,
    reason: null,
    ...over,
  };
}

/** A check as the desk would make it: the rows as prepared against the rows read now. */
function checkOf(prepared: TradeRow[], now: TradeRow[], refusal: string | null = null): ApprovalCheck {
  const b = batch("b-1", { rows: now, hash: batchHash(prepared) });
  return { batch: b, changes: batchChanges(prepared, now), recomputedHash: batchHash(now), refusal };
}

describe("the Approvals list", () => {
  test("batches still to act on first (pending, and approved but cut short), then the newest decided ones, at most five", () => {
    const decided = Array.from({ length: 7 }, (_, i) => batch(`d-${i}`, { status: i % 2 ? "executed" : "rejected", approvedBy: APPROVER }));
    const list = approvalsList([batch("p-1"), ...decided, batch("a-1", { status: "approved", approvedBy: APPROVER }), batch("p-2")]);
    expect(list.pending.map((b) => b.id)).toEqual(["p-1", "a-1", "p-2"]);
    expect(list.decided.map((b) => b.id)).toEqual(["d-0", "d-1", "d-2", "d-3", "d-4"]);
  });

  test("a batch shows its rows, short hash, preparer and time; a decided one who decided, when, and why it was rejected", () => {
    const item = batchItem(batch("b-1"));
    expect(item.title).toBe("Open 2 rows");
    expect(item.rows).toEqual([
      "Open buy USDTNGN 100,000.00 USD, 7d, client reference DEAL-5",
      "Open sell USDTNGN 50,000.00 USD, 7d, client reference DEAL-6",
    ]);
    expect(batchItem(batch("b-0", { rows: [row(5, { clientReference: null })] })).rows).toEqual([
      "Open buy USDTNGN 100,000.00 USD, 7d, no client reference",
    ]);
    expect(item.hash).toBe(batchHash([row(5), row(6, { side: "sell", notional: 50_000 })]));
    expect(item.hashShort).toBe(`${item.hash.slice(0, 12)}…`);
    expect(item.prepared).toBe(`Prepared by ${PREPARER} at 2026-11-25 17:05:09 UTC`);
    expect(item.decided).toBeNull();
    const rejected = batchItem(
      batch("b-2", { status: "rejected", approvedBy: APPROVER, decidedAt: "2026-11-25T18:00:00Z", reason: "wrong tenor" }),
    );
    expect(rejected.decided).toBe(`Rejected by ${APPROVER} at 2026-11-25 18:00:00 UTC: wrong tenor`);
    expect(batchItem(batch("b-3", { status: "executed", approvedBy: APPROVER, decidedAt: "2026-11-25T18:00:00Z" })).decided).toBe(
      `Approved by ${APPROVER} at 2026-11-25 18:00:00 UTC`,
    );
    const mixed = batchItem(batch("b-4", { rows: [row(2, { action: "close", notional: null, tenor: null }), row(3)] }));
    expect(mixed.title).toBe("2 rows (1 Close, 1 Open)");
    expect(shortHash("abc")).toBe("abc");
  });
});

describe("a batch checked in place", () => {
  const prepared = [row(5), row(6, { notional: 50_000 }), row(7, { side: "sell" })];

  test("an amount edited since preparation keeps the check's refusal and marks that row with the field", () => {
    const now = [prepared[0], { ...prepared[1], notional: 60_000 }, prepared[2]];
    const view = checkView(checkOf(prepared, now, "The batch was edited since it was prepared."), "trade", true);
    expect(view.refusal).toBe("The batch was edited since it was prepared.");
    expect([...view.marks]).toEqual([[2, "Notional changed"]]);
    expect(view.hashMatches).toBe(false);
  });

  test("rows added and reordered are marked where they are now; a removed row has no place to mark (the refusal names it)", () => {
    const added = checkView(checkOf(prepared, [...prepared, row(8)], "edited"), "trade", true);
    expect([...added.marks]).toEqual([[4, "added"]]);
    const removed = checkView(checkOf(prepared, prepared.slice(0, 2), "edited"), "trade", true);
    expect([removed.refusal, [...removed.marks], removed.hashMatches]).toEqual(["edited", [], false]);
    const swapped = checkView(checkOf(prepared, [prepared[1], prepared[0], prepared[2]], "edited"), "trade", true);
    expect([...swapped.marks]).toEqual([
      [1, "moved: prepared as row 2"],
      [2, "moved: prepared as row 1"],
    ]);
    const twoFields = checkView(
      checkOf(prepared, [prepared[0], prepared[1], { ...prepared[2], tenor: 3, clientReference: "X" }], "e"),
      "trade",
      true,
    );
    expect([...twoFields.marks]).toEqual([[3, "Tenor, Client reference changed"]]);
  });

  test("who may approve: the check's refusal first, then a read-only key, then a desk not ready; an untouched batch for a trading key may go", () => {
    const same = checkOf(prepared, prepared, "Approval by the key that prepared the batch is refused.");
    expect(checkView(same, "read_only", true).refusal).toBe("Approval by the key that prepared the batch is refused.");
    const clean = checkOf(prepared, prepared);
    expect(checkView(clean, "read_only", true).refusal).toMatch(/read only: you can prepare, not trade.*trading key/);
    expect(checkView(clean, "trade", false).refusal).toMatch(/getting ready/);
    const ok = checkView(clean, "trade", true);
    expect([ok.refusal, ok.marks.size, ok.hashMatches]).toEqual([null, 0, true]);
    expect(checkView(clean, "unknown", true).refusal).toBeNull();
  });

  test("a rejection needs a reason: blank or spaces name the field, a reason is kept trimmed", () => {
    expect(rejectionReason("   ")).toEqual({ ok: false, error: expect.stringMatching(/^Reason: /) });
    expect(rejectionReason("  wrong tenor ")).toEqual({ ok: true, reason: "wrong tenor" });
  });

  test("the LIVE question names the batch hash the check showed and asks like a direct LIVE send; the submitted note says nothing was traded", () => {
    const p = preview([openLine(5), openLine(6)], { environment: "production" });
    const hash = "ab".repeat(32); // the hash Check showed: the question names it, not one made from the preview's rows
    const q = approvalLiveQuestion(p, hash);
    expect(q.split("\n")).toEqual([
      `Approved batch ${hash.slice(0, 12)}…. LIVE environment — production money. Open 2 rows, total notional 200,000.00 USD. Send these orders?`,
      "1. Open buy USDTNGN 100,000.00 USD, 7d, client reference DEAL-5",
      "2. Open buy USDTNGN 100,000.00 USD, 7d, client reference DEAL-6",
      `Batch hash as checked: ${hash}`,
    ]);
    expect(submittedText(batch("b-1"))).toMatch(
      new RegExp(`2 rows as batch .{12}… on the Approvals sheet, prepared by ${PREPARER}.*Nothing was traded`),
    );
  });
});

describe("the workbook's rule in its document settings", () => {
  test("off until set; on and off again are kept in the settings the file saves", async () => {
    const settings = new Map<string, string>();
    const rules = memoryDocumentRules(settings);
    expect(await rules.liveNeedsApproval()).toBe(false);
    await rules.setLiveNeedsApproval(true);
    expect([await rules.liveNeedsApproval(), settings.get(LIVE_NEEDS_APPROVAL_SETTING)]).toEqual([true, "true"]);
    await rules.setLiveNeedsApproval(false);
    expect(await rules.liveNeedsApproval()).toBe(false);
    expect(await memoryDocumentRules(new Map([[LIVE_NEEDS_APPROVAL_SETTING, " TRUE "]])).liveNeedsApproval()).toBe(true);
    expect(await memoryDocumentRules(new Map([[LIVE_NEEDS_APPROVAL_SETTING, "yes please"]])).liveNeedsApproval()).toBe(false);
  });

  test("in Excel: set in the document settings and saved with saveAsync; a failed save is an error saying so and keeps the old value", async () => {
    (globalThis as { Office?: unknown }).Office = { AsyncResultStatus: { Succeeded: "succeeded", Failed: "failed" } };
    try {
      const values = new Map<string, unknown>();
      let saves = 0;
      let failNext = false;
      const settings = {
        get: (name: string) => values.get(name) ?? null,
        set: (name: string, value: unknown) => void values.set(name, value),
        remove: (name: string) => void values.delete(name),
        saveAsync: (done: (r: { status: string; error?: { message: string } }) => void) => {
          saves++;
          done(failNext ? { status: "failed", error: { message: "the file is read-only" } } : { status: "succeeded" });
        },
      } as unknown as Office.Settings;
      const rules = officeDocumentRules(settings);
      expect(await rules.liveNeedsApproval()).toBe(false);
      await rules.setLiveNeedsApproval(true);
      expect([await rules.liveNeedsApproval(), values.get(LIVE_NEEDS_APPROVAL_SETTING), saves]).toEqual([true, true, 1]);
      failNext = true;
      await expect(rules.setLiveNeedsApproval(false)).rejects.toThrow("The workbook's settings could not be saved: the file is read-only.");
      expect(await rules.liveNeedsApproval()).toBe(true); // the value before the failed save, not half a change
    } finally {
      delete (globalThis as { Office?: unknown }).Office;
    }
  });
});
