// Keyboard-only use of the pane in Chromium (dark theme): connect, choose the action, read, preview, send again, confirm, all with Tab, arrows, Enter and Space.
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import { describeWithBrowser } from "./browser";
import { axeViolations, logRows, paneWithSandbox, screenshot, select, tabTo, waitRowsFinal, PREVIEW_DONE } from "./pane-driver";

// A real browser, a build and fills that take a moment: slower than unit tests, more so on CI.
jest.setTimeout(90_000);

describeWithBrowser("task pane with the keyboard only", (chromiumPath) => {
  const world = paneWithSandbox(chromiumPath, { seed: 11, open: { query: "harness=memory&theme=dark" } });

  test("connect, open two rows, then add to one, without the mouse", async () => {
    const { page } = world.pane;
    const kb = page.keyboard;

    await tabTo(page, "#api-key");
    await kb.type(DEMO_API_KEY);
    await tabTo(page, "#base-url");
    await kb.press("Control+A");
    await kb.type(world.sandbox.baseUrl);
    await kb.press("Enter");
    await page.waitForFunction(() => /Connected with key/.test(document.getElementById("connection-status")?.textContent ?? ""));
    await page.waitForSelector("#figures dd");
    await screenshot(page, "10-keyboard-dark-connected-320");
    expect(await axeViolations(page)).toEqual([]);

    // Open (the default action) on rows 2 and 3.
    await select(page, "A2:E3");
    await tabTo(page, "#read-selection");
    await kb.press("Enter");
    await page.waitForSelector("#preview:not([hidden])");
    // After reading, focus moves to Preview.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("preview");
    await kb.press("Enter");
    await page.waitForSelector(PREVIEW_DONE);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("confirm");
    await kb.press("Space");
    await waitRowsFinal(page, 2);

    // Add on row 4: arrow keys move within the action group.
    await select(page, "A4:E4");
    await page.evaluate(() => window.scrollTo(0, 0));
    // The group is one Tab stop (Fluent's focusgroup): Tab lands on the checked radio.
    await tabTo(page, "#action fluent-radio");
    expect(await page.evaluate(() => (document.activeElement as HTMLElement & { value: string }).value)).toBe("open");
    await kb.press("ArrowRight");
    expect(await page.evaluate(() => (document.getElementById("action") as HTMLElement & { value: string }).value)).toBe("add");
    await tabTo(page, "#read-selection");
    await kb.press("Enter");
    await page.waitForSelector("#preview:not([hidden])");
    await kb.press("Enter");
    await page.waitForSelector(PREVIEW_DONE);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("confirm");
    await kb.press("Enter");
    await waitRowsFinal(page, 3);

    // The same add again: the "Send again" box is reached with Tab and ticked with Space.
    await tabTo(page, "#read-selection");
    await kb.press("Enter");
    await page.waitForSelector("#preview:not([hidden])");
    await kb.press("Enter");
    await page.waitForSelector("#preview-table .duplicate");
    expect(await page.locator("#confirm").getAttribute("disabled")).not.toBeNull();
    // With Confirm disabled, focus waits on the "Send again" box.
    await tabTo(page, "fluent-checkbox.send-again");
    await kb.press("Space");
    await tabTo(page, "#confirm");
    await kb.press("Enter");
    await waitRowsFinal(page, 4);
    await screenshot(page, "11-keyboard-dark-done-320");

    const log = await logRows(page);
    expect(log.map((r) => [r.action, r.side, r.status])).toEqual([
      ["open", "buy", "filled"],
      ["open", "sell", "filled"],
      ["add", "buy", "filled"],
      ["add", "buy", "filled"],
    ]);
  }, 120_000);
});
