// The approval desk's rules in their exact words and outcomes (issue 31, mutation survivors): the memory journal keeps a final decision, who may approve, how a send settles the batch, the check's refusal, the batch found by id, the list order, and the refusals of a preview that cannot go whole.
import { publicKeyFingerprint } from "../../../src/api/environment";
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { ApprovalRefusedError, Approvals, memoryJournal } from "../../../src/trading/approvals/approval-desk";
import { APPROVALS_SHEET_NAME, approvalKey, type ApprovalBatch } from "../../../src/trading/approvals/block";
import { recordRefusal } from "../../../src/trading/approvals/record";
import type { CellValue } from "../../../src/trading/cells";
import type { Preview, RowStatus, SendOptions, SendResult, TradeRow } from "../../../src/trading/types";
import type { TradingDesk } from "../../../src/trading/desk/contract";
import { logRow } from "../../support/builders";

/** Another computer's clock, a few hours after the batches here were prepared (within their approval's validity). */
const SAME_DAY = () => new Date(Date.UTC(2026, 10, 25, 12, 0, 0));

const PREPARER = publicKeyFingerprint("svc_test_demo_read_key_0001");
const APPROVER = publicKeyFingerprint("svc_test_demo_sandbox_key_0001");
const SECOND = publicKeyFingerprint("svc_test_demo_approver_key_0001");
const AT = "2026-11-25T09:05:00.000Z";

const ROWS: TradeRow[] = [
  { rowNumber: 5, action: "open", market: "USDTNGN", side: "buy", notional: 20_000, tenor: 7, clientReference: "DEAL-1" },
  { rowNumber: 6, action: "open", market: "USDTNGN", side: "sell", notional: 10_000, tenor: 7, clientReference: "DEAL-2" },
];

type Line = { row: TradeRow; blockers: string[] };
const previewOf = (rows: readonly TradeRow[], over: { lines?: Line[]; blockers?: string[]; cancelled?: boolean } = {}) =>
  ({
    action: "column",
    environment: "sandbox",
    account: { account_address: "0xACC0" },
    lines: over.lines ?? rows.map((row) => ({ row, blockers: [] })),
    blockers: over.blockers ?? [],
    cancelled: over.cancelled ?? false,
  }) as unknown as Preview;

/** A send's row as the desk returns it, reduced to what settle reads. */
const sentRow = (status: string, errorCode: string | null) => ({ status, errorCode }) as unknown as RowStatus;

/**
 * A desk that previews what it is given (or `previewed`), logs the keys of the positions `logged` (all by default) and
 * answers `rows` (none by default).
 */
function desk(workbook: MemoryWorkbook, script: { logged?: number[]; rows?: RowStatus[]; previewed?: Preview } = {}) {
  const sent: string[][] = [];
  const d = {
    preview: async (_action: string, rows: TradeRow[]) => script.previewed ?? previewOf(rows),
    doneBeforeApproval: async () => new Map<number, string>(),
    send: async (_preview: Preview, options?: SendOptions): Promise<SendResult> => {
      const keys = options?.approval?.idempotencyKeys ?? [];
      sent.push([...keys]);
      const logged = keys.filter((_, i) => script.logged?.includes(i + 1) ?? true);
      await workbook.appendLog(logged.map((k) => logRow({ idempotencyKey: k, approvedBy: options?.approval?.approvedBy })));
      return { rows: script.rows ?? [], skipped: [] };
    },
  } as unknown as TradingDesk;
  return { desk: d, sent };
}

async function setup(times: number[] = []) {
  const workbook = new MemoryWorkbook();
  let t = Date.UTC(2026, 10, 25, 9, 0, 0);
  const clock = [...times];
  const approvals = new Approvals({ sheet: workbook, now: () => new Date(clock.shift() ?? (t += 60_000)) });
  const batch = await approvals.submit(previewOf(ROWS), PREPARER);
  const cells = () => workbook.cells(APPROVALS_SHEET_NAME);
  const edit = (change: (grid: CellValue[][]) => void) => {
    const grid = cells();
    change(grid);
    workbook.setSheet(APPROVALS_SHEET_NAME, grid);
  };
  return { workbook, approvals, batch, cells, edit };
}

