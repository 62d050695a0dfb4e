// The desk against the real sandbox over HTTP: preview figures, open/add/reduce/close to their final states in the log, duplicates, rejections, resume.
import { defaultAccounts } from "../../../src/sandbox/accounts";
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { Journal } from "../../../src/trading/journal";
import { intentScope } from "../../../src/trading/intent-store";
import { MemoryIntentStore } from "../../../src/excel/intent-store";
import { intentFromRow } from "../../../src/trading/intent";
import { newIdempotencyKey } from "../../../src/api/client";
import type { Progress } from "../../../src/trading/types";
import type { TradingDesk } from "../../../src/trading/desk/contract";
import type { CellValue } from "../../../src/trading/cells";
import type { RunningSandbox } from "../../../src/sandbox/server";
import { DEMO_API_KEY, DEMO_API_KEY_2 } from "../../../src/sandbox/demo";
import { deskClient, controlOk, start, serviceState } from "../../sandbox/helpers";
import { sandboxWorld } from "../../support/sandbox-world";

const HEADER = ["Market", "Side", "Notional", "Tenor", "Client reference"];

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start({ accounts: defaultAccounts(), fillMs: 150 });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

/** A desk on `grid` (selected under its titles) for `apiKey`, without this computer's journal; every Progress it reports in `events`. */
async function setup(grid: CellValue[][], apiKey = DEMO_API_KEY) {
  const events: Progress[] = [];
  const { workbook, client, desk } = sandboxWorld(sb, apiKey, {
    workbook: new MemoryWorkbook({ sheets: { Exposures: grid } }).select("Exposures", `A2:E${grid.length}`),
    intentStore: null,
    onProgress: (p) => events.push(p),
  });
  return { workbook, desk: await desk(), client, events };
}

async function trade(
  desk: TradingDesk,
  workbook: MemoryWorkbook,
  action: "open" | "add" | "reduce" | "close",
  grid: CellValue[][],
  sendAgain = false,
) {
  workbook.setSheet("Exposures", grid).select("Exposures", `A2:E${grid.length}`);
  const read = await desk.readRows(action);
  expect(read.problems).toEqual([]);
  const preview = await desk.preview(action, read.rows);
  const sent = await desk.send(preview, { sendAgain });
  await desk.settled(20_000);
  return { read, preview, sent };
}

