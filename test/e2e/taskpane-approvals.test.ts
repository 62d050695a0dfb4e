// Four-eyes approval in the real pane (Chromium, harness mode, sandbox over HTTP): a read-only preparer submits, the same key cannot approve, an edited row blocks approval, a second (trading) key approves, the batch executes once and the log names both keys and the batch hash; the workbook's "LIVE trades need approval" refuses direct LIVE sends; against a workbook editor: a block rewritten with its hash recomputed after Check sends nothing, two saved copies approved by two trading keys on two computers execute once, a rejected batch typed back to pending is refused; issue 40: a block rewritten before Check is shown as read and, rewritten again after Check, sends nothing; a batch left approved is held to its approved hash; a test-environment batch is refused to a LIVE key; a roll's stale copy 25 sandbox hours later is refused as expired.
import path from "path";
import type { Page } from "playwright-core";
import { publicKeyFingerprint } from "../../src/api/environment";
import { LIVE_NEEDS_APPROVAL_SETTING } from "../../src/excel/document-settings";
import { HedgingClient } from "../../src/api/client";
import { DEMO_API_KEY, DEMO_APPROVER_API_KEY, DEMO_LIVE_API_KEY, DEMO_READ_API_KEY } from "../../src/sandbox/demo";
import { bindingOf, blockLines } from "../../src/trading/approvals/block";
import { parseApprovals, nonBlankLines } from "../../src/trading/approvals/block-read";
import { batchHash } from "../../src/trading/approvals/batch-hash";
import type { ApprovalBatch } from "../../src/trading/approvals/block";
import type { CellValue } from "../../src/trading/cells";
import type { TradeRow } from "../../src/trading/types";
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

/** The read-only preparer submits `rows` (Action … Client reference) from a "Batch" sheet; the pane goes back to `approverKey`. */
async function prepareRows(page: Page, rows: CellValue[][], approverKey = DEMO_API_KEY): Promise<void> {
  await switchKey(page, DEMO_READ_API_KEY);
  await harness(page).setSheet("Batch", [["Action", "Market", "Side", "Notional USD", "Tenor", "Client reference"], ...rows]);
  await page.evaluate((a) => (window as unknown as HarnessWindow).hedgeHarness.select(a, "Batch"), `A2:F${rows.length + 1}`);
  await page.locator("#read-selection").click();
  await page.locator("#preview").click();
  await page.waitForSelector(PREVIEW_DONE);
  if ((await page.locator("#submit-approval").getAttribute("disabled")) !== null)
    throw new Error(`Submit for approval is disabled: ${await page.locator("#confirm-note").textContent()}`);
  await page.locator("#submit-approval").click();
  await page.waitForFunction(() =>
    /^(Submitted for approval|Not submitted)/.test(document.getElementById("confirm-note")?.textContent ?? ""),
  );
  expect(await page.locator("#confirm-note").textContent()).toMatch(/^Submitted for approval/);
  await switchKey(page, approverKey);
  await page.waitForSelector(BATCH);
}

/** Waits (up to 10 s) until the side's filled notionals read `expected` (a fill lands a moment after the send). */
async function sideReads(baseUrl: string, side: "buy" | "sell", expected: number[]): Promise<void> {
  for (let i = 0; i < 100 && JSON.stringify(await sideNotionals(baseUrl, side)) !== JSON.stringify(expected); i++)
    await new Promise((r) => setTimeout(r, 100));
  expect(await sideNotionals(baseUrl, side)).toEqual(expected);
}

/**
 * A co-author's rewrite of the newest block on the Approvals sheet (anyone can): its rows changed by `change`, their digests
 * and the batch hash recomputed (bound as the preparer's), the rest of the block (status, decision) as given. Returns the hash.
 */
async function rewriteNewest(page: Page, change: (rows: TradeRow[]) => TradeRow[], over: Partial<ApprovalBatch> = {}): Promise<string> {
  const grid = await harness(page).cells("Approvals");
  const block = parseApprovals(nonBlankLines(grid, 0)).at(-1)!;
  const rows = change(block.batch.rows);
  const batch = { ...block.batch, ...over };
  const hash = batchHash(rows, bindingOf(batch));
  const lines = blockLines({ ...batch, hash, rows });
  const top = block.titlesRow - 1;
  await harness(page).setSheet("Approvals", [...grid.slice(0, top), ...lines, ...grid.slice(top + lines.length)]);
  return hash;
}

