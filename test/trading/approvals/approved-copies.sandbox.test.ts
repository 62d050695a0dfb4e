// Two saved copies of one approved batch of an Add and a Reduce, approved by two trading keys of one account (sandbox over HTTP): the block keeps each row's notional before from preparation, so the second approval records the rows from the side's hedge and sends nothing; each row acts once.
import { publicKeyFingerprint } from "../../../src/api/environment";
import { defaultAccounts } from "../../../src/sandbox/accounts";
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { Approvals } from "../../../src/trading/approvals/approval-desk";
import { APPROVALS_SHEET_NAME, ROW_TITLES } from "../../../src/trading/approvals/block";
import type { CellValue } from "../../../src/trading/cells";
import type { RunningSandbox } from "../../../src/sandbox/server";
import { DEMO_API_KEY, DEMO_APPROVER_API_KEY, DEMO_READ_API_KEY } from "../../../src/sandbox/demo";
import { controlOk, deskClient, start, until } from "../../sandbox/helpers";
import { sandboxWorld } from "../../support/sandbox-world";

const GRID: CellValue[][] = [
  ["Action", "Market", "Side", "Notional", "Tenor", "Client reference"],
  ["Add", "USDTNGN", "buy", 20_000, "", "GROW-1"],
  ["Reduce", "USDTNGN", "buy", 30_000, "", "TRIM-1"],
];

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start({ accounts: defaultAccounts(), fillMs: 100 });
});
afterAll(() => sb.close());

interface Recorded {
  api_key: string;
  hedges: Array<{ side: string; notional_usd: number; status: string }>;
  history: Array<{ exit_type: string }>;
}
const account = async () => ((await controlOk(sb, "GET", "/state")).accounts as Recorded[]).find((a) => a.api_key === DEMO_API_KEY)!;
const buy = async () => (await account()).hedges.filter((h) => h.side === "buy" && h.status === "filled").map((h) => h.notional_usd);

test("two copies approved by two trading keys of one account: the Add and the Reduce act once; the second copy records them from the service", async () => {
  const client = deskClient(sb, DEMO_API_KEY);
  await client.open({ market: "USDTNGN", side: "buy", notional_usd: 100_000, tenor_days: 7 });
  await until(async () => (await buy()).length === 1, 5_000, "the open's fill");

  // A read-only preparer submits the batch: each row's notional before is written beside it.
  const { workbook, desk: preparerDesk } = sandboxWorld(sb, DEMO_READ_API_KEY, {
    workbook: new MemoryWorkbook({ sheets: { Exposures: GRID } }).select("Exposures", `A2:F${GRID.length}`),
    intentStore: null,
    pollIntervalMs: 100,
  });
  const preparer = await preparerDesk();
  const read = await preparer.readRows("open");
  const batch = await new Approvals({ sheet: workbook }).submit(
    await preparer.preview(read.action, read.rows),
    publicKeyFingerprint(DEMO_READ_API_KEY),
  );
  preparer.stop();
  const saved = workbook.cells(APPROVALS_SHEET_NAME);
  const titles = saved.findIndex((line) => line[0] === ROW_TITLES[0]);
  expect(saved[titles][8]).toBe("Notional before (USD)");
  expect(saved.slice(titles + 1).map((line) => line[8])).toEqual([100_000, 120_000]);

  // This computer approves and sends it: 100,000 + 20,000 − 30,000.
  const approve = async (book: MemoryWorkbook, key: string) => {
    const desk = await sandboxWorld(sb, key, { workbook: book, pollIntervalMs: 100 }).desk();
    const result = await new Approvals({ sheet: book }).approve(batch.id, publicKeyFingerprint(key), desk);
    await desk.settled(20_000);
    desk.stop();
    return result;
  };
  await approve(workbook, DEMO_API_KEY);
  expect(await buy()).toEqual([90_000]);
  const acted = (await account()).history.length;

  // Another computer opens the copy saved before the approval (still pending) and approves it with a second trading key.
  const copy = new MemoryWorkbook({ sheets: { [APPROVALS_SHEET_NAME]: saved } });
  await approve(copy, DEMO_APPROVER_API_KEY);
  expect(await buy()).toEqual([90_000]);
  expect((await account()).history.length).toBe(acted);
  const log = await copy.readLog();
  expect(log.map((r) => [r.action, r.status, r.sentAt ?? "never sent", r.notionalBefore])).toEqual([
    ["add", "filled", "never sent", 100_000],
    ["reduce", "filled", "never sent", 120_000],
  ]);
  expect(log[0].message).toMatch(/^Done already by another approval of this batch: The USDTNGN buy hedge \S+ is at 90,000\.00 USD/);
  expect(copy.cells(APPROVALS_SHEET_NAME)[1][1]).toBe("executed");
});
