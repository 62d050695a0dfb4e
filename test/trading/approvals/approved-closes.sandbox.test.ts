// Rows of an approved batch whose preview blocks once another approval did them (a Close or full Reduce: "no open position"; an Open whose hedge is still open: "already open"), over the sandbox (HTTP): the second copy records them done from the service, sends nothing, and the batch is executed; a row the service cannot explain still refuses the whole batch.
import { publicKeyFingerprint } from "../../../src/api/environment";
import { defaultAccounts } from "../../../src/sandbox/accounts";
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { Approvals, ApprovalRefusedError } from "../../../src/trading/approvals/approval-desk";
import { APPROVALS_SHEET_NAME } from "../../../src/trading/approvals/block";
import type { CellValue } from "../../../src/trading/cells";
import type { RunningSandbox } from "../../../src/sandbox/server";
import { DEMO_API_KEY, DEMO_APPROVER_API_KEY, DEMO_READ_API_KEY } from "../../../src/sandbox/demo";
import { deskClient, serviceState, start, until } from "../../sandbox/helpers";
import { sandboxWorld } from "../../support/sandbox-world";

const TITLES = ["Action", "Market", "Side", "Notional", "Tenor", "Client reference"];

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start({ accounts: defaultAccounts(), fillMs: 100 });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const account = () => serviceState(sb, DEMO_API_KEY);
const open = async () =>
  (await account()).hedges
    .filter((h) => h.status === "filled" || h.status === "submitted")
    .map((h) => [h.side, h.notional_usd])
    .sort();
/** Everything the service did for the account: its hedges and its closed or reduced ones. */
const acted = async () => {
  const a = await account();
  return a.hedges.length + a.history.length;
};

/** Opens the given hedges straight through the API and waits for their fills. */
async function holding(...sides: Array<["buy" | "sell", number]>) {
  const client = deskClient(sb, DEMO_API_KEY);
  for (const [side, notional_usd] of sides) await client.open({ market: "USDTNGN", side, notional_usd, tenor_days: 7 });
  await until(
    async () => (await open()).length === sides.length && (await account()).hedges.every((h) => h.status === "filled"),
    5_000,
    "the fills",
  );
}

/** A read-only preparer submits the rows as a batch; returns the workbook, the batch id and the sheet as saved then. */
async function prepared(rows: CellValue[][]) {
  const grid = [TITLES, ...rows];
  const { workbook, desk } = sandboxWorld(sb, DEMO_READ_API_KEY, {
    workbook: new MemoryWorkbook({ sheets: { Exposures: grid } }).select("Exposures", `A2:F${grid.length}`),
    intentStore: null,
    pollIntervalMs: 100,
  });
  const preparer = await desk();
  const read = await preparer.readRows("open");
  expect(read.problems).toEqual([]);
  const batch = await new Approvals({ sheet: workbook }).submit(
    await preparer.preview(read.action, read.rows),
    publicKeyFingerprint(DEMO_READ_API_KEY),
  );
  preparer.stop();
  return { workbook, id: batch.id, saved: workbook.cells(APPROVALS_SHEET_NAME) };
}

/** Approves the batch on `book` (its own computer: its own journal) with `key`; waits for every row to be final. */
async function approve(book: MemoryWorkbook, id: string, key: string) {
  const desk = await sandboxWorld(sb, key, { workbook: book, pollIntervalMs: 100 }).desk();
  try {
    const result = await new Approvals({ sheet: book }).approve(id, publicKeyFingerprint(key), desk);
    await desk.settled(20_000);
    return result;
  } finally {
    desk.stop();
  }
}

const statusOf = (book: MemoryWorkbook) => book.cells(APPROVALS_SHEET_NAME)[1][1];