describe("the memory journal keeps a final decision and knows who approved", () => {
  const decision = (status: "approved" | "rejected" | "executed", by: string) => ({ batchId: "AB-1", hash: "h", status, by, at: AT });

  it("a rejected or executed decision is never replaced; an approved one is, by the same batch's next decision", async () => {
    for (const final of ["rejected", "executed"] as const) {
      const journal = memoryJournal();
      await journal.putDecision(decision(final, APPROVER));
      await journal.putDecision(decision("approved", SECOND));
      expect(await journal.loadDecision("AB-1")).toEqual(decision(final, APPROVER));
    }
    const journal = memoryJournal();
    await journal.putDecision(decision("approved", APPROVER));
    await journal.putDecision(decision("executed", APPROVER));
    expect((await journal.loadDecision("AB-1"))?.status).toBe("executed");
  });

  it("a key that approved is remembered as an approver; a key that only rejected is not", async () => {
    const journal = memoryJournal();
    await journal.putDecision(decision("rejected", SECOND));
    await journal.putDecision({ ...decision("approved", APPROVER), batchId: "AB-2" });
    expect(await journal.hasApproved(APPROVER)).toBe(true);
    expect(await journal.hasApproved(SECOND)).toBe(false);
  });
});

describe("who may approve: the record's rules (recordRefusal)", () => {
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
  const executedBy = (by: string) => ({
    ...none,
    journalled: { batchId: batch().id, hash: batch().hash, status: "executed" as const, by, at: AT },
  });

  it("an executed batch typed back to pending is refused even to its approver, its Approved by cell left", () => {
    expect(recordRefusal(batch({ status: "pending", approvedBy: APPROVER }), executedBy(APPROVER), APPROVER)).toBe(
      `Batch AB-20261125-0123456789ab was executed by ${APPROVER} at ${AT} (this computer's record), but its Status cell now reads "pending": a status typed back is refused. It is never approved again: prepare and submit it anew.`,
    );
  });

  it("an executed batch reading approved by another key is not its approver's to finish", () => {
    expect(recordRefusal(batch({ status: "approved", approvedBy: SECOND }), executedBy(APPROVER), APPROVER)).toMatch(
      /^Batch AB-20261125-0123456789ab was executed by .* but its Status cell now reads "approved": a status typed back is refused/,
    );
  });

  it("a pending batch with an Approved by cell filled is not taken for a typed-in approval", () => {
    expect(recordRefusal(batch({ status: "pending", approvedBy: APPROVER }), none, APPROVER)).toBeNull();
  });

  it('"approved" by this key with only another key\'s rows in the log: the approval is not shown, refused', () => {
    const logged = { ...none, logRows: [{ approvedBy: SECOND, loggedAt: AT }] };
    expect(recordRefusal(batch({ status: "approved", approvedBy: APPROVER }), logged, APPROVER)).toBe(
      `Batch AB-20261125-0123456789ab reads "approved", but neither this computer's record nor the Hedge Log shows that approval: a status typed in is refused. Ask the preparer to submit the batch again.`,
    );
  });

  it('log rows without an approver name one as "an approver"; two reasons are two sentences, a space apart', () => {
    const record = { ...none, logRows: [{ approvedBy: null, loggedAt: AT }], preparerApprovedHere: true };
    expect(recordRefusal(batch(), record, APPROVER)).toBe(
      `Batch AB-20261125-0123456789ab's rows are in the Hedge Log (approved by an approver, logged ${AT}), but its Status cell reads "pending": a status typed back is refused. It was approved and sent; it is never approved again. ` +
        `Prepared by names ${PREPARER}, a key this computer has approved batches with: the preparer's name may have been typed over. Ask the preparer to submit the batch again under their own key.`,
    );
  });
});

