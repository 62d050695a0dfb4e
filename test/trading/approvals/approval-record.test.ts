// Controls that hold against a workbook editor (issue 31): Approve sends only the rows its check showed; a status typed back, "approved" typed in, or a Prepared by naming this computer's approving key is refused with the reason; the decision is journalled on this computer.
import { publicKeyFingerprint } from "../../../src/api/environment";
import { MemoryIntentStore, memoryApprovalJournal } from "../../../src/excel/intent-store";
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { Approvals } from "../../../src/trading/approvals/approval-desk";
import { APPROVALS_SHEET_NAME, approvalKey, bindingOf, blockLines, type ApprovalBatch } from "../../../src/trading/approvals/block";
import { doneSince, recordRefusal } from "../../../src/trading/approvals/record";
import { batchHash } from "../../../src/trading/approvals/batch-hash";
import type { CellValue } from "../../../src/trading/cells";
import type { Preview, SendOptions, SendResult, TradeRow } from "../../../src/trading/types";
import type { TradingDesk } from "../../../src/trading/desk/contract";
import { logRow } from "../../support/builders";

/** Another computer's clock, a few hours after the batches here were prepared (within their approval's validity). */
const SAME_DAY = () => new Date(Date.UTC(2026, 10, 25, 12, 0, 0));

const PREPARER = publicKeyFingerprint("svc_test_demo_read_key_0001");
const APPROVER = publicKeyFingerprint("svc_test_demo_sandbox_key_0001");
const SECOND = publicKeyFingerprint("svc_test_demo_approver_key_0001");

const ROWS: TradeRow[] = [
  { rowNumber: 5, action: "open", market: "USDTNGN", side: "buy", notional: 20_000, tenor: 7, clientReference: "DEAL-1" },
  { rowNumber: 6, action: "open", market: "USDTNGN", side: "sell", notional: 10_000, tenor: 7, clientReference: "DEAL-2" },
];

const previewOf = (rows: readonly TradeRow[]) =>
  ({
    action: "column",
    environment: "sandbox",
    account: { account_address: "0xACC0" },
    lines: rows.map((row) => ({ row, blockers: [] })),
    blockers: [],
    cancelled: false,
  }) as unknown as Preview;

/** A desk that previews what it is given and logs one row per key it is handed (as the journal does). */
function scriptedDesk(workbook: MemoryWorkbook) {
  const sent: TradeRow[][] = [];
  const desk = {
    preview: async (_action: string, rows: TradeRow[]) => previewOf(rows),
    send: async (preview: Preview, options?: SendOptions): Promise<SendResult> => {
      sent.push(preview.lines.map((l) => l.row));
      const keys = options?.approval?.idempotencyKeys ?? [];
      await workbook.appendLog(keys.map((k) => logRow({ idempotencyKey: k, approvedBy: options?.approval?.approvedBy })));
      return { rows: [], skipped: [] };
    },
  } as unknown as TradingDesk;
  return { desk, sent };
}

async function setup() {
  const workbook = new MemoryWorkbook();
  const store = new MemoryIntentStore();
  let t = Date.UTC(2026, 10, 25, 9, 0, 0);
  const approvals = new Approvals({ sheet: workbook, now: () => new Date((t += 60_000)), journal: memoryApprovalJournal(store) });
  const batch = await approvals.submit(previewOf(ROWS), PREPARER);
  const cells = () => workbook.cells(APPROVALS_SHEET_NAME);
  const edit = (change: (grid: CellValue[][]) => void) => {
    const grid = cells();
    change(grid);
    workbook.setSheet(APPROVALS_SHEET_NAME, grid);
  };
  /** A co-author's rewrite: the rows given, with their digests, keys and the batch hash recomputed (anyone can). */
  const forge = (rows: TradeRow[]) =>
    edit((g) => {
      const lines = blockLines({ ...batch, status: "pending", hash: batchHash(rows, bindingOf(batch)), rows });
      lines.forEach((line, i) => (g[i] = line));
    });
  return { workbook, store, approvals, batch, cells, edit, forge, ...scriptedDesk(workbook) };
}

const swapped = ROWS.map((r) => ({ ...r, side: r.side === "buy" ? ("sell" as const) : ("buy" as const) }));

