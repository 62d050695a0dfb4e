// A standing roll instruction in the real pane (Chromium, harness mode, sandbox over HTTP; issue 39 item 3): a read-only preparer submits one from the Approvals section, the preparer is offered no Approve, a second (trading) key approves it once and the Hedge Log gets a control row with its hash, then it is revoked and the log says so.
import { publicKeyFingerprint } from "../../src/api/environment";
import { DEMO_API_KEY, DEMO_READ_API_KEY } from "../../src/sandbox/demo";
import { describeWithBrowser } from "./browser";
import { connect, logRows, paneWithSandbox, switchKey } from "./pane-driver";

jest.setTimeout(180_000);

const PREPARER = publicKeyFingerprint(DEMO_READ_API_KEY);
const APPROVER = publicKeyFingerprint(DEMO_API_KEY);
const ITEM = "#instructions-list li[data-instruction]";

describeWithBrowser("standing roll instructions in the task pane", (chromiumPath) => {
  const world = paneWithSandbox(chromiumPath, { seed: 39 });

  test("submitted by a read-only preparer, approved once by a second key (a control row with its hash), revoked (logged)", async () => {
    const { page } = world.pane;
    await connect(page, DEMO_READ_API_KEY, world.sandbox.baseUrl);
    await page.waitForSelector("#approvals-section:not([hidden])");
    // A bad term is refused, naming it; nothing is written.
    await page.locator("#instruction-market input").fill("USDTNGN");
    await page.locator("#instruction-side input").fill("buy");
    await page.locator("#instruction-until input").fill("2099-01-01T00:00:00Z");
    await page.locator("#instruction-max input").fill("100,000");
    await page.locator("#instruction-tenor input").fill("5");
    await page.locator("#instruction-submit").click();
    await page.waitForSelector("#instructions-error:not([hidden])");
    expect(await page.locator("#instructions-error").textContent()).toMatch(
      /Tenors: "5" is not one of the rule's tenors — type the most days, 1, 3 or 7/,
    );
    expect(await page.locator(ITEM).count()).toBe(0);

    await page.locator("#instruction-tenor input").fill("7");
    await page.locator("#instruction-submit").click();
    await page.waitForSelector(`${ITEM}[data-status="pending"]`);
    expect(await page.locator("#instructions-status").textContent()).toMatch(/^Roll instruction RI-\d{8}-[0-9a-f]{12} submitted/);
    expect(await page.locator(`${ITEM} .terms`).textContent()).toMatch(
      new RegExp(
        `^USDTNGN buy until 2099-01-01T00:00:00.000Z, at most 100,000.00 USD per hedge, tenors by the rule up to 7 days: pending .*prepared by ${PREPARER}`,
      ),
    );
    // The preparer's (read-only) key is offered no Approve.
    expect(await page.locator(`${ITEM} .approve`).count()).toBe(0);

    await switchKey(page, DEMO_API_KEY);
    await page.waitForSelector(`${ITEM} .approve`);
    await page.locator(`${ITEM} .approve`).click();
    await page.waitForSelector(`${ITEM}[data-status="approved"]`);
    expect(await page.locator(`${ITEM} .approve`).count()).toBe(0);
    let controls = (await logRows(page)).filter((r) => r.action === "control");
    expect(controls.map((r) => [r.market, r.clientReference, r.preparedBy, r.approvedBy])).toEqual([
      ["Roll instruction", "pending → approved", PREPARER, APPROVER],
    ]);
    const hash = controls[0].batchHash!;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await page.locator(`${ITEM} .terms`).textContent()).toContain(`hash ${hash.slice(0, 12)}`);

    await page.locator(`${ITEM} .revoke`).click();
    await page.waitForSelector(`${ITEM}[data-status="revoked"]`);
    controls = (await logRows(page)).filter((r) => r.action === "control");
    expect(controls.map((r) => [r.clientReference, r.batchHash, r.approvedBy])).toEqual([
      ["pending → approved", hash, APPROVER],
      ["approved → revoked", hash, APPROVER],
    ]);
    expect(controls[1].prevHash).toBe(controls[0].rowHash);
    expect(await page.locator(`${ITEM} .revoke`).count()).toBe(0);
  });
});
