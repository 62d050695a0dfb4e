// The desk sends an approved batch over the sandbox (HTTP): the approval's hash and fingerprints in every row, its keys instead of fresh ones, a line whose key was already sent skipped, and the log's chain clean.
import { defaultAccounts } from "../../../src/sandbox/accounts";
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../../src/excel/intent-store";
import { ALREADY_SENT } from "../../../src/trading/desk/admission";
import { chainHeadOf } from "../../../src/trading/chain-head";
import { newIdempotencyKey } from "../../../src/api/client";
import type { CellValue } from "../../../src/trading/cells";
import type { SendApproval } from "../../../src/trading/types";
import type { RunningSandbox } from "../../../src/sandbox/server";
import { DEMO_API_KEY } from "../../../src/sandbox/demo";
import { controlOk, raw, start, serviceState, until } from "../../sandbox/helpers";
import { sandboxWorld } from "../../support/sandbox-world";
import { chainFindings } from "../../support/chain";

const BATCH: CellValue[][] = [
  ["Action", "Market", "Side", "Notional", "Tenor", "Client reference"],
  ["Open", "USDTNGN", "buy", 100_000, 7, "DEAL-1"],
  ["Open", "USDTNGN", "sell", 40_000, 3, "DEAL-2"],
  ["Add", "USDTNGN", "buy", 20_000, "", "DEAL-1"],
];

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start({ accounts: defaultAccounts(), fillMs: 150 });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const approvalOf = (keys?: string[]): SendApproval => ({
  batchHash: "5e".repeat(32),
  preparedBy: "fp-aaaaaaaaaaaaaaaa",
  approvedBy: "fp-bbbbbbbbbbbbbbbb",
  ...(keys ? { idempotencyKeys: keys } : {}),
});

/** A desk on `workbook` with the batch selected; without `intentStore`, a pane without this computer's journal (another computer). */
async function deskOn(workbook: MemoryWorkbook, intentStore?: MemoryIntentStore) {
  workbook.setSheet("Batch", BATCH).select("Batch", `A2:F${BATCH.length}`);
  const desk = await sandboxWorld(sb, DEMO_API_KEY, { workbook, intentStore: intentStore ?? null }).desk();
  const read = await desk.readRows("open");
  expect(read.problems).toEqual([]);
  return { desk, preview: await desk.preview(read.action, read.rows) };
}