describe("Approve sends exactly what the check showed", () => {
  it("a block rewritten with a recomputed hash between Check and Approve: nothing written, nothing sent, and it says what changed", async () => {
    const { approvals, batch, cells, forge, desk, sent } = await setup();
    const shown = await approvals.check(batch.id, APPROVER);
    expect(shown.refusal).toBeNull();
    forge(swapped);
    expect((await approvals.check(batch.id, APPROVER)).refusal).toBeNull(); // the forged block alone passes its own hash
    const approving = approvals.approve(batch.id, APPROVER, desk, async () => true, shown);
    await expect(approving).rejects.toThrow(
      /changed on the sheet since you checked it: row 1: Side changed; row 2: Side changed; Batch hash [0-9a-f]{12}… when checked, [0-9a-f]{12}… now\. Nothing was sent/,
    );
    expect(sent).toEqual([]);
    expect(cells()[1][1]).toBe("pending");
  });

  it("a block rewritten while the LIVE question is open: refused after the answer, before anything is marked or sent", async () => {
    const { approvals, batch, cells, forge, desk, sent } = await setup();
    const shown = await approvals.check(batch.id, APPROVER);
    const approving = approvals.approve(
      batch.id,
      APPROVER,
      desk,
      async () => {
        forge([ROWS[0], { ...ROWS[1], notional: 90_000 }]);
        return true;
      },
      shown,
    );
    await expect(approving).rejects.toThrow(/row 2: Notional changed/);
    expect(sent).toEqual([]);
    expect(cells()[1][1]).toBe("pending");
  });

  it("the block as shown is sent, and only it", async () => {
    const { approvals, batch, desk, sent } = await setup();
    const shown = await approvals.check(batch.id, APPROVER);
    await approvals.approve(batch.id, APPROVER, desk, async () => true, shown);
    expect(sent).toEqual([ROWS.map((r, i) => ({ ...r, rowNumber: 4 + i }))]); // the block's rows, at their Approvals sheet rows
  });
});

describe("approve again to finish: held to the hash the approval was made on (issue 40)", () => {
  it("a Reduce rewritten from 30,000 to 90,000 in a batch left approved, its hash recomputed: refused here and elsewhere, nothing sent", async () => {
    const { workbook, approvals, batch, edit } = await setup();
    const rows: TradeRow[] = [ROWS[0], { ...ROWS[1], action: "reduce", notional: 30_000, tenor: null }];
    const reduce = await approvals.submit(previewOf(rows), PREPARER);
    // A send cut short: the first row's key reaches the log (with the batch hash it was approved on), the second's not.
    const sent: number[] = [];
    const halfway = {
      preview: async (_action: string, read: TradeRow[]) => previewOf(read),
      send: async (preview: Preview, options?: SendOptions): Promise<SendResult> => {
        sent.push(preview.lines.length);
        const first = options!.approval!.idempotencyKeys![0];
        await workbook.appendLog([logRow({ idempotencyKey: first, approvedBy: APPROVER, batchHash: options!.approval!.batchHash })]);
        return { rows: [], skipped: [] };
      },
    } as unknown as TradingDesk;
    await approvals.approve(reduce.id, APPROVER, halfway);
    expect(sent).toEqual([2]);
    const top = workbook.cells(APPROVALS_SHEET_NAME).findIndex((line, i) => i > 0 && line[0] === reduce.id) - 1;
    const approved = workbook.cells(APPROVALS_SHEET_NAME)[top + 1];
    expect(approved[1]).toBe("approved");

    // A co-author rewrites the approved block: the Reduce's amount tripled, digests and hash recomputed, the decision kept.
    const rewritten: TradeRow[] = [rows[0], { ...rows[1], notional: 90_000 }];
    edit((g) => {
      const lines = blockLines({
        ...reduce,
        status: "approved",
        approvedBy: APPROVER,
        decidedAt: String(approved[7]),
        hash: batchHash(rewritten, bindingOf(reduce)),
        rows: rewritten,
      });
      lines.forEach((line, i) => (g[top + i] = line));
    });
    const finishing = approvals.approve(reduce.id, APPROVER, halfway);
    await expect(finishing).rejects.toThrow(
      new RegExp(
        `Batch ${reduce.id} was approved on batch hash ${reduce.hash.slice(0, 12)}…, and its block now reads [0-9a-f]{12}…: the block was rewritten after the approval, so it is not finished\\. Nothing was sent`,
      ),
    );
    // Another computer (no journal of the decision): the Hedge Log's row of the batch names the hash it was approved on.
    const elsewhere = await new Approvals({ sheet: workbook, now: SAME_DAY }).check(reduce.id, APPROVER);
    expect(elsewhere.refusal).toContain(`was approved on batch hash ${reduce.hash.slice(0, 12)}…`);
    expect(sent).toEqual([2]);
    expect(batch.id).not.toBe(reduce.id);
  });

  it("a batch approved here whose send sent nothing, typed back to pending and rewritten with its hash recomputed: refused, nothing sent under the approval's keys", async () => {
    const { workbook, approvals, batch, forge } = await setup();
    const sent: TradeRow[][] = [];
    const nothingYet = {
      preview: async (_action: string, read: TradeRow[]) => previewOf(read),
      send: async (preview: Preview): Promise<SendResult> => {
        sent.push(preview.lines.map((l) => l.row));
        return { rows: [], skipped: [] }; // parked: nothing reached the service, nothing logged
      },
    } as unknown as TradingDesk;
    await approvals.approve(batch.id, APPROVER, nothingYet);
    expect(sent).toHaveLength(1);
    expect(workbook.cells(APPROVALS_SHEET_NAME)[1][1]).toBe("approved");
    forge(swapped); // Status back to pending, the sides swapped, digests and hash recomputed
    const refused = new RegExp(
      `^Batch ${batch.id} was approved on batch hash ${batch.hash.slice(0, 12)}…, and its block now reads [0-9a-f]{12}…: the block was rewritten after the approval`,
    );
    expect((await approvals.check(batch.id, SECOND)).refusal).toMatch(refused);
    await expect(approvals.approve(batch.id, APPROVER, nothingYet)).rejects.toThrow(refused);
    expect(sent).toHaveLength(1);
    // Typed back to pending as it was approved (an unsaved workbook): the approval is taken up again.
    forge(ROWS);
    expect((await approvals.check(batch.id, APPROVER)).refusal).toBeNull();
  });
});

