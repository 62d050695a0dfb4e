// Hedge to target in the real pane (Chromium, harness mode, sandbox over HTTP): a model and a policy → Propose writes the "Hedge Proposal" sheet → read with its Action column, previewed and traded as one batch → Propose again proposes nothing.
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import type { CellValue } from "../../src/trading/cells";
import { PROPOSAL_HEADERS } from "../../src/trading/rows";
import { describeWithBrowser } from "./browser";
import path from "path";
import {
  ARTIFACTS,
  connect,
  type HarnessWindow,
  logRows,
  paneWithSandbox,
  PREVIEW_DONE,
  screenshot,
  select,
  waitRowsFinal,
} from "./pane-driver";
import { until } from "../sandbox/helpers";
import type { Page } from "playwright-core";

jest.setTimeout(120_000);

const MODEL: CellValue[][] = [
  ["Market", "Side", "Amount (USD)", "Note"],
  ["USDTNGN", "buy", 600_000, "Q1 imports"],
  ["USDTNGN", "buy", 400_000, "Q2 imports"],
  ["USDTNGN", "sell", 100_000, "exports"],
];
const POLICY: CellValue[][] = [
  ["Market", "Hedge ratio (%)", "Tenor (days)", "Round to (USD)", "Min trade (USD)", "Max trade (USD)", "Net sides"],
  ["*", 75, 7, 1_000, 10_000, 300_000, "yes"],
];

const harness = (page: Page) => ({
  setSheet: (name: string, grid: CellValue[][]) =>
    page.evaluate(([n, g]) => (window as unknown as HarnessWindow).hedgeHarness.setSheet(n, g), [name, grid] as const),
  select: (address: string, sheet: string) =>
    page.evaluate(([a, s]) => (window as unknown as HarnessWindow).hedgeHarness.select(a, s), [address, sheet] as const),
  cells: (sheet: string) => page.evaluate((s) => (window as unknown as HarnessWindow).hedgeHarness.cells(s), sheet),
});

/** Selects the model, presses Propose, selects the policy, presses Propose again; returns what the pane says. */
async function propose(page: Page): Promise<string> {
  const wb = harness(page);
  await wb.select("A2:D4", "Model");
  await page.locator("#propose").click();
  await page.waitForFunction(() => /^Exposures: /.test(document.getElementById("propose-note")?.textContent ?? ""));
  await wb.select("A2:G2", "Policy");
  await page.locator("#propose").click();
  await page.waitForFunction(() => /proposed on|Nothing to do/.test(document.getElementById("propose-note")?.textContent ?? ""));
  return (await page.locator("#propose-note").textContent()) ?? "";
}

describeWithBrowser("hedge to target in the task pane", (chromiumPath) => {
  const world = paneWithSandbox(chromiumPath, { seed: 23 });

  test("model → Propose → trade the proposal as one batch → Propose again proposes nothing", async () => {
    const { page } = world.pane;
    await connect(page, DEMO_API_KEY, world.sandbox.baseUrl);
    const wb = harness(page);
    await wb.setSheet("Model", MODEL);
    await wb.setSheet("Policy", POLICY);

    // A sell hedge is open (the harness's row 3: sell 100,000, 3 days): the net buy exposure no longer needs it.
    await select(page, "A3:E3");
    await page.locator("#read-selection").click();
    await page.locator("#preview").click();
    await page.waitForSelector(PREVIEW_DONE);
    await page.locator("#confirm").click();
    await waitRowsFinal(page, 1);

    expect(await propose(page)).toMatch(/^4 rows proposed on Hedge Proposal \(1 Close, 1 Open, 2 Add\)/);
    const sheet = await wb.cells("Hedge Proposal");
    expect(sheet[0]).toEqual([...PROPOSAL_HEADERS]);
    // Net 900,000 buy × 75% = 675,000 buy in rows of at most 300,000; the sell hedge is closed first.
    expect(sheet.slice(1).map((r) => r.slice(0, 5))).toEqual(
      [
        ["Close", "USDTNGN", "sell", null, null],
        ["Open", "USDTNGN", "buy", 300_000, 7],
        ["Add", "USDTNGN", "buy", 300_000, null],
        ["Add", "USDTNGN", "buy", 75_000, null],
      ].map((r) => r.map((v) => (v === null ? expect.anything() : v))),
    );

    await wb.select("A2:I5", "Hedge Proposal");
    await page.locator("#read-selection").click();
    await page.waitForSelector("#action-column-choice:not([hidden])");
    // The group shows one choice: the column's, not the Open chosen before.
    const checked = await page.$$eval("#action fluent-radio", (rs) =>
      rs.filter((r) => (r as HTMLElement & { checked: boolean }).checked).map((r) => r.getAttribute("value")),
    );
    expect(checked).toEqual(["column"]);
    await page.locator("#preview").click();
    await page.waitForSelector(PREVIEW_DONE);
    expect(await page.locator("#preview-table caption").textContent()).toBe(
      "Preview: From the Action column: 4 rows (1 Close, 1 Open, 2 Add)",
    );
    expect(await page.locator("#preview-table .blocker").count()).toBe(0);
    await screenshot(page, "pane-proposal-320");
    // The guide's picture (src/taskpane/README.md, copied to assets/docs/): the trade section alone.
    await page
      .locator("#trade-section")
      .screenshot({ path: path.join(ARTIFACTS, "pane-proposal-section-320.png"), animations: "disabled" });
    expect(await page.locator("#confirm").textContent()).toBe("Confirm and send 4 rows");
    await page.locator("#confirm").click();
    await waitRowsFinal(page, 5, 45_000);
    // The log is written behind the pane's rows (write-behind.ts): wait for its five rows to reach their final statuses.
    const final = new Set(["filled", "closed", "failed", "rejected", "not_sent"]);
    const log = await until(
      async () => {
        const rows = await logRows(page);
        return rows.length === 5 && rows.every((r) => final.has(r.status)) && rows;
      },
      10_000,
      "the Hedge Log's five rows, final",
    ).catch(() => logRows(page)); // the assertion below then shows what the log holds
    expect(log.map((r) => `${r.action} ${r.side} ${r.status}`)).toEqual([
      "open sell filled",
      "close sell closed",
      "open buy filled",
      "add buy filled",
      "add buy filled",
    ]);

    expect(await propose(page)).toMatch(/^Nothing to do/);
  });
});
