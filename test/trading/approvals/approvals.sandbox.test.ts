// Four-eyes approval against the sandbox over HTTP: a read-only key prepares, an edit blocks approval naming the row, the preparer's key cannot approve, a second key approves and the batch trades once, however often it is approved again.
import { publicKeyFingerprint } from "../../../src/api/environment";
import { defaultAccounts } from "../../../src/sandbox/accounts";
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { ApprovalRefusedError, Approvals } from "../../../src/trading/approvals/approval-desk";
import { APPROVALS_SHEET_NAME, approvalKey } from "../../../src/trading/approvals/block";
import type { CellValue } from "../../../src/trading/cells";
import type { Preview } from "../../../src/trading/types";
import type { RunningSandbox } from "../../../src/sandbox/server";
import { DEMO_API_KEY, DEMO_READ_API_KEY } from "../../../src/sandbox/demo";
import { controlOk, serviceState, start } from "../../sandbox/helpers";
import { sandboxWorld } from "../../support/sandbox-world";

const PREPARER = publicKeyFingerprint(DEMO_READ_API_KEY);
const APPROVER = publicKeyFingerprint(DEMO_API_KEY);
const GRID: CellValue[][] = [
  ["Action", "Market", "Side", "Notional", "Tenor", "Client reference"],
  ["Open", "USDTNGN", "buy", "120,000", 7, "APPROVE-1"],
  ["Open", "USDTNGN", "sell", 45_000.25, 3, "APPROVE-2"],
];

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start({ accounts: defaultAccounts(), fillMs: 100 });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

/** A person's desk with `apiKey` on the shared workbook, without this computer's journal. */
const deskOn = (workbook: MemoryWorkbook, apiKey: string) =>
  sandboxWorld(sb, apiKey, { workbook, intentStore: null, pollIntervalMs: 100 }).desk();

/** One workbook, two people: the preparer's desk on the read-only key, the approver's on the trading key. */
async function setup() {
  const workbook = new MemoryWorkbook({ sheets: { Exposures: GRID } }).select("Exposures", `A2:F${GRID.length}`);
  const approvals = new Approvals({ sheet: workbook });
  const preparerDesk = await deskOn(workbook, DEMO_READ_API_KEY);
  const approverDesk = await deskOn(workbook, DEMO_API_KEY);
  const read = await preparerDesk.readRows("open");
  expect(read.problems).toEqual([]);
  const preview = await preparerDesk.preview(read.action, read.rows);
  const batch = await approvals.submit(preview, PREPARER);
  const hedges = async () => (await serviceState(sb, DEMO_API_KEY)).hedges.length;
  const status = () => workbook.cells(APPROVALS_SHEET_NAME)[1][1];
  const edit = (change: (grid: CellValue[][]) => void) => {
    const grid = workbook.cells(APPROVALS_SHEET_NAME);
    change(grid);
    workbook.setSheet(APPROVALS_SHEET_NAME, grid);
  };
  return { workbook, approvals, preparerDesk, approverDesk, batch, hedges, status, edit };
}