describe("desk over the sandbox", () => {
  afterEach(() => jest.restoreAllMocks());

  it("previews an open with the service's quote and limits, then journals, sends and logs the fill as the service has it", async () => {
    const grid = [HEADER, ["USDTNGN", "buy", "100,000", 7, "DEAL-1"], ["USDTNGN", "sell", 40_000, 3, "DEAL-2"]];
    const { workbook, desk, client, events } = await setup(grid);
    const read = await desk.readRows("open");
    const preview = await desk.preview("open", read.rows);
    const quote = (await client.quote({ market: "USDTNGN", side: "buy", notional_usd: 100_000, tenor_days: 7 })).data;
    const line = preview.lines[0];
    expect(line.quote?.upfront.total_upfront_usdc).toBe(quote.upfront.total_upfront_usdc);
    expect(line.collateralUsdc).toBe(quote.upfront.total_upfront_usdc);
    expect(line.carryUsdc).toBe(quote.carry.total_usdc);
    expect(preview.totals.notionalUsd).toBe(140_000);
    expect(preview.totals.collateralUsdc).toBeCloseTo(preview.lines[0].collateralUsdc + preview.lines[1].collateralUsdc, 6);
    const account = (await client.account()).data;
    // Collateral is in USDC, notionals in USD: each check says which, and the pane shows it.
    expect(preview.checks.find((c) => c.label.startsWith("Balance"))).toMatchObject({
      unit: "USDC",
      available: account.balance_usdc,
      ok: true,
    });
    expect(preview.checks.find((c) => c.label.startsWith("Exposure"))).toMatchObject({
      unit: "USD",
      needed: 140_000,
      available: account.available_exposure_usd,
      ok: true,
    });
    expect(preview.checks.map((c) => c.label)).toEqual(
      expect.arrayContaining(["Capacity USDTNGN buy (USD)", "Capacity USDTNGN sell (USD)"]),
    );
    expect(preview.checks.filter((c) => c.label.startsWith("Capacity")).map((c) => c.unit)).toEqual(["USD", "USD"]);
    expect(preview.blockers).toEqual([]);
    expect(await workbook.readLog()).toEqual([]); // a preview sends and writes nothing

    const sent = await desk.send(preview);
    expect(sent.rows.map((r) => r.status)).toEqual(["submitted", "submitted"]);
    await desk.settled(20_000);

    const log = await workbook.readLog();
    const service = await serviceState(sb, DEMO_API_KEY);
    expect(log).toHaveLength(2);
    for (const row of log) {
      const hedge = service.hedges.find((h) => h.id === row.hedgeId)!;
      expect(row).toMatchObject({
        environment: "sandbox",
        action: "open",
        status: "filled",
        fillTxHash: hedge.fill_tx_hash,
        orderTxHash: hedge.order_tx_hash,
        struckRate: hedge.struck_rate,
        filledAt: hedge.filled_at,
        clientReference: hedge.client_reference,
        notional: hedge.notional_usd,
        errorCode: null,
      });
    }
    // progress went submitting → submitted → filled for each row, with sheet row numbers
    const seen = (row: number) => events.filter((e) => e.row.rowNumber === row).map((e) => e.row.status);
    expect(seen(2)).toEqual(expect.arrayContaining(["submitting", "submitted", "filled"]));
    expect(events.at(-1)).toMatchObject({ total: 2, done: 2 });
  });

  it("adds, reduces and closes, each tracked to its final state by the hedge's notional and status", async () => {
    const { workbook, desk } = await setup([HEADER, ["USDTNGN", "buy", 100_000, 7, "D-1"]]);
    await trade(desk, workbook, "open", [HEADER, ["USDTNGN", "buy", 100_000, 7, "D-1"]]);
    const amount = ["Market", "Side", "Amount"];
    await trade(desk, workbook, "add", [amount, ["USDTNGN", "buy", 25_000], ["USDTNGN", "buy", 5_000]]);
    let service = await serviceState(sb, DEMO_API_KEY);
    expect(service.hedges[0].notional_usd).toBe(130_000);
    await trade(desk, workbook, "reduce", [amount, ["USDTNGN", "buy", 30_000]]);
    service = await serviceState(sb, DEMO_API_KEY);
    expect(service.hedges[0].notional_usd).toBe(100_000);

    // Reduce preview shows the position line and the margin expected back, scaled to the amount.
    workbook
      .setSheet("Exposures", [
        ["Market", "Side"],
        ["USDTNGN", "buy"],
      ])
      .select("Exposures", "A2:B2");
    const closeRead = await desk.readRows("close");
    const closePreview = await desk.preview("close", closeRead.rows);
    expect(closePreview.lines[0].position?.size_usd).toBe(100_000);
    expect(closePreview.lines[0].marginBackUsdc).toBe(closePreview.lines[0].position?.net_margin_usd);
    await desk.send(closePreview);
    await desk.settled(20_000);

    const log = await workbook.readLog();
    expect(log.map((r) => [r.action, r.notional, r.status])).toEqual([
      ["open", 100_000, "filled"],
      ["add", 25_000, "filled"],
      ["add", 5_000, "filled"],
      ["reduce", 30_000, "filled"],
      ["close", null, "closed"],
    ]);
    service = await serviceState(sb, DEMO_API_KEY);
    expect(service.hedges).toHaveLength(1);
    expect(service.hedges[0].status).toBe("closed");
    expect(service.history.map((h) => h.exit_type).sort()).toEqual(["close", "decrease"]);
  });

  it("blocks what cannot work in the preview and sends nothing for it", async () => {
    const { workbook, desk } = await setup([HEADER]);
    await trade(desk, workbook, "open", [HEADER, ["USDTNGN", "buy", 100_000, 7, "D-1"]]);
    workbook
      .setSheet("Exposures", [
        HEADER,
        ["USDTNGN", "buy", 5_000, 7, "D-2"],
        ["USDTNGN", "sell", 5_000, 7, "D-3"],
        ["USDTNGN", "sell", 5_000, 1, "D-4"],
      ])
      .select("Exposures", "A2:E4");
    const open = await desk.preview("open", (await desk.readRows("open")).rows);
    expect(open.lines[0].blockers[0]).toMatch(/^A hedge is already open on USDTNGN buy .*: use Add to grow it\.$/);
    expect(open.lines[1].blockers).toEqual([]);
    expect(open.lines[2].blockers).toEqual(["Row 3 already opens USDTNGN sell: one hedge per market and side — use Add for more."]);

    workbook
      .setSheet("Exposures", [
        ["Market", "Side", "Amount"],
        ["USDTNGN", "buy", 60_000],
        ["USDTNGN", "buy", 60_000],
        ["USDTNGN", "sell", 1],
      ])
      .select("Exposures", "A2:C4");
    const reduce = await desk.preview("reduce", (await desk.readRows("reduce")).rows);
    expect(reduce.lines[0].blockers).toEqual([]);
    expect(reduce.lines[1].blockers[0]).toBe(
      "Reduce 60,000.00 is more than the 40,000.00 left open on USDTNGN buy after the rows above: reduce at most 40,000.00, or use Close.",
    );
    expect(reduce.lines[2].blockers[0]).toBe("No open sell position on USDTNGN: nothing to reduce.");

    const sent = await desk.send(open);
    expect(sent.skipped.map((s) => s.rowNumber)).toEqual([2, 4]);
    await desk.settled(20_000);
    const service = await serviceState(sb, DEMO_API_KEY);
    expect(service.hedges.map((h) => h.client_reference).sort()).toEqual(["D-1", "D-3"]);
  });

  it("refuses a batch over the balance, and sends nothing at all", async () => {
    const poor = "svc_test_small_balance_0001";
    await controlOk(sb, "POST", "/accounts", {
      api_key: poor,
      account_address: "0x00000000000000000000000000000000000000bb",
      balance_usdc: 50_000,
      max_exposure_usd: 2_000_000,
      allowed_markets: ["USDTNGN"],
      scopes: ["read", "trade"],
    });
    // ~10.1% of 600,000 is ~60,600 USDC of collateral: more than the 50,000 balance.
    const grid = [HEADER, ["USDTNGN", "buy", 300_000, 7, "B-1"], ["USDTNGN", "sell", 300_000, 7, "B-2"]];
    const { desk, workbook } = await setup(grid, poor);
    const preview = await desk.preview("open", (await desk.readRows("open")).rows);
    const balance = preview.checks.find((c) => c.label.startsWith("Balance"))!;
    expect(balance).toMatchObject({ available: 50_000, ok: false });
    expect(balance.needed).toBeCloseTo(preview.totals.collateralUsdc, 6);
    expect(preview.blockers).toEqual([
      expect.stringMatching(
        /^Balance \(USDC\): the batch needs 60,[0-9]{3}\.[0-9]{2} USDC but 50,000\.00 USDC is available\. Remove rows or reduce amounts\.$/,
      ),
    ]);
    await expect(desk.send(preview)).rejects.toThrow(/^Nothing was sent: Balance/);
    expect(await workbook.readLog()).toEqual([]);
    expect((await serviceState(sb, poor)).hedges).toEqual([]);
  });

  it("flags rows the log shows as done and sends them again only when asked", async () => {
    const grid = [HEADER, ["USDTNGN", "buy", 10_000, 1, "DUP-1"]];
    const { workbook, desk } = await setup(grid);
    await trade(desk, workbook, "open", grid);
    const close = [
      ["Market", "Side"],
      ["USDTNGN", "buy"],
    ];
    await trade(desk, workbook, "close", close);
    workbook.setSheet("Exposures", grid).select("Exposures", "A2:E2");
    const again = await desk.preview("open", (await desk.readRows("open")).rows);
    expect(again.duplicates).toBe(1);
    expect(again.lines[0].duplicateOf).toMatchObject({ status: "filled" });
    const skipped = await desk.send(again);
    expect(skipped.rows).toEqual([]);
    expect(skipped.skipped[0].reason).toMatch(
      /^Already in the log \(filled, logged \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, key .*\): tick "send again" to send it anyway\.$/,
    );
    expect((await serviceState(sb, DEMO_API_KEY)).hedges).toHaveLength(1);
    await desk.send(again, { sendAgain: true });
    await desk.settled(20_000);
    expect((await serviceState(sb, DEMO_API_KEY)).hedges.filter((h) => h.client_reference === "DUP-1")).toHaveLength(2);
    expect((await workbook.readLog()).filter((r) => r.action === "open").map((r) => r.status)).toEqual(["filled", "filled"]);
  });

  it("logs a refusal by the service as rejected with its error code, and leaves nothing on the service", async () => {
    const grid = [HEADER, ["USDTNGN", "sell", 10_000, 3, "R-1"]];
    const { desk } = await setup(grid);
    const preview = await desk.preview("open", (await desk.readRows("open")).rows);
    // Someone else (another pane) opens the same market side between preview and send.
    const other = await setup(grid);
    await trade(other.desk, other.workbook, "open", [HEADER, ["USDTNGN", "sell", 5_000, 3, "OTHER"]]);
    const sent = await desk.send(preview);
    expect(sent.rows[0]).toMatchObject({ status: "rejected", errorCode: "hedge_exists" });
    expect(sent.rows[0].message).toMatch(/use Add to grow it/);
    await desk.settled(5_000);
    const service = await serviceState(sb, DEMO_API_KEY);
    expect(service.hedges.map((h) => h.client_reference)).toEqual(["OTHER"]);
  });

  it("resumes, on the user's word, rows journalled but never sent and rows submitted but not yet filled; rows without an account only once claimed", async () => {
    const w = sandboxWorld(sb, DEMO_API_KEY_2);
    const { workbook, client, store: intentStore } = w;
    const address = (await client.account()).data.account_address;
    // A previous pane journalled three rows and died: one never left, one was accepted and then the pane closed; the
    // third is in a log older than the Account column (and this computer's journal never saw it).
    const journal = new Journal(workbook, { store: intentStore, scope: intentScope("sandbox", address) });
    await journal.load();
    const at = new Date().toISOString();
    const row = (n: number, side: "buy" | "sell", market: string, ref: string) =>
      ({ rowNumber: n, action: "open", market, side, notional: 20_000 + n, tenor: 7, clientReference: ref }) as const;
    const unsent = intentFromRow(row(2, "buy", "USDTNGN", "RES-1"), newIdempotencyKey(), "sandbox", at, address);
    const accepted = intentFromRow(row(3, "sell", "USDTNGN", "RES-2"), newIdempotencyKey(), "sandbox", at, address);
    unsent.keyId = accepted.keyId = client.keyId;
    await journal.append([unsent, accepted]);
    const answer = await client.open(
      { market: "USDTNGN", side: "sell", notional_usd: accepted.notional!, tenor_days: 7, client_reference: "RES-2" },
      { idempotencyKey: accepted.idempotencyKey },
    );
    journal.update(accepted, { status: "submitted", hedgeId: answer.data.hedge_id, orderTxHash: answer.data.order_tx_hash });
    await journal.flush();
    const older = intentFromRow(row(4, "buy", "USDTNGN", "RES-3"), newIdempotencyKey(), "sandbox", at, null);

    const desk = await w.desk();
    // Opening the pane lists them and what the service shows; nothing is sent.
    const plan = await desk.inspect();
    expect(plan.items.map((i) => [i.row.idempotencyKey, i.owner, i.step])).toEqual([
      [unsent.idempotencyKey, "mine", "send"],
      [accepted.idempotencyKey, "mine", "follow"],
    ]);
    expect((await serviceState(sb, DEMO_API_KEY_2)).hedges).toHaveLength(1);
    const resumed = await desk.resume();
    expect(resumed.resumed.map((r) => r.idempotencyKey).sort()).toEqual([unsent.idempotencyKey, accepted.idempotencyKey].sort());
    await desk.settled(20_000);
    let log = await workbook.readLog();
    expect(log.map((r) => r.status)).toEqual(["filled", "filled"]);
    const service = await serviceState(sb, DEMO_API_KEY_2);
    expect(service.hedges.map((h) => h.client_reference).sort()).toEqual(["RES-1", "RES-2"]);
    expect(log[1].hedgeId).toBe(answer.data.hedge_id);
    desk.stop();

    // A row without an account is listed as unclaimed and left alone until the user says it is this account's. Only the
    // log knows it (no Sent at, not in this computer's journal): it may have been sent, the service shows nothing, so it is
    // never sent blindly: the user decides.
    await new Journal(workbook).append([older]);
    const next = await w.desk();
    const listed = await next.inspect();
    expect(listed.items.map((i) => [i.row.idempotencyKey, i.owner, i.step])).toEqual([[older.idempotencyKey, "unclaimed", "decide"]]);
    expect((await next.resume()).resumed).toEqual([]);
    expect((await next.resume({ claim: [older.idempotencyKey] })).resumed.map((r) => r.idempotencyKey)).toEqual([older.idempotencyKey]);
    await next.settled(20_000);
    expect(next.needsDecision().map((r) => r.idempotencyKey)).toEqual([older.idempotencyKey]);
    expect((await serviceState(sb, DEMO_API_KEY_2)).hedges).toHaveLength(2);
    await next.decide(older.idempotencyKey, "not_done");
    log = await workbook.readLog();
    expect(log[2]).toMatchObject({ status: "not_sent", account: address, decision: "not done" });
    expect(log[2].decidedAt).toEqual(expect.any(String));
    next.stop();
    // A second resume finds nothing to do.
    expect((await (await w.desk({ intentStore: undefined })).resume()).resumed).toEqual([]);
  });

  it("keeps accounts apart: the log records the account, and another account's key neither resumes nor counts that account's rows", async () => {
    const clientA = deskClient(sb, DEMO_API_KEY);
    const clientB = deskClient(sb, DEMO_API_KEY_2);
    const addressA = (await clientA.account()).data.account_address;
    const addressB = (await clientB.account()).data.account_address;
    expect(addressA).not.toBe(addressB);
    // Account A sends one row (the Account column is filled) and journals a second that never left (its pane died).
    const grid = [HEADER, ["USDTNGN", "buy", 15_000, 7, "ACC-1"]];
    const { workbook, desk } = await setup(grid, DEMO_API_KEY);
    await trade(desk, workbook, "open", grid);
    desk.stop();
    const storeA = new MemoryIntentStore();
    const journal = new Journal(workbook, { store: storeA, scope: intentScope("sandbox", addressA) });
    await journal.load();
    const stranded = intentFromRow(
      { rowNumber: 3, action: "open", market: "USDTNGN", side: "sell", notional: 25_000, tenor: 7, clientReference: "ACC-2" },
      newIdempotencyKey(),
      "sandbox",
      new Date().toISOString(),
      addressA,
    );
    stranded.keyId = clientA.keyId;
    await journal.append([stranded]);
    expect((await workbook.readLog()).map((r) => r.account)).toEqual([addressA, addressA]);

    // The same workbook connected with account B's key: A's unfinished row is not sent under B, and A's done row is no duplicate for B.
    const deskB = await sandboxWorld(sb, DEMO_API_KEY_2, { workbook, intentStore: storeA }).desk();
    expect((await deskB.resume()).resumed).toEqual([]);
    expect((await serviceState(sb, DEMO_API_KEY_2)).hedges).toEqual([]);
    workbook.setSheet("Exposures", grid).select("Exposures", "A2:E2");
    const previewB = await deskB.preview("open", (await deskB.readRows("open")).rows);
    expect(previewB.lines[0].duplicateOf).toBeNull();
    deskB.stop();

    // Back on account A: the stranded row is taken up and sent once, under A; the first row is A's duplicate.
    const deskA = await sandboxWorld(sb, DEMO_API_KEY, { workbook, intentStore: storeA }).desk({ account: addressA });
    expect((await deskA.resume()).resumed.map((r) => r.idempotencyKey)).toEqual([stranded.idempotencyKey]);
    await deskA.settled(20_000);
    expect((await serviceState(sb, DEMO_API_KEY)).hedges.map((h) => h.client_reference).sort()).toEqual(["ACC-1", "ACC-2"]);
    const previewA = await deskA.preview("open", (await deskA.readRows("open")).rows);
    expect(previewA.lines[0].duplicateOf).not.toBeNull();
    deskA.stop();
  });

  it("asks the key's account through the sender alone: forced 429s it waits out build the desk; one more than its attempts fails it, after exactly its attempts", async () => {
    const asked: Array<number | null> = [];
    const w = sandboxWorld(sb, DEMO_API_KEY, {
      clientOptions: { onAttempt: (a) => void (a.path === "/account" && asked.push(a.status)) },
      intentStore: null,
    });
    await controlOk(sb, "POST", "/faults", { rate_limit_next: 3, retry_after_seconds: 0 });
    const desk = await w.desk();
    desk.stop();
    expect(asked).toEqual([429, 429, 429, 200]);
    asked.length = 0;
    await controlOk(sb, "POST", "/faults", { rate_limit_next: 4, retry_after_seconds: 0 });
    await expect(w.desk()).rejects.toMatchObject({ code: "rate_limited" });
    // The sender's four attempts, and none stacked on them by the desk.
    expect(asked).toEqual([429, 429, 429, 429]);
  });

  it("survives an answer lost after commit: the retry with the same key gets the original result, one hedge", async () => {
    const grid = [HEADER, ["USDTNGN", "buy", 10_000, 7, "DROP-1"]];
    const { workbook, desk } = await setup(grid);
    await controlOk(sb, "POST", "/faults", { drop_after_commit: 1 });
    await trade(desk, workbook, "open", grid);
    const service = await serviceState(sb, DEMO_API_KEY);
    expect(service.hedges).toHaveLength(1);
    const log = await workbook.readLog();
    expect(log[0]).toMatchObject({ status: "filled", hedgeId: service.hedges[0].id });
  });
});
