// The Unfinished rows list in real Chromium against the sandbox over HTTP: on opening it lists what an earlier session left and what the service shows, sends nothing until Resume, offers "It was done" / "It was not done" (each confirmed, logged with the time), Resume with a LIVE key asks twice; axe-clean at 320 px.
import { DEMO_API_KEY, DEMO_LIVE_API_KEY } from "../../src/sandbox/demo";
import { HedgingClient } from "../../src/api/client";
import { keyFingerprint } from "../../src/api/environment";
import { intentScope, type StoredIntent } from "../../src/trading/intent-store";
import type { LogRecord } from "../../src/trading/log/hedge-log";
import { describeWithBrowser } from "./browser";
import {
  axeViolations,
  connect,
  liveDialogOpen,
  screenshot,
  paneWithSandbox,
  logRows,
  type HarnessWindow,
  waitLiveDialogOpen,
  waitReady,
  waitRowsFinal,
  chooseAction,
  PREVIEW_DONE,
} from "./pane-driver";
import type { Page } from "playwright-core";
import { journalled } from "../support/builders";

jest.setTimeout(120_000);

const DAY = 86_400_000;

/** A row an earlier session left in the log unfinished (an open being sent, unless told), of `account`. */
const unfinished = (account: string, over: Partial<LogRecord>): LogRecord =>
  journalled(over.idempotencyKey ?? "", { tenor: null, clientReference: null, account, ...over });

