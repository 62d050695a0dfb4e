// Safety in the real pane (Chromium, sandbox over HTTP): a LIVE key needs a second confirmation naming environment, count and total; bad keys and URLs are refused with the code and the fix; Forget key; outside Excel.
import { DEMO_API_KEY, DEMO_LIVE_API_KEY, DEMO_REVOKED_API_KEY } from "../../src/sandbox/demo";
import { SETTING_KEYS } from "../../src/feeds/settings-store";
import type { HedgeHarness } from "../../src/taskpane/harness";
import { describeWithBrowser } from "./browser";
import {
  axeViolations,
  connect,
  liveDialogOpen,
  screenshot,
  select,
  paneWithSandbox,
  logRows,
  waitLiveDialogOpen,
  waitReady,
  waitRowsFinal,
  PREVIEW_DONE,
} from "./pane-driver";
import type { Page } from "playwright-core";

// A real browser, a build and fills that take a moment: slower than unit tests, more so on CI.
jest.setTimeout(90_000);
const harness = <T>(page: Page, f: (h: HedgeHarness) => T | Promise<T>) =>
  page.evaluate(`(${f.toString()})(window.hedgeHarness)`) as Promise<T>;

describeWithBrowser("task pane safety in Chromium", (chromiumPath) => {
  const world = paneWithSandbox(chromiumPath, { seed: 3, fillMs: 200, open: false });

  test("a LIVE key: red badge saying production money, and a second confirmation that can be refused", async () => {
    const { page } = await world.session.open();
    await waitReady(page);
    await connect(page, DEMO_LIVE_API_KEY, world.sandbox.baseUrl);
    await expect(page.locator("#env-badge").textContent()).resolves.toMatch(/LIVE.*production money/);
    expect(await page.evaluate(() => document.body.classList.contains("is-live"))).toBe(true);
    await expect(page.locator("#connection-status").textContent()).resolves.toContain("svc_live_…0001");
    await screenshot(page, "20-live-connected-320");

    await select(page, "A2:E3");
    await page.locator("#read-selection").click();
    await page.locator("#preview").click();
    await page.waitForSelector(PREVIEW_DONE);
    await expect(page.locator("#confirm").textContent()).resolves.toBe("Confirm 2 rows (LIVE)");
    await expect(page.locator("#confirm-note").textContent()).resolves.toMatch(/production money/);

    // First refusal: Cancel (where the keyboard focus lands when the dialog opens).
    await page.locator("#confirm").click();
    await waitLiveDialogOpen(page);
    await page.waitForFunction(() => document.activeElement?.id === "live-cancel");
    const text = await page.locator("#live-dialog-text").textContent();
    expect(text).toMatch(/LIVE environment — production money/);
    expect(text).toContain("2 rows");
    expect(text).toContain("350,000.00 USD");
    await screenshot(page, "21-live-dialog-320", { fullPage: false });
    expect(await axeViolations(page)).toEqual([]);
    await page.locator("#live-cancel").click();
    expect(await liveDialogOpen(page)).toBe(false);
    await expect(page.locator("#confirm-note").textContent()).resolves.toBe("Not sent.");

    // Second refusal: Escape.
    await page.locator("#confirm").click();
    await waitLiveDialogOpen(page);
    await page.keyboard.press("Escape");
    expect(await liveDialogOpen(page)).toBe(false);
    await expect(page.locator("#confirm-note").textContent()).resolves.toBe("Not sent.");

    // Third refusal: a click outside the dialog, on its backdrop.
    await page.locator("#confirm").click();
    await waitLiveDialogOpen(page);
    await page.mouse.click(4, 4);
    await page.waitForFunction(() => document.getElementById("live-dialog")?.shadowRoot?.querySelector("dialog")?.open === false);
    await expect(page.locator("#confirm-note").textContent()).resolves.toBe("Not sent.");
    expect(await logRows(page)).toEqual([]);
    expect(await page.locator("#row-status li").count()).toBe(0);

    // Then the deliberate yes.
    await page.locator("#confirm").click();
    await waitLiveDialogOpen(page);
    await page.locator("#live-send").click();
    await waitRowsFinal(page, 2);
    const log = await logRows(page);
    expect(log.map((r) => [r.environment, r.action, r.side, r.status])).toEqual([
      ["production", "open", "buy", "filled"],
      ["production", "open", "sell", "filled"],
    ]);
    await screenshot(page, "22-live-filled-320");
    await page.context().close();
  });

  test("a revoked key is refused with its code and what to do; nothing is saved and the key is not shown", async () => {
    const { page, console: messages } = await world.session.open();
    await waitReady(page);
    await page.locator("#api-key").fill(DEMO_REVOKED_API_KEY);
    await page.locator("#base-url input").fill(world.sandbox.baseUrl);
    await page.locator("#connect").click();
    await page.waitForSelector("#connection-error:not([hidden])");
    const error = await page.locator("#connection-error").textContent();
    expect(error).toMatch(/^invalid_api_key /);
    expect(error).toMatch(/What to do: The API key was not accepted/);
    expect(error).not.toContain(DEMO_REVOKED_API_KEY);
    expect(await harness(page, (h) => h.settings())).toEqual({});
    await screenshot(page, "23-revoked-key-320");
    expect(await axeViolations(page)).toEqual([]);
    expect(messages.filter((m) => m.includes(DEMO_REVOKED_API_KEY))).toEqual([]);
    // The refused key is still in the password field for correction, but in no attribute of any element (shadow DOM included).
    const attributesWithKey = await page.evaluate((key) => {
      const found: string[] = [];
      const visit = (root: Document | ShadowRoot) => {
        for (const el of Array.from(root.querySelectorAll("*"))) {
          for (const a of Array.from(el.attributes)) if (a.value.includes(key)) found.push(`${el.tagName}[${a.name}]`);
          if (el.shadowRoot) visit(el.shadowRoot);
        }
      };
      visit(document);
      return found;
    }, DEMO_REVOKED_API_KEY);
    expect(attributesWithKey).toEqual([]);
    await expect(page.locator("#api-key").inputValue()).resolves.toBe(DEMO_REVOKED_API_KEY);
    await page.context().close();
  });

  test("plain http to a non-local host and a key without a known prefix are refused before anything is sent", async () => {
    const { page } = await world.session.open();
    await waitReady(page);
    await page.locator("#api-key").fill(DEMO_API_KEY);
    await page.locator("#base-url input").fill("http://hedging.example.com/v2");
    await page.locator("#connect").click();
    await page.waitForSelector("#connection-error:not([hidden])");
    await expect(page.locator("#connection-error").textContent()).resolves.toMatch(/validation_error .*https/);

    await page.locator("#api-key").fill("sk_wrong_prefix_123456789");
    await page.locator("#base-url input").fill(world.sandbox.baseUrl);
    await page.locator("#connect").click();
    await page.waitForFunction(() => /svc_live_|svc_test_/.test(document.getElementById("connection-error")?.textContent ?? ""));
    await expect(page.locator("#connection-error").textContent()).resolves.not.toContain("sk_wrong_prefix_123456789");
    expect(await harness(page, (h) => h.settings())).toEqual({});
    await page.context().close();
  });

  test("Forget key removes the saved key and closes the account and trade panels", async () => {
    const { page } = await world.session.open();
    await waitReady(page);
    await connect(page, DEMO_API_KEY, world.sandbox.baseUrl);
    expect(Object.keys(await harness(page, (h) => h.settings()))).toContain(SETTING_KEYS.apiKey);
    await page.locator("#forget").click();
    await page.waitForFunction(() => /Not connected/.test(document.getElementById("connection-status")?.textContent ?? ""));
    const settings = await harness(page, (h) => h.settings());
    expect(settings[SETTING_KEYS.apiKey]).toBeUndefined();
    expect(settings[SETTING_KEYS.baseUrl]).toBe(world.sandbox.baseUrl);
    expect(await page.locator("#overview-section").isHidden()).toBe(true);
    expect(await page.locator("#trade-section").isHidden()).toBe(true);
    expect(await page.locator("#env-badge-row").isHidden()).toBe(true);
    expect(await page.locator("#connection-edit").getAttribute("open")).not.toBeNull();
    expect(await page.locator("#forget").isHidden()).toBe(true);
    await page.context().close();
  });

  test("outside Excel without the harness flag, the page says to open it from Excel", async () => {
    const { page } = await world.session.open({ query: "" });
    await page.waitForSelector("#outside-office:not([hidden])");
    await expect(page.locator("#outside-office").textContent()).resolves.toMatch(/Open this page from Excel/);
    expect(await page.locator("#app").isHidden()).toBe(true);
    await page.context().close();
  });
});
