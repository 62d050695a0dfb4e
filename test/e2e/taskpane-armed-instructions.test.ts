// Armed rolls under a standing roll instruction in the real pane (Chromium, harness mode, sandbox over HTTP on its clock; issue 39 items 2 and 3 together): a LIVE key prepares an instruction, a second LIVE key of the account approves it, "LIVE trades need approval" is turned on, and past the hedge's maturity the pane sends the roll by itself, its Hedge Log row carrying the instruction's hash, preparer and approver.
import type { Page } from "playwright-core";
import { HedgingClient } from "../../src/api/client";
import type { Hedge } from "../../src/api/schemas";
import { publicKeyFingerprint } from "../../src/api/environment";
import { defaultAccounts } from "../../src/sandbox/accounts";
import { DEMO_LIVE_API_KEY } from "../../src/sandbox/demo";
import { rollKey, rollReference } from "../../src/trading/rolls";
import type { CellValue } from "../../src/trading/cells";
import { POLICY_HEADER } from "../policy/policy-header";
import { describeWithBrowser } from "./browser";
import { connect, type HarnessWindow, logRows, paneWithSandbox, proposeFromModel, switchKey, waitReady } from "./pane-driver";

jest.setTimeout(300_000);

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** A second trading key of the simulated LIVE account (the approver's), added to the default accounts for this file. */
const LIVE_APPROVER_KEY = "svc_live_armed_approver_key_0001";
const PREPARER = publicKeyFingerprint(DEMO_LIVE_API_KEY);
const APPROVER = publicKeyFingerprint(LIVE_APPROVER_KEY);
const ITEM = "#instructions-list li[data-instruction]";

const accounts = defaultAccounts().map((a) =>
  a.api_key === DEMO_LIVE_API_KEY
    ? {
        ...a,
        balance_usdc: 5_000_000,
        max_exposure_usd: 5_000_000,
        rate_limit_per_second: 1_000,
        keys: [{ api_key: LIVE_APPROVER_KEY, scopes: ["read", "trade"] }],
      }
    : a,
);

const setSheet = (page: Page, name: string, grid: CellValue[][]) =>
  page.evaluate(([n, g]) => (window as unknown as HarnessWindow).hedgeHarness.setSheet(n, g), [name, grid] as const);

describeWithBrowser("armed rolls under a standing roll instruction", (chromiumPath) => {
  const world = paneWithSandbox(chromiumPath, { seed: 45, fillMs: 400, open: false, accounts });

  test("LIVE, four-eyes on, an approved instruction covering the side: the pane sends the roll at maturity, logged with the instruction's hash", async () => {
    const s = world.sandbox;
    const start = Math.ceil(s.clock.now() / HOUR) * HOUR;
    s.clock.advance(start - s.clock.now());
    const { page, context } = await world.session.open({ clockAt: s.clock.now() });
    try {
      await waitReady(page);
      // The side's hedge, opened before the pane proposes (the pane arms it at its first listing).
      const client = new HedgingClient({ apiKey: DEMO_LIVE_API_KEY, baseUrl: s.baseUrl });
      await client.open({ market: "USDTNGN", side: "buy", notional_usd: 400_000, tenor_days: 7, client_reference: "FIRST-OPEN-1" });
      s.clock.advance(1_000);
      const first = (await client.list({ status: "filled" })).data.find((h) => h.client_reference === "FIRST-OPEN-1") as Hedge;
      expect(first?.maturity_at).toBeTruthy();

      await connect(page, DEMO_LIVE_API_KEY, s.baseUrl);
      await setSheet(page, "Model", [
        ["Market", "Side", "Amount (USD)", "Value date"],
        ["USDTNGN", "buy", 400_000, new Date(start + 12 * DAY).toISOString()],
      ]);
      await setSheet(page, "Policy", [POLICY_HEADER, ["*", 100, 7, 1_000, 10_000, 1_000_000, "no", 24, "at maturity"]]);
      await proposeFromModel(page);

      // The preparer's LIVE key submits the instruction; the approver's approves it (a control row with its hash).
      await page.waitForSelector("#approvals-section:not([hidden])");
      await page.locator("#instruction-market input").fill("USDTNGN");
      await page.locator("#instruction-side input").fill("buy");
      await page.locator("#instruction-until input").fill(new Date(start + 30 * DAY).toISOString());
      await page.locator("#instruction-max input").fill("500,000");
      await page.locator("#instruction-tenor input").fill("7");
      await page.locator("#instruction-submit").click();
      await page.waitForSelector(`${ITEM}[data-status="pending"]`);
      await switchKey(page, LIVE_APPROVER_KEY);
      await page.waitForSelector(`${ITEM} .approve`);
      await page.locator(`${ITEM} .approve`).click();
      await page.waitForSelector(`${ITEM}[data-status="approved"]`);
      const hash = (await logRows(page)).find((r) => r.action === "control" && r.market === "Roll instruction")?.batchHash;
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      // Four-eyes on: LIVE trades are not sent directly from now on.
      await page.locator("#live-needs-approval").click();
      await page.waitForFunction(() =>
        /LIVE trades need approval in this workbook/.test(document.getElementById("approvals-status")?.textContent ?? ""),
      );
      await page.waitForFunction(() => /USDTNGN buy armed: matures/.test(document.getElementById("armed-rolls-list")?.textContent ?? ""));

      // Past the maturity the pane rolls the side by itself, under the instruction.
      const maturity = Date.parse(first.maturity_at as string);
      s.clock.advance(maturity - s.clock.now());
      await page.clock.setSystemTime(s.clock.now());
      const reference = rollReference(maturity, "USDTNGN", "buy", 1);
      let rolled: Hedge[] = [];
      for (let i = 0; i < 300 && rolled.length === 0; i++) {
        rolled = (await client.list({ client_reference: reference })).data;
        if (rolled.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(rolled.map((h) => h.status === "failed")).toEqual([false]);
      s.clock.advance(1_000);
      await page.clock.setSystemTime(s.clock.now());
      await page.waitForFunction(
        (ref) => (window as unknown as HarnessWindow).hedgeHarness.logRows().then((rows) => rows.some((r) => r.clientReference === ref)),
        reference,
      );
      const row = (await logRows(page)).find((r) => r.clientReference === reference)!;
      expect([row.batchHash, row.preparedBy, row.approvedBy, row.idempotencyKey]).toEqual([
        hash,
        PREPARER,
        APPROVER,
        rollKey(reference, 0),
      ]);
      expect(await page.locator("#armed-rolls-list").textContent()).not.toMatch(/proposed/);
    } finally {
      await context.close();
    }
  });
});