/** What an earlier session left before this pane opened: rows in the Hedge Log, and entries in this computer's journal. */
async function leftBehind(page: Page, log: LogRecord[], scope: string, entries: StoredIntent[]): Promise<void> {
  await page.evaluate(
    async ({ log, scope, entries }) => {
      const h = (window as unknown as HarnessWindow).hedgeHarness;
      await h.appendLog(log);
      await h.putJournal(scope, entries);
    },
    { log, scope, entries },
  );
}
describeWithBrowser("unfinished rows in Chromium", (chromiumPath) => {
  const world = paneWithSandbox(chromiumPath, { seed: 5, fillMs: 200, open: false });
  const item = (page: Page, key: string) => page.locator(`#resume-list li[data-key="${key}"]`);
  const hedgesWith = async (apiKey: string, reference: string) =>
    (
      (await fetch(`${world.sandbox.baseUrl}/hedges?client_reference=${reference}`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      }).then((r) => r.json())) as { data: unknown[] }
    ).data;

  test("on opening: the rows and what the service shows, nothing sent; decisions confirmed and logged; Resume sends the row never sent", async () => {
    const client = new HedgingClient({ apiKey: DEMO_API_KEY, baseUrl: world.sandbox.baseUrl });
    const address = (await client.account()).data.account_address!;
    const opened = await client.open({
      market: "USDTNGN",
      side: "buy",
      notional_usd: 100_000,
      tenor_days: 7,
      client_reference: "E2E-BASE",
    });
    const hedgeId = opened.data.hedge_id!;
    // Until it is filled, however long a busy machine takes (the test's timeout is the bound).
    while ((await client.get(hedgeId)).data.status !== "filled") await new Promise((r) => setTimeout(r, 50));
    const twoDaysAgo = new Date(Date.now() - 2 * DAY).toISOString();
    const rows: Record<string, LogRecord> = {
      // An Add sent two days ago; the service does not show it: too old to send again, the user decides.
      add: unfinished(address, {
        loggedAt: twoDaysAgo,
        sentAt: twoDaysAgo,
        action: "add",
        side: "buy",
        notional: 25_000,
        idempotencyKey: "e2e-add-0001",
        hedgeId,
        notionalBefore: 100_000,
      }),
      // A Reduce of an older version's log (no Sent at, no notional before) that the service did execute.
      reduce: unfinished(address, {
        loggedAt: new Date(Date.parse(twoDaysAgo) + 1_000).toISOString(),
        action: "reduce",
        side: "buy",
        notional: 10_000,
        idempotencyKey: "e2e-reduce-0001",
        hedgeId,
      }),
      // An Open journalled by this computer and never sent (the pane died before the request).
      open: unfinished(address, {
        loggedAt: new Date(Date.now() - 60_000).toISOString(),
        action: "open",
        side: "sell",
        notional: 40_000,
        tenor: 3,
        clientReference: "DEAL-RESUME-1",
        idempotencyKey: "e2e-open-0001",
      }),
      // A row whose idempotency key was blanked: never sent, whatever happens.
      broken: unfinished(address, {
        loggedAt: new Date(Date.now() - 30_000).toISOString(),
        action: "open",
        side: "buy",
        notional: 5_000,
        tenor: 1,
        clientReference: "BROKEN",
        idempotencyKey: "",
      }),
    };
    await client.decrease({ market: "USDTNGN", side: "buy", reduce_notional_usd: 10_000 }, { idempotencyKey: rows.reduce.idempotencyKey });
    const keyId = keyFingerprint(DEMO_API_KEY);
    const journal: StoredIntent[] = [rows.add, rows.open].map((record) => ({ record, keyId, anchor: null, finalAt: null }));

    const { page } = await world.session.open();
    await waitReady(page);
    await leftBehind(page, [rows.add, rows.reduce, rows.open, rows.broken], intentScope("sandbox", address), journal);
    await connect(page, DEMO_API_KEY, world.sandbox.baseUrl);
    await page.waitForSelector("#resume-list li");
    await page.waitForFunction(() => document.querySelectorAll("#resume-list li").length === 3);
    await expect(page.locator("#resume-headline").textContent()).resolves.toBe(
      "3 unfinished rows from an earlier session, with what the service shows. Nothing is sent until you press Resume.",
    );
    await expect(item(page, "e2e-add-0001").textContent()).resolves.toMatch(
      /Add buy USDTNGN 25,000\.00 USD.*90,000\.00 USD.*Needs your decision/,
    );
    await expect(item(page, "e2e-open-0001").textContent()).resolves.toMatch(
      /Open sell USDTNGN 40,000\.00 USD.*Resume sends it \(it was never sent\)/,
    );
    await expect(page.locator("#resume-unusable").textContent()).resolves.toMatch(/Idempotency key is empty/);
    await expect(page.locator("#resume").textContent()).resolves.toBe("Resume 1 row");
    // The pane is usable meanwhile, and nothing was sent.
    await expect(page.locator("#read-selection").getAttribute("disabled")).resolves.toBeNull();
    expect(await hedgesWith(DEMO_API_KEY, "DEAL-RESUME-1")).toHaveLength(0);
    await screenshot(page, "40-unfinished-rows-320");
    expect(await axeViolations(page)).toEqual([]);

    // The Reduce did happen (the service shows the hedge reduced): "It was done", confirmed.
    await item(page, "e2e-reduce-0001").locator("fluent-button.decide-done").click();
    await page.waitForSelector('#resume-list li[data-key="e2e-reduce-0001"] .decision-confirm');
    await expect(item(page, "e2e-reduce-0001").locator(".decision-confirm").textContent()).resolves.toMatch(
      /as done\? .*Nothing is sent\./,
    );
    await page.waitForFunction(() => document.activeElement?.classList.contains("confirm-decision") ?? false);
    await screenshot(page, "41-decision-confirm-320");
    expect(await axeViolations(page)).toEqual([]);
    await item(page, "e2e-reduce-0001").locator("fluent-button.confirm-decision").click();
    await page.waitForFunction(() => !document.querySelector('#resume-list li[data-key="e2e-reduce-0001"]'));
    // The Add did not: "It was not done", confirmed.
    await item(page, "e2e-add-0001").locator("fluent-button.decide-not-done").click();
    await item(page, "e2e-add-0001").locator("fluent-button.confirm-decision").click();
    await page.waitForFunction(() => !document.querySelector('#resume-list li[data-key="e2e-add-0001"]'));
    let log = await logRows(page);
    const byKey = (key: string) => log.find((r) => r.idempotencyKey === key)!;
    expect(byKey("e2e-reduce-0001")).toMatchObject({ status: "filled", decision: expect.stringMatching(/^done: /) });
    expect(byKey("e2e-add-0001")).toMatchObject({ status: "not_sent", decision: "not done" });
    expect(Date.parse(byKey("e2e-add-0001").decidedAt!)).toBeGreaterThan(Date.now() - 60_000);

    // Resume: the row never sent goes, once, and fills.
    await page.locator("#resume").click();
    await waitRowsFinal(page, 3); // the two decided rows and the resumed one
    log = await logRows(page);
    expect(byKey("e2e-open-0001")).toMatchObject({ status: "filled", clientReference: "DEAL-RESUME-1" });
    expect(await hedgesWith(DEMO_API_KEY, "DEAL-RESUME-1")).toHaveLength(1);
    expect((await client.get(hedgeId)).data.notional_usd).toBe(90_000); // nothing else happened to the hedge
    await screenshot(page, "42-resumed-320");
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  });

  test("Resume with a LIVE key asks the same second confirmation as a new batch; Cancel sends nothing", async () => {
    const client = new HedgingClient({ apiKey: DEMO_LIVE_API_KEY, baseUrl: world.sandbox.baseUrl });
    const address = (await client.account()).data.account_address!;
    const record: LogRecord = unfinished(address, {
      environment: "production",
      loggedAt: new Date(Date.now() - 60_000).toISOString(),
      action: "open",
      side: "sell",
      notional: 15_000,
      tenor: 7,
      clientReference: "LIVE-RESUME-1",
      idempotencyKey: "e2e-live-0001",
    });
    const { page } = await world.session.open();
    await waitReady(page);
    await leftBehind(page, [record], intentScope("production", address), [
      { record, keyId: keyFingerprint(DEMO_LIVE_API_KEY), anchor: null, finalAt: null },
    ]);
    await connect(page, DEMO_LIVE_API_KEY, world.sandbox.baseUrl);
    await page.waitForSelector("#resume-list li");
    await page.locator("#resume").click();
    await waitLiveDialogOpen(page);
    await expect(page.locator("#live-dialog-text").textContent()).resolves.toMatch(
      /^LIVE environment — production money\. Resume 1 unfinished row/,
    );
    await page.locator("#live-cancel").click();
    expect(await liveDialogOpen(page)).toBe(false);
    await new Promise((r) => setTimeout(r, 500));
    expect(await hedgesWith(DEMO_LIVE_API_KEY, "LIVE-RESUME-1")).toHaveLength(0);
    expect((await logRows(page))[0].status).toBe("submitting");
    await page.context().close();
  });
  test("the crash window (an Add submitted, the Reduce after it sent, both executed) resolves through the pane with no decision; a Close chosen meanwhile closes the hedge within seconds", async () => {
    const client = new HedgingClient({ apiKey: DEMO_API_KEY, baseUrl: world.sandbox.baseUrl });
    const address = (await client.account()).data.account_address!;
    const hedgeOf = async (id: string) => (await client.get(id)).data;
    const until = async (id: string, ok: (h: { status: string; notional_usd: number }) => boolean) => {
      for (let i = 0; i < 200 && !ok(await hedgeOf(id)); i++) await new Promise((r) => setTimeout(r, 50));
    };
    // An earlier test of this file leaves a sell hedge open: this one starts from a free side.
    await client.close({ market: "USDTNGN", side: "sell" }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 600));
    const opened = await client.open({
      market: "USDTNGN",
      side: "sell",
      notional_usd: 100_000,
      tenor_days: 7,
      client_reference: "E2E-CRASH",
    });
    const hedgeId = opened.data.hedge_id!;
    await until(hedgeId, (h) => h.status === "filled");
    await client.add({ market: "USDTNGN", side: "sell", additional_notional_usd: 50_000 }, { idempotencyKey: "e2e-crash-add" });
    await until(hedgeId, (h) => h.notional_usd === 150_000);
    await client.decrease({ market: "USDTNGN", side: "sell", reduce_notional_usd: 100_000 }, { idempotencyKey: "e2e-crash-reduce" });
    await until(hedgeId, (h) => h.notional_usd === 50_000);
    const at = (s: number) => new Date(Date.now() - s * 1_000).toISOString();
    const base = { ...journalled("", { tenor: null, clientReference: null }), side: "sell" as const, hedgeId, account: address };
    const rows: LogRecord[] = [
      {
        ...base,
        loggedAt: at(60),
        sentAt: at(60),
        action: "open",
        notional: 100_000,
        tenor: 7,
        clientReference: "E2E-CRASH",
        idempotencyKey: "e2e-crash-open",
        status: "filled",
      },
      {
        ...base,
        loggedAt: at(40),
        sentAt: at(40),
        action: "add",
        notional: 50_000,
        idempotencyKey: "e2e-crash-add",
        status: "submitted",
        notionalBefore: 100_000,
      },
      {
        ...base,
        loggedAt: at(20),
        sentAt: at(20),
        action: "reduce",
        notional: 100_000,
        idempotencyKey: "e2e-crash-reduce",
        status: "submitting",
        notionalBefore: 150_000,
      },
    ];
    const keyId = keyFingerprint(DEMO_API_KEY);
    const { page } = await world.session.open();
    await waitReady(page);
    await leftBehind(
      page,
      rows,
      intentScope("sandbox", address),
      rows.map((record) => ({ record, keyId, anchor: null, finalAt: null })),
    );
    await page.evaluate(() =>
      (window as unknown as HarnessWindow).hedgeHarness.setSheet("Closes", [
        ["Market", "Side", "Notional", "Tenor", "Client reference"],
        ["USDTNGN", "sell", "", "", ""],
      ]),
    );
    await connect(page, DEMO_API_KEY, world.sandbox.baseUrl);
    await page.waitForFunction(() => document.querySelectorAll("#resume-list li").length === 2);
    // Both rows are judged from what the service shows: the Add by the notional the Reduce found, the Reduce by the hedge now.
    await expect(item(page, "e2e-crash-add").textContent()).resolves.toMatch(
      /found it at 150,000\.00 USD.*Resume records what the service shows/,
    );
    await expect(item(page, "e2e-crash-reduce").textContent()).resolves.toMatch(/50,000\.00 USD.*Resume records what the service shows/);
    expect(await page.locator("#resume-list .decide-done").count()).toBe(0);
    await page.locator("#resume").click();

    // A Close of that side, chosen meanwhile.
    await page.evaluate(() => (window as unknown as HarnessWindow).hedgeHarness.select("A2:E2", "Closes"));
    await chooseAction(page, "close");
    await page.locator("#read-selection").click();
    await page.waitForSelector("#preview:not([hidden])");
    await page.locator("#preview").click();
    await page.waitForSelector(PREVIEW_DONE);
    const confirmed = Date.now();
    await page.locator("#confirm").click();
    await until(hedgeId, (h) => h.status === "closed");
    expect((await hedgeOf(hedgeId)).status).toBe("closed");
    expect(Date.now() - confirmed).toBeLessThan(10_000);
    let log = await logRows(page);
    for (let i = 0; i < 100 && !log.some((r) => r.action === "close" && r.status === "closed"); i++) {
      await new Promise((r) => setTimeout(r, 100));
      log = await logRows(page);
    }
    expect(log.filter((r) => r.hedgeId === hedgeId || r.action === "close").map((r) => [r.action, r.status, r.decision])).toEqual([
      ["open", "filled", null],
      ["add", "filled", null],
      ["reduce", "filled", null],
      ["close", "closed", null],
    ]);
    await page.context().close();
  });
});