describe("an approved batch whose rows another approval did, blocking their preview now", () => {
  it("an Open (its hedge still open) and a Close: the second copy records both from the service, sends nothing, and is executed", async () => {
    await holding(["sell", 50_000]);
    const { workbook, id, saved } = await prepared([
      ["Open", "USDTNGN", "buy", 40_000, 7, "NEW-1"],
      ["Close", "USDTNGN", "sell", "", "", "SHUT-1"],
    ]);
    await approve(workbook, id, DEMO_API_KEY);
    expect(await open()).toEqual([["buy", 40_000]]);
    const before = await acted();

    // Another computer opens the copy saved before the approval (still pending) and approves it with a second trading key.
    const copy = new MemoryWorkbook({ sheets: { [APPROVALS_SHEET_NAME]: saved } });
    const result = await approve(copy, id, DEMO_APPROVER_API_KEY);
    expect(result.skipped).toEqual([]);
    expect(await open()).toEqual([["buy", 40_000]]);
    expect(await acted()).toBe(before); // nothing acted again
    const log = await copy.readLog();
    expect(log.map((r) => [r.action, r.status, r.sentAt ?? "never sent"])).toEqual([
      ["open", "filled", "never sent"],
      ["close", "closed", "never sent"],
    ]);
    expect(log[0].message).toMatch(/^Done already by another approval of this batch: /);
    expect(log[1].message).toBe(
      "Done already by another approval of this batch: No USDTNGN sell hedge is open (this close as prepared: closed).",
    );
    expect(statusOf(copy)).toBe("executed");
  });

  it("a Reduce of the whole hedge: recorded closed from the service, never sent", async () => {
    await holding(["buy", 100_000]);
    const { workbook, id, saved } = await prepared([["Reduce", "USDTNGN", "buy", 100_000, "", "ALL-1"]]);
    await approve(workbook, id, DEMO_API_KEY);
    expect(await open()).toEqual([]);
    const before = await acted();

    const copy = new MemoryWorkbook({ sheets: { [APPROVALS_SHEET_NAME]: saved } });
    await approve(copy, id, DEMO_APPROVER_API_KEY);
    expect(await acted()).toBe(before);
    expect((await copy.readLog()).map((r) => [r.action, r.status, r.sentAt ?? "never sent", r.notionalBefore])).toEqual([
      ["reduce", "closed", "never sent", 100_000],
    ]);
    expect(statusOf(copy)).toBe("executed");
  });

  it("a Reduce blocked now (more than is left) and an Add after it, both done by another approval: judged in batch order, recorded in it, nothing sent", async () => {
    await holding(["buy", 100_000]);
    // As prepared: 100,000 − 80,000 = 20,000, then + 20,000 = 40,000.
    const { workbook, id, saved } = await prepared([
      ["Reduce", "USDTNGN", "buy", 80_000, "", "TRIM-1"],
      ["Add", "USDTNGN", "buy", 20_000, "", "GROW-1"],
    ]);
    await approve(workbook, id, DEMO_API_KEY);
    expect(await open()).toEqual([["buy", 40_000]]);
    const before = await acted();

    const copy = new MemoryWorkbook({ sheets: { [APPROVALS_SHEET_NAME]: saved } });
    const result = await approve(copy, id, DEMO_APPROVER_API_KEY);
    expect(result.skipped).toEqual([]);
    expect(await acted()).toBe(before);
    expect((await copy.readLog()).map((r) => [r.action, r.status, r.sentAt ?? "never sent", r.notionalBefore])).toEqual([
      ["reduce", "filled", "never sent", 100_000],
      ["add", "filled", "never sent", 20_000],
    ]);
    expect(statusOf(copy)).toBe("executed");
  });

  it("sent under an approval straight through the desk: a blocked row another approval did is recorded, a blocked row it did not stays skipped with its blocker", async () => {
    await holding(["buy", 100_000], ["sell", 50_000]);
    await deskClient(sb, DEMO_API_KEY).close({ market: "USDTNGN", side: "sell" }); // the Close another approval made
    await until(async () => (await open()).length === 1, 5_000, "the close");
    const grid = [TITLES, ["Close", "USDTNGN", "sell", "", "", "SHUT-1"], ["Reduce", "USDTNGN", "buy", 200_000, "", "TRIM-9"]];
    const { desk, workbook } = sandboxWorld(sb, DEMO_APPROVER_API_KEY, {
      workbook: new MemoryWorkbook({ sheets: { Batch: grid } }).select("Batch", "A2:F3"),
      pollIntervalMs: 100,
    });
    const approver = await desk();
    const read = await approver.readRows("open");
    const preview = await approver.preview(read.action, read.rows);
    expect(preview.lines.map((l) => l.blockers.length > 0)).toEqual([true, true]);
    const result = await approver.send(preview, {
      approval: {
        batchHash: "5e".repeat(32),
        preparedBy: "fp-aaaaaaaaaaaaaaaa",
        approvedBy: publicKeyFingerprint(DEMO_APPROVER_API_KEY),
        idempotencyKeys: ["k-close-1", "k-reduce-1"].map((k) => `${k}-${Date.now()}`),
        preparedAt: new Date(Date.now() - 60_000).toISOString(),
        notionalsBefore: [50_000, 100_000],
      },
    });
    await approver.settled(20_000);
    expect(result.skipped).toEqual([{ rowNumber: 3, reason: preview.lines[1].blockers.join(" ") }]);
    expect((await workbook.readLog()).map((r) => [r.action, r.side, r.status, r.sentAt ?? "never sent"])).toEqual([
      ["close", "sell", "closed", "never sent"],
    ]);
    expect(await open()).toEqual([["buy", 100_000]]);
  });

  it("a blocked row the service does not show done (its side changed by something else) still refuses the whole batch: nothing sent, still pending", async () => {
    await holding(["buy", 100_000], ["sell", 50_000]);
    const { workbook, id } = await prepared([
      ["Reduce", "USDTNGN", "buy", 60_000, "", "TRIM-1"],
      ["Reduce", "USDTNGN", "sell", 10_000, "", "TRIM-2"],
    ]);
    // Straight through the API: the buy hedge reduced to 20,000 (none of 100,000 before or 40,000 after the row).
    await deskClient(sb, DEMO_API_KEY).decrease({ market: "USDTNGN", side: "buy", reduce_notional_usd: 80_000 });
    await until(async () => (await open()).some(([side, n]) => side === "buy" && n === 20_000), 5_000, "the reduce");
    const before = await acted();

    const refusal = approve(workbook, id, DEMO_APPROVER_API_KEY);
    await expect(refusal).rejects.toThrow(ApprovalRefusedError);
    await expect(refusal).rejects.toThrow(
      /^Batch \S+ was not approved: row \d+: Reduce 60,000\.00 is more than the 20,000\.00 left open on USDTNGN buy: reduce at most 20,000\.00, or use Close\. Nothing was sent; it stays pending\.$/,
    );
    expect(await acted()).toBe(before);
    expect(await open()).toEqual([
      ["buy", 20_000],
      ["sell", 50_000],
    ]);
    expect(await workbook.readLog()).toEqual([]);
    expect(statusOf(workbook)).toBe("pending");
  });
});
