// An approved batch's Adds and Reduces over the sandbox (HTTP): two copies approved by two trading keys of one account execute each row once, the second copy recording from the side's hedge what the first did; a side changed by something else refuses its rows.
import { defaultAccounts } from "../../../src/sandbox/accounts";
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { newIdempotencyKey } from "../../../src/api/client";
import type { CellValue } from "../../../src/trading/cells";
import type { SendApproval } from "../../../src/trading/types";
import type { RunningSandbox } from "../../../src/sandbox/server";
import { DEMO_API_KEY, DEMO_APPROVER_API_KEY } from "../../../src/sandbox/demo";
import { controlOk, deskClient, start, until } from "../../sandbox/helpers";
import { sandboxWorld } from "../../support/sandbox-world";

const TITLES = ["Action", "Market", "Side", "Notional", "Tenor", "Client reference"];
/** Add 20,000 to the buy hedge (at 100,000), reduce it by 30,000, and reduce the sell hedge (at 50,000) by 10,000. */
const BATCH: CellValue[][] = [
  TITLES,
  ["Add", "USDTNGN", "buy", 20_000, "", "B-1"],
  ["Reduce", "USDTNGN", "buy", 30_000, "", "B-2"],
  ["Reduce", "USDTNGN", "sell", 10_000, "", "S-1"],
];
/** What each row expects to find on its side's hedge, as prepared. */
const BEFORE = [100_000, 120_000, 50_000];

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start({ accounts: defaultAccounts(), fillMs: 150 });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

interface Recorded {
  api_key: string;
  hedges: Array<{ side: string; notional_usd: number; status: string }>;
  history: Array<{ side: string; exit_type: string }>;
}
const account = async () => ((await controlOk(sb, "GET", "/state")).accounts as Recorded[]).find((a) => a.api_key === DEMO_API_KEY)!;
const open = async () =>
  (await account()).hedges
    .filter((h) => h.status === "filled" || h.status === "submitted")
    .map((h) => [h.side, h.notional_usd])
    .sort();

/** The demo account holds buy 100,000 and sell 50,000 (opened straight through the API, before the batch). */
async function hedges() {
  const client = deskClient(sb, DEMO_API_KEY);
  await client.open({ market: "USDTNGN", side: "buy", notional_usd: 100_000, tenor_days: 7 });
  await client.open({ market: "USDTNGN", side: "sell", notional_usd: 50_000, tenor_days: 7 });
  await until(async () => (await account()).hedges.every((h) => h.status === "filled"), 5_000, "the fills");
}

/** One saved copy of the workbook, approved on its own computer with `apiKey`: its desk, sent under the approval. */
async function approveCopy(apiKey: string, keys: string[], grid = BATCH, before = BEFORE) {
  const workbook = new MemoryWorkbook();
  workbook.setSheet("Batch", grid).select("Batch", `A2:F${grid.length}`);
  const desk = await sandboxWorld(sb, apiKey, { workbook }).desk();
  const read = await desk.readRows("open");
  expect(read.problems).toEqual([]);
  const preview = await desk.preview(read.action, read.rows);
  const approval: SendApproval = {
    batchHash: "5e".repeat(32),
    preparedBy: "fp-aaaaaaaaaaaaaaaa",
    approvedBy: "fp-bbbbbbbbbbbbbbbb",
    idempotencyKeys: keys,
    preparedAt: new Date(Date.now() - 60_000).toISOString(),
    notionalsBefore: before,
  };
  const result = await desk.send(preview, { approval });
  await desk.settled(20_000);
  desk.stop();
  return { workbook, result };
}

describe("an approved batch's Adds and Reduces, approved twice", () => {
  it("two copies approved by two trading keys of one account: each row executes once; the second copy records them from the side's hedge, never sends", async () => {
    await hedges();
    const first = await approveCopy(
      DEMO_API_KEY,
      BEFORE.map(() => newIdempotencyKey()),
    );
    expect((await first.workbook.readLog()).map((r) => r.status)).toEqual(["filled", "filled", "filled"]);
    const after = [
      ["buy", 90_000],
      ["sell", 40_000],
    ];
    expect(await open()).toEqual(after);
    const decreases = (await account()).history.filter((h) => h.exit_type !== "open").length;

    // The second copy (another computer, the approver's key) sends the batch with other idempotency keys, as a service
    // that scopes its keys per API key would see it: only asking the service first keeps the rows from acting twice.
    const second = await approveCopy(
      DEMO_APPROVER_API_KEY,
      BEFORE.map(() => newIdempotencyKey()),
    );
    expect(second.result.skipped).toEqual([]);
    expect(second.result.rows.map((r) => [r.action, r.status])).toEqual([
      ["add", "filled"],
      ["reduce", "filled"],
      ["reduce", "filled"],
    ]);
    expect(await open()).toEqual(after); // nothing acted again
    expect((await account()).history.filter((h) => h.exit_type !== "open").length).toBe(decreases);
    const log = await second.workbook.readLog();
    expect(log.map((r) => [r.status, r.sentAt ?? null, r.notionalBefore])).toEqual([
      ["filled", null, 100_000],
      ["filled", null, 120_000],
      ["filled", null, 50_000],
    ]);
    expect(log[1].message).toMatch(
      /^Done already by another approval of this batch: The USDTNGN buy hedge \S+ is at 90,000\.00 USD \(this reduce as prepared: 120,000\.00 USD − 30,000\.00 USD\)\.$/,
    );
  });

  it("a copy approved after only part of a side went: the rows done are recorded, the rest are sent once", async () => {
    await hedges();
    // The first approval sent only the Add (its pane closed before the Reduce left).
    await approveCopy(DEMO_API_KEY, [newIdempotencyKey()], BATCH.slice(0, 2), BEFORE.slice(0, 1));
    expect(await open()).toEqual([
      ["buy", 120_000],
      ["sell", 50_000],
    ]);
    const second = await approveCopy(
      DEMO_APPROVER_API_KEY,
      BEFORE.map(() => newIdempotencyKey()),
    );
    const log = await second.workbook.readLog();
    expect(log.map((r) => [r.action, r.status, r.sentAt === null ? "not sent" : "sent"])).toEqual([
      ["add", "filled", "not sent"],
      ["reduce", "filled", "sent"],
      ["reduce", "filled", "sent"],
    ]);
    expect(await open()).toEqual([
      ["buy", 90_000],
      ["sell", 40_000],
    ]);
  });

  it("a side changed by something else since the batch was prepared: its rows are refused, nothing of that side is sent", async () => {
    await hedges();
    await deskClient(sb, DEMO_API_KEY).add({ market: "USDTNGN", side: "buy", additional_notional_usd: 5_000 });
    await until(async () => (await open()).some(([side, n]) => side === "buy" && n === 105_000), 5_000, "the add");
    const { result, workbook } = await approveCopy(
      DEMO_APPROVER_API_KEY,
      BEFORE.map(() => newIdempotencyKey()),
    );
    expect(result.skipped.map((s) => s.rowNumber)).toEqual([2, 3]);
    expect(result.skipped[0].reason).toMatch(
      /^The USDTNGN buy hedge \S+ is at 105,000\.00 USD: that is none of 100,000\.00 USD, 120,000\.00 USD, 90,000\.00 USD .*this row was not sent/,
    );
    // The sell side was as prepared: sent.
    expect((await workbook.readLog()).map((r) => [r.side, r.status])).toEqual([["sell", "filled"]]);
    expect(await open()).toEqual([
      ["buy", 105_000],
      ["sell", 40_000],
    ]);
  });
});