describe("the approval record: what the Status cell cannot undo", () => {
  it("a batch typed back from rejected to pending is refused, with the reason; another key cannot approve it", async () => {
    const { approvals, batch, edit, desk, sent } = await setup();
    await approvals.reject(batch.id, APPROVER, "wrong side");
    edit((g) => {
      g[1][1] = "pending";
      g[1][6] = g[1][7] = g[1][8] = "";
    });
    const check = await approvals.check(batch.id, SECOND);
    expect(check.refusal).toMatch(
      /was rejected by fp-[0-9a-f]{16} at .* \(this computer's record\), but its Status cell now reads "pending": a status typed back is refused/,
    );
    await expect(approvals.approve(batch.id, SECOND, desk, async () => true, check)).rejects.toThrow(/a status typed back is refused/);
    await expect(approvals.reject(batch.id, SECOND, "again")).rejects.toThrow(/a status typed back is refused/);
    expect(sent).toEqual([]);
  });

  it("an executed batch typed back to pending on a computer without the journal: the Hedge Log's rows of its keys refuse it", async () => {
    const { workbook, batch } = await setup();
    await workbook.appendLog([logRow({ idempotencyKey: approvalKey(batch.id, 1), approvedBy: APPROVER })]);
    const elsewhere = new Approvals({ sheet: workbook, now: SAME_DAY }); // another computer: no decision journalled there
    const check = await elsewhere.check(batch.id, SECOND);
    expect(check.refusal).toMatch(
      /rows are in the Hedge Log \(approved by fp-[0-9a-f]{16}, logged .*\), but its Status cell reads "pending": a status typed back is refused/,
    );
  });

  it('"approved" typed into a pending block is not "approve again to finish": refused', async () => {
    const { approvals, batch, edit, desk, sent } = await setup();
    edit((g) => {
      g[1][1] = "approved";
      g[1][6] = SECOND;
    });
    await expect(approvals.approve(batch.id, SECOND, desk, async () => true)).rejects.toThrow(
      /reads "approved", but neither this computer's record nor the Hedge Log shows that approval: a status typed in is refused/,
    );
    expect(sent).toEqual([]);
  });

  it("Prepared by naming a key this computer has approved with is refused (the preparer's name typed over)", async () => {
    const { approvals, batch, desk, workbook } = await setup();
    await approvals.approve(batch.id, APPROVER, desk, async () => true);
    // The preparer (using APPROVER's computer and key before) types the approver's fingerprint as the preparer of a new batch.
    const forged = await approvals.submit(previewOf(ROWS), APPROVER);
    expect((await approvals.check(forged.id, SECOND)).refusal).toMatch(
      new RegExp(`Prepared by names ${APPROVER}, a key this computer has approved batches with`),
    );
    expect((await new Approvals({ sheet: workbook, now: SAME_DAY }).check(forged.id, SECOND)).refusal).toBeNull(); // only this computer knows
  });

  it("the decision is journalled on the deciding computer, and a final one is never replaced", async () => {
    const { store, approvals, batch, desk } = await setup();
    await approvals.approve(batch.id, APPROVER, desk, async () => true);
    const journal = memoryApprovalJournal(store);
    expect(await journal.loadDecision(batch.id)).toMatchObject({ batchId: batch.id, hash: batch.hash, status: "executed", by: APPROVER });
    await journal.putDecision({ batchId: batch.id, hash: batch.hash, status: "approved", by: SECOND, at: "2026-11-25T10:00:00.000Z" });
    expect((await journal.loadDecision(batch.id))?.status).toBe("executed");
    expect(await journal.hasApproved(APPROVER)).toBe(true);
    expect(await journal.hasApproved(SECOND)).toBe(false);
  });
});

describe("recordRefusal and doneSince (pure)", () => {
  const batch = (over: Partial<ApprovalBatch> = {}): ApprovalBatch => ({
    id: "AB-20261125-0123456789ab",
    status: "pending",
    hash: "a".repeat(64),
    preparedBy: PREPARER,
    preparedAt: "2026-11-25T09:01:00.000Z",
    rows: [],
    approvedBy: null,
    decidedAt: null,
    reason: null,
    ...over,
  });
  const none = { journalled: null, logRows: [], preparerApprovedHere: false };
  const decided = (status: "approved" | "rejected" | "executed", by = APPROVER) => ({
    ...none,
    journalled: { batchId: batch().id, hash: batch().hash, status, by, at: "2026-11-25T09:05:00.000Z" },
  });

  it("agrees with a pending batch nothing decided, and with a status that matches the record", () => {
    expect(recordRefusal(batch(), none, APPROVER)).toBeNull();
    expect(recordRefusal(batch({ status: "rejected" }), decided("rejected"), APPROVER)).toBeNull();
    expect(recordRefusal(batch({ status: "approved", approvedBy: APPROVER }), decided("approved"), APPROVER)).toBeNull();
    const logged = { ...none, logRows: [{ approvedBy: APPROVER, loggedAt: "2026-11-25T09:06:00.000Z" }] };
    expect(recordRefusal(batch({ status: "approved", approvedBy: APPROVER }), logged, APPROVER)).toBeNull();
  });

  it("an executed mark lost with an unsaved workbook may be finished by its approver, by no one else", () => {
    const lost = batch({ status: "approved", approvedBy: APPROVER });
    expect(recordRefusal(lost, decided("executed"), APPROVER)).toBeNull();
    expect(recordRefusal(batch({ status: "approved", approvedBy: SECOND }), decided("executed"), SECOND)).toMatch(/typed back/);
    expect(recordRefusal(lost, decided("executed", SECOND), APPROVER)).toMatch(/typed back/);
    expect(recordRefusal(batch({ status: "pending" }), decided("executed"), APPROVER)).toMatch(/was executed by/);
  });

  it('"approved" read for another approver is left to judgeBlock ("only that approver can finish")', () => {
    expect(recordRefusal(batch({ status: "approved", approvedBy: SECOND }), none, APPROVER)).toBeNull();
    expect(recordRefusal(batch({ status: "approved", approvedBy: APPROVER }), decided("approved", SECOND), APPROVER)).toMatch(
      /typed in is refused/,
    );
  });

  it("doneSince: the id's UTC day, or an earlier Prepared at; a later typed Prepared at cannot narrow it", () => {
    expect(doneSince(batch())).toBe("2026-11-25T00:00:00.000Z");
    expect(doneSince(batch({ preparedAt: "2026-11-24T23:59:00.000Z" }))).toBe("2026-11-24T23:59:00.000Z");
    expect(doneSince(batch({ preparedAt: "2026-12-31T00:00:00.000Z" }))).toBe("2026-11-25T00:00:00.000Z");
    expect(doneSince(batch({ id: "X-1", preparedAt: "2026-11-25T09:01:00.000Z" }))).toBe("2026-11-25T09:01:00.000Z");
    expect(doneSince(batch({ id: "X-1", preparedAt: "soon" }))).toBeUndefined();
  });
});
