// Four-eyes approval in the real pane (Chromium, harness mode, sandbox over HTTP): a read-only preparer submits, the same key cannot approve, an edited row blocks approval, a second (trading) key approves, the batch executes once and the log names both keys and the batch hash; the workbook's "LIVE trades need approval" refuses direct LIVE sends; against a workbook editor: a block rewritten with its hash recomputed after Check sends nothing, two saved copies approved by two trading keys on two computers execute once, a rejected batch typed back to pending is refused.
import path from "path";
import type { Page } from "playwright-core";
import { publicKeyFingerprint } from "../../src/api/environment";
import { LIVE_NEEDS_APPROVAL_SETTING } from "../../src/excel/document-settings";
import { DEMO_API_KEY, DEMO_APPROVER_API_KEY, DEMO_LIVE_API_KEY, DEMO_READ_API_KEY } from "../../src/sandbox/demo";
import { blockLines } from "../../src/trading/approvals/block";
import { parseApprovals, nonBlankLines } from "../../src/trading/approvals/block-read";
import { batchHash } from "../../src/trading/approvals/batch-hash";
import type { CellValue } from "../../src/trading/cells";
import { describeWithBrowser } from "./browser";
import {
  ARTIFACTS,
  axeViolations,
  connect,
  type HarnessWindow,
  logRows,
  paneWithSandbox,
  PREVIEW_DONE,
  screenshot,
  select,
  waitReady,
} from "./pane-driver";

jest.setTimeout(180_000);

const PREPARER = publicKeyFingerprint(DEMO_READ_API_KEY);
const APPROVER = publicKeyFingerprint(DEMO_API_KEY);
const BATCH = "#approvals-pending li[data-batch]";

const harness = (page: Page) => ({
  cells: (sheet: string) => page.evaluate((s) => (window as unknown as HarnessWindow).hedgeHarness.cells(s), sheet),
  setSheet: (name: string, grid: CellValue[][]) =>
    page.evaluate(([n, g]) => (window as unknown as HarnessWindow).hedgeHarness.setSheet(n, g), [name, grid] as const),
  documentSettings: () => page.evaluate(() => (window as unknown as HarnessWindow).hedgeHarness.documentSettings()),
});

/** Opens the connection form (folded once connected), types another key and connects; waits until the pane uses it and can trade. */
async function switchKey(page: Page, apiKey: string): Promise<void> {
  if ((await page.locator("#connection-edit").getAttribute("open")) === null) await page.locator("#connection-edit > summary").click();
  await page.locator("#api-key").fill(apiKey);
  await page.locator("#connect").click();
  await page.waitForFunction((fp) => document.getElementById("key-fingerprint")?.textContent === fp, publicKeyFingerprint(apiKey));
  await page.waitForSelector("#read-selection:not([disabled])");
}

/** Reads A2:E3 of the harness's exposure sheet (two Open rows) and previews them. */
async function readAndPreview(page: Page): Promise<void> {
  await select(page, "A2:E3");
  await page.locator("#read-selection").click();
  await page.locator("#preview").click();
  await page.waitForSelector(PREVIEW_DONE);
}

/** Refreshes the list and checks the one batch with the key in use (the sheet re-read): the refusal, or "as prepared". */
async function checkBatch(page: Page): Promise<{ refusal: string | null; rows: string[]; approveDisabled: boolean }> {
  await page.locator("#approvals-refresh").click();
  await page.waitForSelector("#approvals-refresh:not([disabled])");
  // Refresh checks the batch checked before again; a batch not checked yet has its Check button.
  if (await page.locator(`${BATCH} .check`).count()) await page.locator(`${BATCH} .check`).click();
  await page.waitForSelector(`${BATCH} .refusal, ${BATCH} .match`);
  const refusal = (await page.locator(`${BATCH} .refusal`).count()) ? await page.locator(`${BATCH} .refusal`).textContent() : null;
  return {
    refusal,
    rows: await page.locator(`${BATCH} ol.batch-rows li`).allTextContents(),
    approveDisabled: (await page.locator(`${BATCH} .approve`).getAttribute("disabled")) !== null,
  };
}

/** The Approvals sheet with the first row's amount (row lines follow the block's two title lines and its header line) set to `amount`. */
async function setFirstAmount(page: Page, amount: number): Promise<void> {
  const wb = harness(page);
  const grid = await wb.cells("Approvals");
  const first = grid.findIndex((line) => line[0] === "open");
  expect(first).toBeGreaterThan(0);
  grid[first][3] = amount;
  await wb.setSheet("Approvals", grid);
}

