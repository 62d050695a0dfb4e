// A row only the Hedge Log knows, carrying a typed "Notional before", against the real sandbox: Resume asks the user instead of recording it filled.
import { defaultAccounts } from "../../../src/sandbox/accounts";
import { Journal } from "../../../src/trading/journal";
import { intentFromRow } from "../../../src/trading/intent";
import { newIdempotencyKey } from "../../../src/api/client";
import type { RunningSandbox } from "../../../src/sandbox/server";
import { DEMO_API_KEY_2 } from "../../../src/sandbox/demo";
import { serviceState, start, until } from "../../sandbox/helpers";
import { sandboxWorld } from "../../support/sandbox-world";

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start({ accounts: defaultAccounts(), fillMs: 150 });
});
afterAll(() => sb.close());

describe("a log-only row with a typed Notional before", () => {
  it("is listed for the user's decision, never recorded filled by Resume, and the service is left as it is", async () => {
    const { client, workbook, desk: deskOf } = sandboxWorld(sb, DEMO_API_KEY_2);
    const address = (await client.account()).data.account_address;
    // The hedge is at 150,000 after a trade made straight through the API (100,000, then +50,000): no row of this log.
    const opened = await client.open({ market: "USDTNGN", side: "buy", notional_usd: 100_000, tenor_days: 7 });
    const id = opened.data.hedge_id!;
    await until(async () => (await client.get(id)).data.status === "filled", 5_000, "the open's fill");
    await client.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 50_000 });
    await until(async () => (await client.get(id)).data.notional_usd === 150_000, 5_000, "the add");

    // Someone types an Add row into the Hedge Log whose Notional before (100,000) makes that trade look like its effect.
    const at = new Date(Date.now() - 60_000).toISOString();
    const typed = intentFromRow(
      { rowNumber: 2, action: "add", market: "USDTNGN", side: "buy", notional: 50_000, tenor: null, clientReference: null },
      newIdempotencyKey(),
      "sandbox",
      at,
      address,
    );
    Object.assign(typed, { hedgeId: id, notionalBefore: 100_000, sentAt: at });
    await new Journal(workbook).append([typed]); // the log only: this computer's journal never held it

    const desk = await deskOf();
    const plan = await desk.inspect();
    expect(plan.items).toHaveLength(1);
    expect(plan.items[0]).toMatchObject({ step: "decide" });
    expect(plan.items[0].detail).toMatch(/Only the Hedge Log knows this row.*Notional before/);

    await desk.resume();
    await until(() => desk.needsDecision().length === 1, 10_000, "the row parked for a decision");
    await desk.settled(10_000); // the log is written behind the journal
    const [row] = await workbook.readLog();
    expect(row.status).toBe("needs_decision");
    expect(row.message).toContain("Notional before (USD) 100,000.00 USD, which only the Hedge Log holds");
    // Nothing was sent: the hedge is as the direct trade left it.
    const hedges = (await serviceState(sb, DEMO_API_KEY_2)).hedges;
    expect(hedges.map((h) => h.notional_usd)).toEqual([150_000]);
    desk.stop();
  });
});