describe("check: the block's refusal and the record's, in one", () => {
  it("the preparer's own key: the block's refusal alone, nothing appended", async () => {
    const { approvals, batch } = await setup();
    const refusal = (await approvals.check(batch.id, PREPARER)).refusal;
    expect(refusal).toMatch(/^The key that prepared a batch cannot approve it: /);
    expect(refusal).toMatch(/\.$/);
  });

  it("a batch whose rows are in the log, typed back to pending: the record's refusal alone, whole", async () => {
    const { workbook, batch } = await setup();
    await workbook.appendLog([logRow({ idempotencyKey: approvalKey(batch.id, 2), approvedBy: APPROVER, loggedAt: AT })]);
    expect((await new Approvals({ sheet: workbook, now: SAME_DAY }).check(batch.id, SECOND)).refusal).toBe(
      `Batch ${batch.id}'s rows are in the Hedge Log (approved by ${APPROVER}, logged ${AT}), but its Status cell reads "pending": a status typed back is refused. It was approved and sent; it is never approved again.`,
    );
  });

  it("both refuse: the block's refusal, a space, then the record's", async () => {
    const { workbook, batch } = await setup();
    await workbook.appendLog([logRow({ idempotencyKey: approvalKey(batch.id, 1), approvedBy: APPROVER, loggedAt: AT })]);
    const refusal = (await new Approvals({ sheet: workbook, now: SAME_DAY }).check(batch.id, PREPARER)).refusal!;
    expect(refusal).toMatch(
      new RegExp(`^The key that prepared a batch cannot approve it: [^]*\\. Batch ${batch.id}'s rows are in the Hedge Log \\(approved by`),
    );
  });

  it("the Rows cell typed over: the log is still read at every row line's key, and the rows found there refuse it", async () => {
    const { workbook, batch, edit } = await setup();
    await workbook.appendLog([logRow({ idempotencyKey: approvalKey(batch.id, 2), approvedBy: APPROVER, loggedAt: AT })]);
    edit((g) => (g[1][3] = "two"));
    expect((await new Approvals({ sheet: workbook, now: SAME_DAY }).check(batch.id, SECOND)).refusal).toContain(
      `Batch ${batch.id}'s rows are in the Hedge Log (approved by ${APPROVER}, logged ${AT})`,
    );
  });

  it("a workbook that reads the whole sheet for an id: the batch named is the one checked and approved", async () => {
    const { workbook, approvals, batch } = await setup();
    const second = await approvals.submit(previewOf(ROWS.slice(0, 1)), PREPARER);
    const whole = Object.assign(Object.create(workbook) as MemoryWorkbook, { readApprovals: () => workbook.readApprovals() });
    const reading = new Approvals({ sheet: whole, now: SAME_DAY });
    expect((await reading.check(second.id, SECOND)).batch).toMatchObject({
      id: second.id,
      rows: [expect.objectContaining({ clientReference: "DEAL-1" })],
    });
    const { desk: d, sent } = desk(workbook);
    await reading.approve(second.id, SECOND, d);
    expect(sent).toEqual([[approvalKey(second.id, 1)]]);
    expect((await reading.check(batch.id, SECOND)).batch.id).toBe(batch.id);
  });
});

describe("a fingerprint, and the error's name", () => {
  it('only "fp-" and 16 hex digits, nothing before or after; the field named', async () => {
    const { approvals, batch } = await setup();
    const words = (field: string) =>
      `${field} must be the key's public fingerprint (publicKeyFingerprint(key), "fp-" and 16 hex digits), never the key itself.`;
    for (const bad of [`x${APPROVER}`, `${APPROVER}0`]) {
      await expect(approvals.submit(previewOf(ROWS), bad)).rejects.toThrow(words("preparedBy"));
      await expect(approvals.check(batch.id, bad)).rejects.toThrow(words("approverFingerprint"));
      await expect(approvals.reject(batch.id, bad, "no")).rejects.toThrow(words("approverFingerprint"));
    }
  });

  it("a refusal is an ApprovalRefusedError by name", async () => {
    const { approvals, batch } = await setup();
    await expect(approvals.reject(batch.id, APPROVER, " ")).rejects.toMatchObject({ name: "ApprovalRefusedError" });
    await expect(approvals.reject(batch.id, APPROVER, " ")).rejects.toBeInstanceOf(ApprovalRefusedError);
  });
});