test("a read-only preparer submits; edits block approval naming the row; the preparer's key cannot approve; nothing trades meanwhile", async () => {
  const { approvals, preparerDesk, approverDesk, batch, hedges, status, edit } = await setup();
  const before = await hedges();
  expect(batch).toMatchObject({ status: "pending", preparedBy: PREPARER, approvedBy: null });
  expect(batch.rows.map((r) => [r.clientReference, r.notional])).toEqual([
    ["APPROVE-1", 120_000],
    ["APPROVE-2", 45_000.25],
  ]);

  const refused = async (message: RegExp, key = APPROVER, desk = approverDesk) => {
    await expect(approvals.approve(batch.id, key, desk)).rejects.toThrow(ApprovalRefusedError);
    expect((await approvals.check(batch.id, key)).refusal).toMatch(message);
  };
  edit((g) => (g[4][3] = 45_000.26));
  await refused(/row 2 \(sheet row 5\): Notional changed/);
  edit((g) => (g[4][3] = 45_000.25));
  edit((g) => g.splice(4, 0, ["open", "USDTNGN", "buy", 1_000, 1, "SNEAK"]));
  await refused(/row 2 \(sheet row 5\): added/);
  edit((g) => g.splice(4, 2));
  await refused(/row 2 as prepared: removed/);
  const fresh = await approvals.submit(await preparerDesk.preview("column", batch.rows), PREPARER);
  expect(fresh.hash).not.toBe(batch.hash); // the same rows prepared later: the time is in the hash
  edit((g) => {
    const at = g.findIndex((r) => r[0] === fresh.id) + 2;
    [g[at], g[at + 1]] = [g[at + 1], g[at]];
  });
  await expect(approvals.check(fresh.id, APPROVER)).resolves.toMatchObject({
    refusal: expect.stringMatching(/row 1 \(sheet row \d+\): moved \(prepared as row 2\)/),
  });
  await refused(/The key that prepared a batch cannot approve it: approval needs a second person's trading key/, PREPARER, preparerDesk);
  expect(status()).toBe("pending");
  expect(await hedges()).toBe(before);
});

test("a second key approves: the batch trades once with the LIVE confirmation, is marked executed, and approving again trades nothing", async () => {
  const { workbook, approvals, approverDesk, batch, hedges, status, edit } = await setup();
  const before = await hedges();
  const confirmed: Preview[] = [];
  const result = await approvals.approve(batch.id, APPROVER, approverDesk, async (p) => {
    confirmed.push(p);
    expect(status()).toBe("pending"); // nothing is marked before the approver confirms
    return true;
  });
  expect(confirmed).toHaveLength(1);
  expect(confirmed[0].lines.map((l) => l.row.clientReference)).toEqual(["APPROVE-1", "APPROVE-2"]);
  expect(result.rows).toHaveLength(2);
  await approverDesk.settled(20_000);
  expect(await hedges()).toBe(before + 2);
  const executed = (await approvals.list())[0];
  expect(executed).toMatchObject({ id: batch.id, status: "executed", approvedBy: APPROVER });

  const log = await workbook.readLog();
  expect(log.map((r) => [r.clientReference, r.idempotencyKey, r.batchHash, r.preparedBy, r.approvedBy])).toEqual([
    ["APPROVE-1", approvalKey(batch.id, 1), batch.hash, PREPARER, APPROVER],
    ["APPROVE-2", approvalKey(batch.id, 2), batch.hash, PREPARER, APPROVER],
  ]);

  // A second approve is refused; a crash that lost the "executed" mark is finished by the same approver without trading again.
  await expect(approvals.approve(batch.id, APPROVER, approverDesk)).rejects.toThrow(/already approved by .* and executed/);
  edit((g) => (g[1][1] = "approved"));
  await expect(approvals.approve(batch.id, publicKeyFingerprint("svc_test_someone_else_0001"), approverDesk)).rejects.toThrow(
    /only that approver can finish/,
  );
  await approvals.approve(batch.id, APPROVER, approverDesk);
  await approverDesk.settled(20_000);
  expect(status()).toBe("executed");
  expect(await hedges()).toBe(before + 2);

  // Status typed back to pending: a third person's trading key (on the same account) is refused by the preview, trading nothing.
  const third = "svc_test_third_approver_key_0001";
  await controlOk(sb, "POST", "/accounts/keys", { account_key: DEMO_API_KEY, api_key: third, scopes: ["read", "trade"] });
  const thirdDesk = await deskOn(workbook, third);
  edit((g) => (g[1][1] = "pending"));
  await expect(approvals.approve(batch.id, publicKeyFingerprint(third), thirdDesk, async () => true)).rejects.toThrow(
    /was executed by .* \(this computer's record\), but its Status cell now reads "pending": a status typed back is refused/,
  );
  expect(status()).toBe("pending");
  expect(await hedges()).toBe(before + 2);
  expect((await workbook.readLog()).length).toBe(2);
});

test("reject needs a reason, and a rejected batch is never sent", async () => {
  const { approvals, approverDesk, batch, hedges, status } = await setup();
  const before = await hedges();
  await expect(approvals.reject(batch.id, APPROVER, "")).rejects.toThrow(/Reason is empty/);
  await approvals.reject(batch.id, APPROVER, "USDTNGN limit reached for the week");
  expect(status()).toBe("rejected");
  await expect(approvals.approve(batch.id, APPROVER, approverDesk)).rejects.toThrow(/was rejected by .*USDTNGN limit reached/);
  expect(await hedges()).toBe(before);
});

test("an approver whose key cannot trade: every row refused 403, nothing traded, the batch rejected with the reason", async () => {
  const { approvals, preparerDesk, hedges, status } = await setup();
  const before = await hedges();
  // Prepared by the trading key this time; the read-only key approves.
  const read = await preparerDesk.readRows("open");
  const preview = await preparerDesk.preview(read.action, read.rows);
  const batch = await approvals.submit(preview, APPROVER);
  const result = await approvals.approve(batch.id, PREPARER, preparerDesk);
  expect(result.rows.map((r) => [r.status, r.errorCode])).toEqual([
    ["rejected", "insufficient_scope"],
    ["rejected", "insufficient_scope"],
  ]);
  const decided = (await approvals.list()).find((b) => b.id === batch.id)!;
  expect(decided).toMatchObject({ status: "rejected", approvedBy: PREPARER });
  expect(decided.reason).toMatch(/cannot trade \(403 insufficient_scope\): nothing was traded/);
  expect(status()).toBe("pending"); // the first batch is untouched
  expect(await hedges()).toBe(before);
});