describe("an approved batch through the desk", () => {
  it("every row carries the batch hash and both fingerprints under the approval's keys; the chain checks clean; approved again, nothing is sent twice", async () => {
    const workbook = new MemoryWorkbook();
    const store = new MemoryIntentStore();
    const keys = BATCH.slice(1).map(() => newIdempotencyKey());
    const first = await deskOn(workbook, store);
    expect(first.preview.lines.every((l) => l.blockers.length === 0)).toBe(true);
    const sent = await first.desk.send(first.preview, { approval: approvalOf(keys) });
    expect(sent.skipped).toEqual([]);
    await first.desk.settled(20_000);
    const log = await workbook.readLog();
    expect(log.map((r) => [r.idempotencyKey, r.action, r.status, r.batchHash, r.preparedBy, r.approvedBy])).toEqual(
      keys.map((k, i) => [k, ["open", "open", "add"][i], "filled", "5e".repeat(32), "fp-aaaaaaaaaaaaaaaa", "fp-bbbbbbbbbbbbbbbb"]),
    );
    const { id } = await workbook.identity();
    expect(chainFindings(log, await chainHeadOf(store, id))).toEqual([]);
    const before = await serviceState(sb, DEMO_API_KEY);
    expect(before.hedges.map((h) => [h.side, h.notional_usd]).sort()).toEqual([
      ["buy", 120_000],
      ["sell", 40_000],
    ]);

    // The batch approved again (the pane crashed after sending): this computer's journal holds every key.
    const again = await first.desk.send(first.preview, { approval: approvalOf(keys) });
    expect(again.rows).toEqual([]);
    expect(again.skipped).toEqual([2, 3, 4].map((rowNumber) => ({ rowNumber, reason: ALREADY_SENT })));
    // A pane without this computer's journal (another computer): the log holds them.
    first.desk.stop();
    const elsewhere = await deskOn(workbook);
    const fromLog = await elsewhere.desk.send(elsewhere.preview, { approval: approvalOf(keys) });
    expect(fromLog.skipped.map((s) => s.reason)).toEqual([ALREADY_SENT, ALREADY_SENT, ALREADY_SENT]);
    elsewhere.desk.stop();
    const after = await serviceState(sb, DEMO_API_KEY);
    expect(after.hedges.map((h) => [h.id, h.notional_usd])).toEqual(before.hedges.map((h) => [h.id, h.notional_usd]));
    expect(await workbook.readLog()).toHaveLength(3);
  });

  it("an Open another approval of the batch already did (another computer, other keys) is recorded as done from the service, never sent", async () => {
    const OPENS = BATCH.slice(0, 3);
    const copyOn = async (workbook: MemoryWorkbook) => {
      workbook.setSheet("Batch", OPENS).select("Batch", "A2:F3");
      const desk = await sandboxWorld(sb, DEMO_API_KEY, { workbook }).desk();
      const read = await desk.readRows("open");
      return { desk, preview: await desk.preview(read.action, read.rows) };
    };
    const preparedAt = new Date(Date.now() - 60_000).toISOString();
    const first = await copyOn(new MemoryWorkbook());
    await first.desk.send(first.preview, { approval: { ...approvalOf([newIdempotencyKey(), newIdempotencyKey()]), preparedAt } });
    await first.desk.settled(20_000);
    first.desk.stop();
    // The hedges were closed since, so the second copy's preview lets both Opens through; a service whose keys are per API
    // key would not replay them (other keys here): only asking the service first keeps them from trading twice.
    for (const side of ["buy", "sell"]) await raw(sb, "POST", "/hedges/close", { body: { market: "USDTNGN", side } });
    await until(async () => (await serviceState(sb, DEMO_API_KEY)).hedges.every((h) => h.status === "closed"));
    const hedges = async () =>
      (await controlOk(sb, "GET", "/state")).accounts as Array<{ api_key: string; hedges: unknown[]; history: unknown[] }>;
    const count = async () => (await hedges()).find((a) => a.api_key === DEMO_API_KEY)!.hedges.length;
    const before = await count();
    const workbook = new MemoryWorkbook();
    const second = await copyOn(workbook);
    expect(second.preview.lines.map((l) => l.blockers)).toEqual([[], []]);
    const keys = [newIdempotencyKey(), newIdempotencyKey()];
    const result = await second.desk.send(second.preview, { approval: { ...approvalOf(keys), preparedAt } });
    second.desk.stop();
    expect(result.rows.map((r) => [r.status, r.message])).toEqual([
      ["filled", expect.stringMatching(/^Done already by another approval of this batch: Hedge .* is closed\.$/)],
      ["filled", expect.stringMatching(/^Done already by another approval of this batch/)],
    ]);
    expect(await count()).toBe(before); // nothing opened again
    const log = await workbook.readLog();
    expect(log.map((r) => [r.idempotencyKey, r.status, r.clientReference, r.sentAt ?? null])).toEqual([
      [keys[0], "filled", "DEAL-1", null],
      [keys[1], "filled", "DEAL-2", null],
    ]);
  });

  it("without keys, the approval's hash and fingerprints still go into every row, each with a fresh key", async () => {
    const workbook = new MemoryWorkbook();
    const { desk, preview } = await deskOn(workbook, new MemoryIntentStore());
    await desk.send(preview, { approval: approvalOf() });
    await desk.settled(20_000);
    const log = await workbook.readLog();
    expect(new Set(log.map((r) => r.idempotencyKey)).size).toBe(3);
    expect(log.every((r) => r.batchHash === "5e".repeat(32) && r.approvedBy === "fp-bbbbbbbbbbbbbbbb")).toBe(true);
    desk.stop();
  });

  it("an approval that cannot be sent as given is refused naming the field; nothing is journalled or sent", async () => {
    const workbook = new MemoryWorkbook();
    const { desk, preview } = await deskOn(workbook, new MemoryIntentStore());
    const key = () => newIdempotencyKey();
    await expect(desk.send(preview, { approval: approvalOf([key(), key()]) })).rejects.toThrow(
      "SendOptions.approval.idempotencyKeys has 2 key(s) for 3 preview line(s)",
    );
    await expect(desk.send(preview, { approval: approvalOf([key(), " padded ", key()]) })).rejects.toThrow(
      "SendOptions.approval.idempotencyKeys[1] is not a usable key",
    );
    const same = key();
    await expect(desk.send(preview, { approval: approvalOf([same, key(), same]) })).rejects.toThrow("the same key twice");
    await expect(desk.send(preview, { approval: { ...approvalOf(), approvedBy: " " } })).rejects.toThrow(
      "SendOptions.approval.approvedBy is empty",
    );
    await expect(desk.send(preview, { approval: approvalOf([" ", key(), key()]) })).rejects.toThrow(
      "SendOptions.approval.idempotencyKeys[0] is not a usable key",
    );
    // A caller outside TypeScript's checks (the pane's stored approval read back) that leaves a field out.
    const { preparedBy: _left, ...withoutPreparer } = approvalOf();
    await expect(desk.send(preview, { approval: withoutPreparer as SendApproval })).rejects.toThrow(
      "SendOptions.approval.preparedBy is empty: send the batch as approved (its hash and both fingerprints). Nothing was sent.",
    );
    expect(await workbook.readLog()).toEqual([]);
    expect((await serviceState(sb, DEMO_API_KEY)).hedges).toEqual([]);
    desk.stop();
  });
});