describe("the list: newest Prepared at first; at the same time, the lower block first", () => {
  it("a batch prepared earlier but written below is listed after; two at the same minute, the later written first", async () => {
    const nine = Date.UTC(2026, 10, 25, 9, 0, 0);
    const { approvals, batch } = await setup([nine + 600_000, nine, nine + 300_000, nine + 300_000]);
    const earlier = await approvals.submit(previewOf(ROWS), PREPARER);
    const tieA = await approvals.submit(previewOf(ROWS), PREPARER);
    const tieB = await approvals.submit(previewOf(ROWS), PREPARER);
    expect((await approvals.list()).map((b) => b.id)).toEqual([batch.id, tieB.id, tieA.id, earlier.id]);
  });
});

describe("after the send: executed, rejected, or still approved", () => {
  const scope = sentRow("rejected", "insufficient_scope");

  it("every row refused for scope: rejected, with the reason", async () => {
    const { workbook, approvals, batch, cells } = await setup();
    await approvals.approve(batch.id, APPROVER, desk(workbook, { logged: [], rows: [scope, scope] }).desk);
    expect(cells()[1][1]).toBe("rejected");
    expect(cells()[1][8]).toMatch(/^The approving key cannot trade \(403 insufficient_scope\)/);
  });

  for (const [what, rows] of [
    ["one row refused for scope, one sent", [scope, sentRow("submitted", null)]],
    ["every row refused for another reason", [sentRow("rejected", "insufficient_balance"), sentRow("rejected", "insufficient_balance")]],
    ["every row failed, not refused", [sentRow("failed", "insufficient_scope"), sentRow("failed", "insufficient_scope")]],
  ] as const) {
    it(`${what}, a row missing from the log: still approved`, async () => {
      const { workbook, approvals, batch, cells } = await setup();
      await approvals.approve(batch.id, APPROVER, desk(workbook, { logged: [1], rows: [...rows] }).desk);
      expect(cells()[1][1]).toBe("approved");
    });
  }

  it("one key of two in the log: still approved; the second in too: executed", async () => {
    const { workbook, approvals, batch, cells } = await setup();
    await approvals.approve(batch.id, APPROVER, desk(workbook, { logged: [1] }).desk);
    expect(cells()[1][1]).toBe("approved");
    await approvals.approve(batch.id, APPROVER, desk(workbook, { logged: [2] }).desk);
    expect(cells()[1][1]).toBe("executed");
  });
});

describe("a preview that cannot go whole: refused in full sentences", () => {
  it("submit: no rows; cancelled; blockers of the batch and of a row, each reason after a semicolon", async () => {
    const { approvals } = await setup();
    const refused = (reasons: string) =>
      `Not submitted for approval: ${reasons}. Fix the rows and preview again; an approver can only send a batch that can go whole.`;
    await expect(approvals.submit(previewOf([]), PREPARER)).rejects.toThrow(refused("the preview has no rows"));
    await expect(approvals.submit(previewOf(ROWS, { cancelled: true }), PREPARER)).rejects.toThrow(
      refused("the preview was cancelled before every row was priced"),
    );
    const lines = [
      { row: ROWS[0], blockers: ["No open hedge.", "Market closed."] },
      { row: ROWS[1], blockers: [] },
    ];
    await expect(approvals.submit(previewOf(ROWS, { lines, blockers: ["Balance too low."] }), PREPARER)).rejects.toThrow(
      refused("Balance too low.; row 5: No open hedge. Market closed"),
    );
  });

  it("approve: a preview with no rows or cancelled now is refused, nothing sent, the batch left pending", async () => {
    for (const [previewed, reason] of [
      [previewOf([]), "the preview has no rows"],
      [previewOf(ROWS, { cancelled: true }), "the preview was cancelled before every row was priced"],
    ] as const) {
      const { workbook, approvals, batch, cells } = await setup();
      const { desk: d, sent } = desk(workbook, { previewed });
      await expect(approvals.approve(batch.id, APPROVER, d)).rejects.toThrow(
        `Batch ${batch.id} was not approved: ${reason}. Nothing was sent; it stays pending.`,
      );
      expect(sent).toEqual([]);
      expect(cells()[1][1]).toBe("pending");
    }
  });
});
