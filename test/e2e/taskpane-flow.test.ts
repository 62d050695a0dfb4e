// The real pane page in Chromium against the sandbox over HTTP: connect, overview, read rows, preview, confirm, and the log fills; screenshots, axe, and the key scan.
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import { SETTING_KEYS } from "../../src/feeds/settings-store";
import { describeWithBrowser } from "./browser";
import {
  axeViolations,
  chooseAction,
  connect,
  rowStatuses,
  screenshot,
  select,
  paneWithSandbox,
  logRows as pageLogRows,
  type HarnessWindow,
  waitRowsFinal,
  PREVIEW_DONE,
} from "./pane-driver";

// A real browser, a build and fills that take a moment: slower than unit tests, more so on CI.
jest.setTimeout(90_000);

describeWithBrowser("task pane in Chromium against the sandbox", (chromiumPath) => {
  const world = paneWithSandbox(chromiumPath, { seed: 7, fillMs: 300 });
  const logRows = () => pageLogRows(world.pane.page);

  test("connect with the demo key: masked key, SANDBOX badge, account address and balance, overview drawn", async () => {
    const { page } = world.pane;
    await screenshot(page, "01-not-connected-320");
    await connect(page, DEMO_API_KEY, world.sandbox.baseUrl);
    await expect(page.locator("#connection-status").textContent()).resolves.toContain("svc_test_…0001");
    await expect(page.locator("#env-badge").textContent()).resolves.toMatch(/SANDBOX/);
    await expect(page.locator("#account-address").textContent()).resolves.toBe("0x5a4d0e1b2c3f40516273849a0b1c2d3e4f506172");
    await expect(page.locator("#account-balance").textContent()).resolves.toBe("250,000.00 USDC");
    // The typed key is gone from the field once connected, and the form is folded away.
    await expect(page.locator("#api-key").inputValue()).resolves.toBe("");
    expect(await page.locator("#connection-edit").getAttribute("open")).toBeNull();
    // Overview: figures, the exposure bar, the sparkline with at least one reading, and the market per side.
    await page.waitForSelector("#figures dd");
    await page.waitForSelector("svg.exposure-bar");
    await page.waitForSelector("svg.sparkline[data-points]:not([data-points='0'])");
    await expect(page.locator("#markets-body").textContent()).resolves.toMatch(/USDTNGN[\s\S]*buy[\s\S]*sell/);
    await screenshot(page, "02-connected-overview-320");
    expect(await axeViolations(page)).toEqual([]);
  });

  test("read the selection: problems listed by sheet row with the fix, blank rows skipped", async () => {
    const { page } = world.pane;
    await select(page, "A2:E7");
    await chooseAction(page, "open");
    await page.locator("#read-selection").click();
    await page.waitForSelector("#problems:not([hidden]) li");
    const problems = await page.$$eval("#problems li", (lis) =>
      lis.map((li) => ({ row: (li as HTMLElement).dataset.row, text: li.textContent })),
    );
    expect(problems.map((p) => p.row)).toEqual(expect.arrayContaining(["5", "7"]));
    expect(problems.find((p) => p.row === "5")?.text).toMatch(/1, 3 or 7/);
    await expect(page.locator("#read-summary").textContent()).resolves.toMatch(/3 rows ready .*1 blank row skipped/);
    await screenshot(page, "03-read-problems-320");
  });

  test("preview two opens, confirm once in sandbox, and watch both rows fill in the log", async () => {
    const { page } = world.pane;
    await select(page, "A2:E3");
    await page.locator("#read-selection").click();
    await page.waitForSelector("#preview:not([hidden])");
    await page.locator("#preview").click();
    await page.waitForSelector(PREVIEW_DONE);
    await expect(page.locator("#preview-table tbody tr").count()).resolves.toBe(2);
    await expect(page.locator("#preview-totals").textContent()).resolves.toMatch(/Total notional\s*350,000\.00 USD/);
    await expect(page.locator("#confirm").textContent()).resolves.toBe("Confirm and send 2 rows");
    await screenshot(page, "04-preview-320");
    expect(await axeViolations(page)).toEqual([]);

    await page.locator("#confirm").click();
    await waitRowsFinal(page, 2);
    const statuses = await rowStatuses(page);
    expect(statuses.map((s) => [s.row, s.status])).toEqual([
      ["2", "filled"],
      ["3", "filled"],
    ]);
    await expect(page.locator("#progress-text").textContent()).resolves.toMatch(/2 of 2 final/);
    const log = await logRows();
    expect(log.map((r) => [r.action, r.side, r.notional, r.clientReference, r.status])).toEqual([
      ["open", "buy", 250000, "DEAL-1001", "filled"],
      ["open", "sell", 100000, "DEAL-1002", "filled"],
    ]);
    expect(log.every((r) => r.hedgeId && r.fillTxHash && r.struckRate)).toBe(true);
    await screenshot(page, "05-filled-320");
  });

  test("opening the same row again is flagged as already done, and blocked because the hedge is open", async () => {
    const { page } = world.pane;
    await select(page, "A2:E2");
    await page.locator("#read-selection").click();
    await page.waitForSelector("#preview:not([hidden])");
    await page.locator("#preview").click();
    await page.waitForSelector("#preview-table .duplicate");
    await expect(page.locator("#preview-table .duplicate").textContent()).resolves.toMatch(
      /Already in the log the same day: .*\(filled, key /,
    );
    await expect(page.locator("#preview-table .blocker").textContent()).resolves.toMatch(/already open .*use Add/);
    await page.locator("fluent-checkbox.send-again").click();
    await expect(page.locator("#confirm").getAttribute("disabled")).resolves.not.toBeNull();
    await expect(page.locator("#confirm-note").textContent()).resolves.toMatch(/Nothing to send/);
    await page.locator("#cancel-preview").click();
    await expect(page.locator("#preview-area").isHidden()).resolves.toBe(true);
  });

  const addRow4 = async () => {
    const { page } = world.pane;
    await chooseAction(page, "add");
    await select(page, "A4:E4");
    await page.locator("#read-selection").click();
    await page.waitForSelector("#preview:not([hidden])");
    await page.locator("#preview").click();
    await page.waitForSelector(PREVIEW_DONE);
  };

  test("add to the open buy hedge from row 4", async () => {
    const { page } = world.pane;
    await addRow4();
    await page.locator("#confirm").click();
    await waitRowsFinal(page, 3);
    await expect(page.locator("#send-progress").getAttribute("value")).resolves.toBe("100");
    const log = await logRows();
    expect(log.map((r) => [r.action, r.side, r.notional, r.status])).toContainEqual(["add", "buy", 50000, "filled"]);
  });

  test("the same add again needs its 'Send again' box, then goes once more", async () => {
    const { page } = world.pane;
    await addRow4();
    await expect(page.locator("#preview-table .duplicate").textContent()).resolves.toMatch(
      /Already in the log the same day: .*\(filled, key /,
    );
    await expect(page.locator("#confirm").getAttribute("disabled")).resolves.not.toBeNull();
    await page.locator("fluent-checkbox.send-again").click();
    await expect(page.locator("#confirm").getAttribute("disabled")).resolves.toBeNull();
    await expect(page.locator("#confirm").textContent()).resolves.toBe("Confirm and send 1 row");
    await screenshot(page, "06-duplicate-send-again-320");
    await page.locator("#confirm").click();
    await waitRowsFinal(page, 4);
    const adds = (await logRows()).filter((r) => r.action === "add");
    expect(adds.map((r) => r.status)).toEqual(["filled", "filled"]);
    expect(new Set(adds.map((r) => r.idempotencyKey)).size).toBe(2);
  });

  test("a cell inside an Excel table reads its table row, headers matched by synonyms; Reduce previews the position and margin back", async () => {
    const { page } = world.pane;
    await page.evaluate(() => {
      const h = (window as unknown as HarnessWindow).hedgeHarness;
      h.setSheet("Desk", [
        ["Pair", "Direction", "Amount", "Deal id"],
        ["USDTNGN", "Buy", 100000, "RED-1"],
      ]);
      h.addTable("Reductions", "Desk", "A1:D2");
      h.select("C2", "Desk");
    });
    await chooseAction(page, "reduce");
    await page.locator("#read-selection").click();
    await page.waitForSelector("#preview:not([hidden])");
    await expect(page.locator("#read-summary").textContent()).resolves.toBe("1 row ready from table Reductions.");
    await page.locator("#preview").click();
    await page.waitForSelector(PREVIEW_DONE);
    const cells = await page.locator("#preview-table tbody tr").first().textContent();
    expect(cells).toMatch(/Reduce buy USDTNGN 100,000\.00 USD/);
    expect(cells).toMatch(/Position\s*350,000\.00 USD at/);
    expect(cells).toMatch(/Margin back\s*[\d,]+\.\d\d USDC/);
    await expect(page.locator("#preview-totals").textContent()).resolves.toMatch(/Margin expected back/);
    await screenshot(page, "07-reduce-preview-320");
    await page.locator("#confirm").click();
    await waitRowsFinal(page, 5);
    const log = await logRows();
    expect(log.filter((r) => r.action === "reduce").map((r) => [r.side, r.notional, r.clientReference])).toEqual([
      ["buy", 100000, "RED-1"],
    ]);
  });

  test("Close the sell position from row 3", async () => {
    const { page } = world.pane;
    await chooseAction(page, "close");
    await select(page, "A3:E3");
    await page.locator("#read-selection").click();
    await page.waitForSelector("#preview:not([hidden])");
    await page.locator("#preview").click();
    await page.waitForSelector(PREVIEW_DONE);
    await expect(page.locator("#preview-table tbody tr").first().textContent()).resolves.toMatch(/Close sell USDTNGN whole position/);
    await page.locator("#confirm").click();
    await waitRowsFinal(page, 6);
    const closes = (await logRows()).filter((r) => r.action === "close");
    expect(closes.map((r) => [r.side, r.status])).toEqual([["sell", expect.stringMatching(/^(filled|closed)$/)]]);
    await screenshot(page, "08-after-close-320");
  });

  test("after the session the key is nowhere: not in cells, log, document settings, other settings, console or page", async () => {
    const { page } = world.pane;
    const harness = await page.evaluate(() => {
      const h = (window as unknown as HarnessWindow).hedgeHarness;
      return { everything: h.everything(), settings: h.settings(), documentSettings: h.documentSettings() };
    });
    const hits = (values: string[]) => values.filter((v) => v.includes(DEMO_API_KEY));
    expect(harness.everything.length).toBeGreaterThan(20);
    expect(hits(harness.everything.map((e) => `${e.where} ${e.value}`))).toEqual([]);
    expect(hits(Object.values(harness.documentSettings))).toEqual([]);
    const { [SETTING_KEYS.apiKey]: keyEntry, ...otherSettings } = harness.settings;
    expect(keyEntry).toBe(DEMO_API_KEY);
    expect(hits(Object.entries(otherSettings).flat())).toEqual([]);
    expect(hits(world.pane.console)).toEqual([]);
    expect(world.pane.console.filter((m) => m.startsWith("pageerror") || m.startsWith("error"))).toEqual([]);
    // The page: visible text, every attribute, and every input's value, shadow roots included.
    const pageStrings = await page.evaluate(() => {
      const out: string[] = [document.body.innerText, document.documentElement.outerHTML];
      const visit = (root: Document | ShadowRoot) => {
        for (const el of root.querySelectorAll("*")) {
          if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) out.push(el.value);
          if ("value" in el && typeof (el as { value: unknown }).value === "string") out.push((el as { value: string }).value);
          if (el.shadowRoot) {
            out.push(el.shadowRoot.innerHTML);
            visit(el.shadowRoot);
          }
        }
      };
      visit(document);
      out.push(JSON.stringify(localStorage), JSON.stringify(sessionStorage));
      return out;
    });
    expect(hits(pageStrings)).toEqual([]);
  });
});