/** The account's filled hedges of a USDTNGN side, their notionals. */
async function sideNotionals(baseUrl: string, side: "buy" | "sell"): Promise<number[]> {
  const res = await fetch(`${baseUrl}/hedges?limit=500&status=filled`, { headers: { Authorization: `Bearer ${DEMO_API_KEY}` } });
  const body = (await res.json()) as { data: Array<{ side: string; market: string; notional_usd: number }> };
  return body.data.filter((h) => h.side === side && h.market === "USDTNGN").map((h) => h.notional_usd);
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
    const forged = blockLines({ ...block.batch, hash: batchHash(forgedRows, bindingOf(block.batch)), rows: forgedRows });
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
    // Issue 40: each change is a control row of the Hedge Log, chained like any row, naming the key's fingerprint.
    const controls = (await logRows(page)).filter((r) => r.action === "control");
    expect(controls.slice(-2).map((r) => [r.market, r.clientReference, r.status, r.approvedBy])).toEqual([
      ["LIVE trades need approval", "off → on", "recorded", publicKeyFingerprint(DEMO_LIVE_API_KEY)],
      ["LIVE trades need approval", "on → off", "recorded", publicKeyFingerprint(DEMO_LIVE_API_KEY)],
    ]);
    expect(controls.slice(-1)[0].prevHash).toBe(controls.slice(-2)[0].rowHash);
    expect(controls.every((r) => !!r.finalHash)).toBe(true);

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
  test("what is listed is what is checked and approved (issue 40): a block rewritten before Check is shown as read; rewritten again after Check, Approve sends nothing; approved, only the rows Check showed are sent", async () => {
    const { page } = world.pane;
    const baseUrl = world.sandbox.baseUrl;
    await prepareRows(page, [["Add", "USDTNGN", "buy", 40_000, null, "LISTED-1"]]);
    const before = await sideNotionals(baseUrl, "buy");
    expect(await page.locator(`${BATCH} ol.batch-rows li`).allTextContents()).toEqual([
      "Add buy USDTNGN 40,000.00 USD, client reference LISTED-1",
    ]);

    // Rewritten after the pane listed it, before Check (hash recomputed): Check shows the rows and hash it read, not the listed ones.
    const first = await rewriteNewest(page, (rows) => rows.map((r) => ({ ...r, notional: 45_000 })));
    await page.locator(`${BATCH} .check`).click();
    await page.waitForSelector(`${BATCH} .refusal, ${BATCH} .match`);
    expect(await page.locator(`${BATCH} ol.batch-rows li`).allTextContents()).toEqual([
      "Add buy USDTNGN 45,000.00 USD, client reference LISTED-1",
    ]);
    expect(await page.locator(`${BATCH} .batch-hash`).getAttribute("title")).toBe(first);
    const checked = await harness(page).cells("Approvals");

    // Rewritten again after Check: Approve is refused, names the change, and nothing is sent.
    await rewriteNewest(page, (rows) => rows.map((r) => ({ ...r, notional: 50_000 })));
    await page.locator(`${BATCH} .approve`).click();
    await page.waitForFunction(() =>
      /changed on the sheet since you checked it/.test(document.getElementById("approvals-error")?.textContent ?? ""),
    );
    expect(await page.locator("#approvals-error").textContent()).toMatch(
      new RegExp(`row 1: Notional changed; Batch hash ${first.slice(0, 12)}… when checked, [0-9a-f]{12}… now\\. Nothing was sent`),
    );
    expect(await sideNotionals(baseUrl, "buy")).toEqual(before);

    // The block as checked again: approved, exactly the 45,000 Check showed is sent.
    await harness(page).setSheet("Approvals", checked);
    const again = await checkBatch(page);
    expect([again.refusal, again.rows]).toEqual([null, ["Add buy USDTNGN 45,000.00 USD, client reference LISTED-1"]]);
    await page.locator(`${BATCH} .approve`).click();
    await page.waitForSelector(`#approvals-decided li[data-status="executed"][data-batch]`);
    await page.waitForFunction(() => document.querySelectorAll("#approvals-pending li[data-batch]").length === 0);
    // Its row final in the pane (the side free again for the next batch), and on the service.
    await page.waitForFunction(() =>
      [...document.querySelectorAll("ol.batch-status li")].some((li) => (li as HTMLElement).dataset.status === "filled"),
    );
    await sideReads(baseUrl, "buy", [before[0] + 45_000]);
  });

  test("a batch left approved, not all sent, its Reduce rewritten from 30,000 to 90,000 (hash recomputed): 'approve again' is refused, nothing sent (issue 40)", async () => {
    const { page } = world.pane;
    const baseUrl = world.sandbox.baseUrl;
    const held = await sideNotionals(baseUrl, "buy");
    await prepareRows(page, [["Reduce", "USDTNGN", "buy", 30_000, null, "TRIM-HELD"]]);
    // The side moves after preparation: the approval sends nothing (the side is not as prepared) and the batch stays approved.
    const client = new HedgingClient({ apiKey: DEMO_API_KEY, baseUrl });
    await client.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 5_000 });
    await sideReads(baseUrl, "buy", [held[0] + 5_000]);
    const shown = await checkBatch(page);
    expect(shown.refusal).toBeNull();
    await page.locator(`${BATCH} .approve`).click();
    await page.waitForSelector(`${BATCH}[data-status="approved"]`);
    expect(await sideNotionals(baseUrl, "buy")).toEqual([held[0] + 5_000]);

    await rewriteNewest(page, (rows) => rows.map((r) => ({ ...r, notional: 90_000 })));
    const finishing = await checkBatch(page);
    expect(finishing.refusal).toMatch(
      /was approved on batch hash [0-9a-f]{12}…, and its block now reads [0-9a-f]{12}…: the block was rewritten after the approval/,
    );
    expect(finishing.approveDisabled).toBe(true);
    expect(await sideNotionals(baseUrl, "buy")).toEqual([held[0] + 5_000]);
    // Out of the way of the next tests: the block removed from the sheet.
    const grid = await harness(page).cells("Approvals");
    const top = grid.map((line) => line[0]).lastIndexOf("Batch id");
    await harness(page).setSheet("Approvals", grid.slice(0, top));
  });

  test("a test-environment batch cannot be approved by a LIVE key (issue 40): refused at Check, Approve disabled", async () => {
    const { page } = world.pane;
    await prepareRows(page, [["Add", "USDTNGN", "buy", 10_000, null, "BOUND-E2E"]], DEMO_LIVE_API_KEY);
    const live = await checkBatch(page);
    expect(live.refusal).toMatch(
      /was prepared in sandbox \(test\), and this key is a production \(LIVE\) key: a batch is approved only in the environment it was prepared in/,
    );
    expect(live.approveDisabled).toBe(true);
    // Withdrawn by its preparer, out of the way of the next test.
    await switchKey(page, DEMO_READ_API_KEY);
    await page.locator(`${BATCH} .check`).click();
    await page.locator(`${BATCH} .reject`).click();
    await page.locator(`${BATCH} .reject-reason input`).fill("withdrawn");
    await page.locator(`${BATCH} .reject-confirm`).click();
    await page.waitForFunction(() => document.querySelectorAll("#approvals-pending li[data-batch]").length === 0);
    await switchKey(page, DEMO_API_KEY);
  });

  test("a roll's stale copy approved 25 sandbox hours later on another computer sends nothing and says 'prepare it again' (issue 40)", async () => {
    const { page } = world.pane;
    const baseUrl = world.sandbox.baseUrl;
    const s = world.sandbox;
    const client = new HedgingClient({ apiKey: DEMO_API_KEY, baseUrl });
    // The side the roll closes: the sell hedge an earlier test left, else one opened now.
    if ((await sideNotionals(baseUrl, "sell")).length === 0) {
      await client.open({ market: "USDTNGN", side: "sell", notional_usd: 100_000, tenor_days: 7 });
      for (let i = 0; i < 50 && (await sideNotionals(baseUrl, "sell")).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    }
    await prepareRows(page, [
      ["Close", "USDTNGN", "sell", null, null, "ROLL-CLOSE-E2E"],
      ["Open", "USDTNGN", "sell", 100_000, 7, "ROLL-OPEN-E2E"],
    ]);
    const copy = await harness(page).cells("Approvals"); // saved while the batch was pending
    const clean = await checkBatch(page);
    expect(clean.refusal).toBeNull();
    await page.locator(`${BATCH} .approve`).click();
    await page.waitForFunction(() => document.querySelectorAll("#approvals-pending li[data-batch]").length === 0);
    await sideReads(baseUrl, "sell", [100_000]);
    const rolled = await sideNotionals(baseUrl, "sell");

    // 25 sandbox hours later (past the sandbox's 24 h key retention), another computer, its clock the sandbox's, opens the copy.
    s.clock.advance(25 * 3_600_000);
    const other = await world.session.open({ clockAt: s.clock.now() });
    await waitReady(other.page);
    await connect(other.page, DEMO_APPROVER_API_KEY, baseUrl);
    await harness(other.page).setSheet("Approvals", copy);
    const stale = await checkBatch(other.page);
    expect(stale.refusal).toMatch(/it expired, so it cannot be approved nor its rows sent\. Nothing was sent: prepare it again\./);
    expect(stale.approveDisabled).toBe(true);
    expect(await sideNotionals(baseUrl, "sell")).toEqual(rolled);
    await other.context.close();
  });
});