/** The hedges the sandbox account holds, by client reference. */
async function hedgeReferences(baseUrl: string): Promise<string[]> {
  const res = await fetch(`${baseUrl}/hedges?limit=500`, { headers: { Authorization: `Bearer ${DEMO_API_KEY}` } });
  const body = (await res.json()) as { data: Array<{ client_reference: string }> };
  return body.data.map((h) => h.client_reference).sort();
}

describeWithBrowser("four-eyes approval in the task pane", (chromiumPath) => {
  const world = paneWithSandbox(chromiumPath, { seed: 24 });

  test("a read-only preparer submits; the same key cannot approve; an edit blocks; a trading key approves; executed once, logged with both keys", async () => {
    const { page } = world.pane;
    const baseUrl = world.sandbox.baseUrl;
    await connect(page, DEMO_READ_API_KEY, baseUrl);
    expect(await page.locator("#key-access").textContent()).toBe("read only: you can prepare, not trade");
    expect(await page.locator("#key-fingerprint").textContent()).toBe(PREPARER);

    // The preparer previews with a read-only key: direct sending is refused and says why; Submit for approval is offered.
    await readAndPreview(page);
    expect(await page.locator("#confirm").getAttribute("disabled")).not.toBeNull();
    expect(await page.locator("#confirm-note").textContent()).toMatch(
      /read only: you can prepare, not trade\. Submit for approval instead/,
    );
    await page.locator("#submit-approval").click();
    await page.waitForFunction(() => /^Submitted for approval/.test(document.getElementById("confirm-note")?.textContent ?? ""));
    await page.waitForSelector(BATCH);
    const hash = (await page.locator(`${BATCH} .batch-hash`).getAttribute("title")) ?? "";
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await page.locator(`${BATCH} .prepared`).textContent()).toMatch(new RegExp(`^Prepared by ${PREPARER} at `));
    expect(await hedgeReferences(baseUrl)).toEqual([]);

    // The same key cannot approve, and is told why.
    const same = await checkBatch(page);
    expect(same.refusal).toMatch(/The key that prepared a batch cannot approve it/);
    expect(same.approveDisabled).toBe(true);

    // A second key, with the trade scope: an amount edited on the Approvals sheet blocks approval, the row marked in place.
    await switchKey(page, DEMO_API_KEY);
    expect(await page.locator("#key-access").textContent()).toBe("can trade and approve");
    await setFirstAmount(page, 260_000);
    const edited = await checkBatch(page);
    expect(edited.refusal).toMatch(/edited since preparation: row 1 \(sheet row \d+\): Notional changed/);
    expect(edited.rows[0]).toMatch(/— Notional changed$/);
    expect(edited.approveDisabled).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, "pane-approvals-320");
    // The guide's picture (src/taskpane/README.md, copied to assets/docs/): the Approvals section alone.
    await page
      .locator("#approvals-section")
      .screenshot({ path: path.join(ARTIFACTS, "pane-approvals-section-320.png"), animations: "disabled" });

    // The edit undone, the rows are as prepared again: the trading key approves and the batch is sent, its rows filling in under it.
    await setFirstAmount(page, 250_000);
    const clean = await checkBatch(page);
    expect([clean.refusal, clean.approveDisabled]).toEqual([null, false]);
    await page.locator(`${BATCH} .approve`).click();
    await page.waitForSelector('#approvals-decided li[data-status="executed"]');
    await page.waitForFunction(() => {
      const lis = [...document.querySelectorAll("ol.batch-status li")] as HTMLElement[];
      return lis.length === 2 && lis.every((li) => li.dataset.status === "filled");
    });
    expect(await page.locator('#approvals-decided li[data-status="executed"] .decided').textContent()).toMatch(
      new RegExp(`^Approved by ${APPROVER} at `),
    );
    // Executed once: it is no longer offered for approval, and the account holds one hedge per row.
    expect(await page.locator(BATCH).count()).toBe(0);
    expect(await page.locator('#approvals-decided li[data-status="executed"] .check').count()).toBe(0);
    expect(await hedgeReferences(baseUrl)).toEqual(["DEAL-1001", "DEAL-1002"]);
    expect(await axeViolations(page, "#approvals-section")).toEqual([]);

    // The Hedge Log names the batch hash and both keys' fingerprints on each row, and never a key.
    const log = await logRows(page);
    expect(log.map((r) => [r.clientReference, r.status, r.batchHash, r.preparedBy, r.approvedBy])).toEqual([
      ["DEAL-1001", "filled", hash, PREPARER, APPROVER],
      ["DEAL-1002", "filled", hash, PREPARER, APPROVER],
    ]);
    const everything = await page.evaluate(() => (window as unknown as HarnessWindow).hedgeHarness.everything());
    expect(everything.filter((c) => c.value.includes(DEMO_API_KEY) || c.value.includes(DEMO_READ_API_KEY))).toEqual([]);
  });

  test("against a workbook editor: a rewritten block sends nothing; two copies approved by two keys on two computers execute once; a rejection typed back is refused", async () => {
    const { page } = world.pane;
    const baseUrl = world.sandbox.baseUrl;
    const wb = harness(page);
    const selectOn = (p: Page, address: string, sheet: string) =>
      p.evaluate(([a, sh]) => (window as unknown as HarnessWindow).hedgeHarness.select(a, sh), [address, sheet] as const);
    const buyNotional = async () => {
      const res = await fetch(`${baseUrl}/hedges?limit=500&status=filled`, { headers: { Authorization: `Bearer ${DEMO_API_KEY}` } });
      const body = (await res.json()) as { data: Array<{ side: string; market: string; notional_usd: number }> };
      return body.data.filter((h) => h.side === "buy" && h.market === "USDTNGN").map((h) => h.notional_usd);
    };
    /** The preparer (read-only key) submits one Add of 40,000 on the buy hedge test 1 opened; the Approvals sheet's grid after. */
    const prepare = async (reference: string) => {
      await switchKey(page, DEMO_READ_API_KEY);
      await wb.setSheet("Batch", [
        ["Action", "Market", "Side", "Notional USD", "Tenor", "Client reference"],
        ["Add", "USDTNGN", "buy", 40_000, null, reference],
      ]);
      await selectOn(page, "A2:F2", "Batch");
      await page.locator("#read-selection").click();
      await page.locator("#preview").click();
      await page.waitForSelector(PREVIEW_DONE);
      await page.locator("#submit-approval").click();
      await page.waitForFunction(() => /^Submitted for approval/.test(document.getElementById("confirm-note")?.textContent ?? ""));
      await switchKey(page, DEMO_API_KEY);
      await page.waitForSelector(BATCH);
    };
    const before = await buyNotional();
    expect(before).toHaveLength(1);

    // 1. Checked as prepared; then a co-author rewrites the block (side swapped, digests and hash recomputed): Approve sends nothing.
    await prepare("ADD-EDITOR");
    const prepared = await wb.cells("Approvals");
    const shown = await checkBatch(page);
    expect(shown.refusal).toBeNull();
    expect(shown.rows).toEqual(["Add buy USDTNGN 40,000.00 USD, client reference ADD-EDITOR"]);
    const block = parseApprovals(nonBlankLines(prepared, 0)).at(-1)!; // the newest block (test 1's is above it)
    const forgedRows = block.batch.rows.map((r) => ({ ...r, side: "sell" as const }));
    const forged = blockLines({ ...block.batch, hash: batchHash(forgedRows), rows: forgedRows });
    const top = prepared.map((line) => line[0]).lastIndexOf("Batch id");
    await wb.setSheet("Approvals", [...prepared.slice(0, top), ...forged, ...prepared.slice(top + forged.length)]);
    await page.locator(`${BATCH} .approve`).click();
    await page.waitForFunction(() =>
      /changed on the sheet since you checked it/.test(document.getElementById("approvals-error")?.textContent ?? ""),
    );
    expect(await page.locator("#approvals-error").textContent()).toMatch(
      /changed on the sheet since you checked it: row 1: Side changed; Batch hash [0-9a-f]{12}… when checked, [0-9a-f]{12}… now\. Nothing was sent/,
    );
    expect((await wb.cells("Approvals"))[top + 1][1]).toBe("pending");
    expect(await buyNotional()).toEqual(before);

    // 2. The block as prepared again, saved in a copy; this computer approves and sends it: +40,000 once.
    await wb.setSheet("Approvals", prepared);
    const copy = await wb.cells("Approvals");
    await checkBatch(page);
    await page.locator(`${BATCH} .approve`).click();
    await page.waitForSelector('#approvals-decided li[data-status="executed"]');
    await page.waitForFunction(() =>
      [...document.querySelectorAll("ol.batch-status li")].some((li) => (li as HTMLElement).dataset.status === "filled"),
    );
    expect(await buyNotional()).toEqual([before[0] + 40_000]);

    // Another computer opens the copy saved before the approval (still pending) and approves it with a second trading key.
    const other = await world.session.open();
    await waitReady(other.page);
    await connect(other.page, DEMO_APPROVER_API_KEY, baseUrl);
    await harness(other.page).setSheet("Approvals", copy);
    const second = await checkBatch(other.page);
    expect(second.refusal).toBeNull();
    await other.page.locator(`${BATCH} .approve`).click();
    await other.page.waitForSelector('#approvals-decided li[data-status="executed"], #approvals-error:not(:empty)');
    // The service's idempotency (per account) and the question before sending: executed once, whoever approved it and where.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await buyNotional()).toEqual([before[0] + 40_000]);
    await other.context.close();

    // 3. A batch rejected on this computer, its Status typed back to pending: refused with the reason, Approve disabled.
    await prepare("ADD-REJECTED");
    await page.locator(`${BATCH} .check`).click();
    await page.locator(`${BATCH} .reject`).click();
    await page.locator(`${BATCH} .reject-reason input`).fill("not this week");
    await page.locator(`${BATCH} .reject-confirm`).click();
    await page.waitForSelector('#approvals-decided li[data-status="rejected"]');
    const decided = await wb.cells("Approvals");
    const grid = decided.map((line) => [...line]);
    const header = grid.findIndex((line, i) => i > 0 && grid[i - 1][0] === "Batch id" && line[1] === "rejected");
    grid[header] = grid[header].map((v, c) => (c === 1 ? "pending" : c >= 6 ? "" : v));
    await wb.setSheet("Approvals", grid);
    const typedBack = await checkBatch(page);
    expect(typedBack.refusal).toMatch(
      /was rejected by fp-[0-9a-f]{16} at .* \(this computer's record\), but its Status cell now reads "pending": a status typed back is refused/,
    );
    expect(typedBack.approveDisabled).toBe(true);
    expect(await buyNotional()).toEqual([before[0] + 40_000]);
    await wb.setSheet("Approvals", decided); // as decided again, for the next test
  });

  test("the workbook's 'LIVE trades need approval' refuses a direct LIVE send and offers Submit for approval; off again, Confirm (LIVE) is back; a batch rejected with its reason", async () => {
    const { page } = world.pane;
    await switchKey(page, DEMO_LIVE_API_KEY);
    await page.locator("#live-needs-approval").click();
    await page.waitForFunction(() =>
      /LIVE trades need approval in this workbook/.test(document.getElementById("approvals-status")?.textContent ?? ""),
    );
    expect((await harness(page).documentSettings())[LIVE_NEEDS_APPROVAL_SETTING]).toBe("true");

    await readAndPreview(page);
    expect(await page.locator("#confirm").getAttribute("disabled")).not.toBeNull();
    expect(await page.locator("#confirm-note").textContent()).toMatch(/“LIVE trades need approval” is on/);
    expect(await page.locator("#submit-approval").getAttribute("disabled")).toBeNull();

    await page.locator("#live-needs-approval").click();
    await page.waitForFunction(() => document.getElementById("confirm")?.hasAttribute("disabled") === false);
    expect(await page.locator("#confirm").textContent()).toBe("Confirm 2 rows (LIVE)");
    expect((await harness(page).documentSettings())[LIVE_NEEDS_APPROVAL_SETTING]).toBe("false");

    // A LIVE preparer's batch, rejected: the reason is required, then shown with the decision.
    await page.locator("#submit-approval").click();
    await page.waitForSelector(BATCH);
    await page.locator(`${BATCH} .check`).click();
    await page.locator(`${BATCH} .reject`).click();
    await page.locator(`${BATCH} .reject-confirm`).click();
    await page.waitForSelector(`${BATCH} .reject-form .refusal`);
    expect(await page.locator(`${BATCH} .reject-form .refusal`).textContent()).toMatch(/^Reason: /);
    await page.locator(`${BATCH} .reject-reason input`).fill("tenor should be 3 days");
    await page.locator(`${BATCH} .reject-confirm`).click();
    await page.waitForSelector('#approvals-decided li[data-status="rejected"]');
    expect(await page.locator(BATCH).count()).toBe(0);
    // The newest decided first (the editor test's rejection is below it).
    expect(await page.locator('#approvals-decided li[data-status="rejected"] .decided').first().textContent()).toMatch(
      new RegExp(`^Rejected by ${publicKeyFingerprint(DEMO_LIVE_API_KEY)} at .*: tenor should be 3 days$`),
    );
  });
});
