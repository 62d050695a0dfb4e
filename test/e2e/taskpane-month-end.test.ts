// Month end in the real pane (Chromium, harness mode, sandbox over HTTP): trade, pick the month, Reconcile month, and the memory workbook gains a "Hedge Recon YYYY-MM" sheet of plain values whose realized totals equal the sandbox's history.
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import type { Account, ClosedHedge } from "../../src/api/schemas";
import type { CellValue } from "../../src/trading/cells";
import { addMonths, monthLabel, monthOf, monthWindow } from "../../src/monthend/month";
import { REALIZED_COLUMNS } from "../../src/monthend/recon-layout";
import { HARNESS_ROWS, HARNESS_SHEET } from "../../src/taskpane/harness";
import { journalled } from "../support/builders";
import { describeWithBrowser } from "./browser";
import {
  axeViolations,
  chooseAction,
  connect,
  type HarnessWindow,
  paneWithSandbox,
  screenshot,
  select,
  tabTo,
  waitReady,
  waitRowsFinal,
  PREVIEW_DONE,
} from "./pane-driver";
import type { Page } from "playwright-core";

// A real browser, a build and fills that take a moment: slower than unit tests, more so on CI.
jest.setTimeout(90_000);

const cents = (n: number) => Math.round(n * 100);
/** A client reference Excel would read as a formula if it were typed into a General cell. */
const FORMULA_TEXT = "=1+1";
const sum = (records: ClosedHedge[], field: "size_usd" | "gross_pnl_usd" | "carry_usd" | "fees_usd" | "net_pnl_usd") =>
  records.reduce((a, r) => a + r[field], 0);

describeWithBrowser("month end in the task pane", (chromiumPath) => {
  const world = paneWithSandbox(chromiumPath, { seed: 21 });

  const service = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${world.sandbox.baseUrl}${path}`, { headers: { Authorization: `Bearer ${DEMO_API_KEY}` } });
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return ((await res.json()) as { data: T }).data;
  };

  /** Read selection → Preview → Confirm, then waits until `total` status rows are final. */
  const send = async (page: Page, total: number) => {
    await page.locator("#read-selection").click();
    await page.waitForSelector("#preview:not([hidden])");
    await page.locator("#preview").click();
    await page.waitForSelector(PREVIEW_DONE);
    await page.locator("#confirm").click();
    await waitRowsFinal(page, total);
  };

  test("trade, Reconcile month, and the recon sheet's realized section and totals equal the sandbox's history", async () => {
    const { page } = world.pane;
    // Before connecting there is no month-end section to press.
    expect(await page.locator("#month-end-host").isHidden()).toBe(true);
    await connect(page, DEMO_API_KEY, world.sandbox.baseUrl);
    await page.waitForSelector("#month-end-host:not([hidden]) .month-end-reconcile");

    // Open buy 250,000 and sell 100,000 (its client reference "=1+1", text that Excel would read as a formula); reduce the
    // buy by 100,000; close the sell: two realized records.
    await page.evaluate(([sheet, rows]) => (window as unknown as HarnessWindow).hedgeHarness.setSheet(sheet, rows), [
      HARNESS_SHEET,
      HARNESS_ROWS.map((r) => r.map((v) => (v === "DEAL-1002" ? FORMULA_TEXT : v))),
    ] as const);
    await select(page, "A2:E3");
    await send(page, 2);
    await page.evaluate(() => {
      const h = (window as unknown as HarnessWindow).hedgeHarness;
      h.setSheet("Month deals", [
        ["Market", "Side", "Notional", "Client reference"],
        ["USDTNGN", "buy", 100000, "ME-REDUCE-1"],
        ["USDTNGN", "sell", null, "ME-CLOSE-1"],
      ]);
      h.select("A2:D2", "Month deals");
    });
    await chooseAction(page, "reduce");
    await send(page, 3);
    await page.evaluate(() => (window as unknown as HarnessWindow).hedgeHarness.select("A3:D3", "Month deals"));
    await chooseAction(page, "close");
    await send(page, 4);

    // The month the trades closed in, picked in the Fluent dropdown (the default is the previous month until the 10th).
    const month = monthLabel(monthOf(Date.now()));
    await page.locator("#month-end-host fluent-dropdown").click();
    await page.locator(`#month-end-host fluent-option[value="${month}"]`).click();
    await expect(
      page.locator("#month-end-host fluent-dropdown").evaluate((d) => (d as HTMLElement & { value: string }).value),
    ).resolves.toBe(month);

    await page.locator("#month-end-host .month-end-reconcile").click();
    await page.waitForFunction(
      () => /^Wrote “Hedge Recon/.test(document.querySelector("#month-end-host .month-end-message")?.textContent ?? ""),
      undefined,
      { timeout: 30_000 },
    );
    const message = (await page.locator("#month-end-host .month-end-message").textContent()) ?? "";
    expect(message).toContain(`Wrote “Hedge Recon ${month}”: 2 hedges closed`);
    await page.locator("#month-end-host").scrollIntoViewIfNeeded();
    await screenshot(page, "30-month-end-reconciled-320");
    expect(await axeViolations(page, "#month-end-host")).toEqual([]);

    // The sandbox's own word on the month.
    const period = monthWindow(month);
    const history = await service<ClosedHedge[]>(
      `/hedges/history?from=${encodeURIComponent(new Date(period.startMs).toISOString())}&limit=500`,
    );
    const account = await service<Account>("/account");
    expect(history).toHaveLength(2);

    const cells = (await page.evaluate(
      (name) => (window as unknown as HarnessWindow).hedgeHarness.cells(name),
      `Hedge Recon ${month}`,
    )) as CellValue[][];
    // Plain values only: no formula anywhere, so the sheet reads the same without the add-in; "=1+1" is text, in the recon
    // sheet and in the Hedge Log.
    for (const row of cells) for (const v of row) expect(v === null || ["string", "number", "boolean"].includes(typeof v)).toBe(true);
    // The Hedge Log the pane wrote checks clean, up to the newest row this computer's journal wrote (the pane's head).
    const chain = cells.findIndex((r) => r[0] === "Hedge Log chain");
    expect(cells[chain + 1][0]).toBe("Chain holds");
    expect(String(cells[chain + 1][3])).toMatch(
      /^No edit found in Excel: .* its last row is the newest this computer wrote\. The hashes are not secret: .* the cells the service knows are checked below\.$/,
    );
    const kept = (sheet: string) =>
      page.evaluate((name) => {
        const h = (window as unknown as HarnessWindow).hedgeHarness;
        return { cells: h.cells(name), formats: h.formats(name), formulas: h.formulas(name) };
      }, sheet);
    for (const sheet of [`Hedge Recon ${month}`, "Hedge Log"]) {
      const { cells: grid, formats, formulas } = await kept(sheet);
      expect({ sheet, formulas: formulas.flat().filter((f) => f !== null) }).toEqual({ sheet, formulas: [] });
      const at = grid.flatMap((row, r) => row.map((v, c) => ({ v, r, c }))).filter((x) => x.v === FORMULA_TEXT);
      expect(at.length).toBeGreaterThan(0);
      for (const { r, c } of at) expect({ sheet, format: formats[r][c] }).toEqual({ sheet, format: "@" });
    }

    // Header: title, environment, account address, counts.
    const line = (label: string) => cells.find((r) => r[0] === label)?.[1];
    expect(cells[0][0]).toBe(`Hedge reconciliation ${month}`);
    expect(line("Environment")).toBe("sandbox");
    expect(line("Account address")).toBe(account.account_address);
    expect(line("Hedges closed in the period")).toBe(2);
    expect(line("Open positions")).toBe(1);
    expect(typeof line("Generated at (UTC)")).toBe("number");

    // Realized: the column headers, one row per closed hedge, then totals per side and overall.
    const titleRow = cells.findIndex((r) => r[0] === "Realized: hedges closed in the period");
    expect(titleRow).toBeGreaterThan(0);
    const headers = cells[titleRow + 1];
    expect(headers.slice(0, REALIZED_COLUMNS.length)).toEqual(REALIZED_COLUMNS.map((c) => c.header));
    const col = (header: string) => headers.indexOf(header);
    const body: CellValue[][] = [];
    for (let r = titleRow + 2; r < cells.length && !String(cells[r][0]).startsWith("Total"); r++) body.push(cells[r]);
    expect(body).toHaveLength(history.length);
    expect(body.map((r) => r[col("Hedge id")]).sort()).toEqual(history.map((h) => h.hedge_id).sort());
    expect(body.map((r) => `${r[col("Side")]} ${r[col("Exit type")]}`).sort()).toEqual(
      history.map((h) => `${h.side} ${h.exit_type}`).sort(),
    );
    for (const record of history) {
      const row = body.find((r) => r[col("Hedge id")] === record.hedge_id)!;
      expect(cents(row[col("Net P&L (USD)")] as number)).toBe(cents(record.net_pnl_usd));
    }

    const totals = (label: string) => cells.slice(titleRow).find((r) => r[0] === label);
    const overall = totals("Total (2)");
    expect(overall).toBeDefined();
    const checks = [
      ["Size (USD)", "size_usd"],
      ["Gross P&L (USD)", "gross_pnl_usd"],
      ["Carry (USD)", "carry_usd"],
      ["Fees (USD)", "fees_usd"],
      ["Net P&L (USD)", "net_pnl_usd"],
    ] as const;
    for (const [header, field] of checks) expect(cents(overall![col(header)] as number)).toBe(cents(sum(history, field)));
    for (const side of ["buy", "sell"] as const) {
      const records = history.filter((h) => h.side === side);
      const row = totals(`Total ${side} (${records.length})`);
      expect(row).toBeDefined();
      expect(cents(row![col("Net P&L (USD)")] as number)).toBe(cents(sum(records, "net_pnl_usd")));
    }
    expect(world.pane.console.filter((m) => m.startsWith("pageerror") || m.startsWith("error"))).toEqual([]);
  }, 120_000);

  test("with the keyboard alone, in the dark theme: pick the month before in the dropdown and reconcile it", async () => {
    const { page } = await world.session.open({ query: "harness=memory&theme=dark" });
    await waitReady(page);
    await connect(page, DEMO_API_KEY, world.sandbox.baseUrl);
    await page.waitForSelector("#month-end-host:not([hidden]) .month-end-reconcile");
    const current = monthOf(Date.now());
    const before = monthLabel(addMonths(current, -1));

    // The dropdown's combobox button: Enter opens the list, ArrowDown moves to the next (older) month, Enter picks it.
    await tabTo(page, '#month-end-host fluent-dropdown [slot="control"]', 60);
    const dropdown = page.locator("#month-end-host fluent-dropdown");
    await dropdown.evaluate((d, month) => {
      const el = d as HTMLElement & { value: string };
      // Start from the current month whatever the default (the previous one until the 10th).
      if (el.value !== month) el.value = month;
    }, monthLabel(current));
    await page.keyboard.press("Enter");
    // The list opens as a popover (its toggle event comes a moment later, as it would for a person).
    await page.waitForSelector('#month-end-host fluent-dropdown [slot="control"][aria-expanded="true"]');
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await expect(dropdown.evaluate((d) => (d as HTMLElement & { value: string }).value)).resolves.toBe(before);

    await tabTo(page, "#month-end-host .month-end-reconcile");
    await page.keyboard.press("Enter");
    await page.waitForFunction(
      () => /^Wrote “Hedge Recon/.test(document.querySelector("#month-end-host .month-end-message")?.textContent ?? ""),
      undefined,
      { timeout: 30_000 },
    );
    await expect(page.locator("#month-end-host .month-end-message").textContent()).resolves.toContain(
      `Wrote “Hedge Recon ${before}”: 0 hedges closed`,
    );
    const cells = (await page.evaluate(
      (name) => (window as unknown as HarnessWindow).hedgeHarness.cells(name),
      `Hedge Recon ${before}`,
    )) as CellValue[][];
    expect(cells[0][0]).toBe(`Hedge reconciliation ${before}`);
    // In the harness there are no formulas: Snapshot to values is not offered.
    expect(await page.locator("#month-end-host .month-end-snapshot").isHidden()).toBe(true);
    await page.locator("#month-end-host").scrollIntoViewIfNeeded();
    await screenshot(page, "31-month-end-keyboard-dark-320");
    expect(await axeViolations(page, "#month-end-host")).toEqual([]);
    await page.context().close();
  }, 120_000);

  test("archive old log rows: counted, confirmed, moved with progress to Hedge Log YYYY; unfinished rows stay", async () => {
    const { page } = await world.session.open();
    await waitReady(page);
    await connect(page, DEMO_API_KEY, world.sandbox.baseUrl);
    await page.waitForSelector("#month-end-host:not([hidden]) .log-archive-ask");
    const old = (key: string, loggedAt: string, status: string) =>
      journalled(key, { loggedAt, status, action: "close", notional: null, tenor: null, clientReference: null });
    await page.evaluate(
      (rows) => (window as unknown as HarnessWindow).hedgeHarness.appendLog(rows),
      [
        old("arch-1", "2024-02-01T00:00:00.000Z", "closed"),
        old("arch-2", "2025-02-01T00:00:00.000Z", "filled"),
        old("arch-3", "2025-03-01T00:00:00.000Z", "submitted"),
      ],
    );
    await page.locator("#month-end-host .log-archive-ask").click();
    await page.waitForSelector("#month-end-host .log-archive-confirm-box:not([hidden])");
    await expect(page.locator("#month-end-host .log-archive-confirm-box p").textContent()).resolves.toMatch(
      /^Move 2 rows finished before \d{4}-\d{2}-01 \(UTC\) from the Hedge Log to Hedge Log 2024 and Hedge Log 2025\? 1 row logged before then stays in the log/,
    );
    await page.locator("#month-end-host .log-archive-confirm-box").scrollIntoViewIfNeeded();
    expect(await axeViolations(page, "#month-end-host")).toEqual([]);
    await page.locator("#month-end-host .log-archive-confirm").click();
    await page.waitForFunction(() =>
      /^Moved 2 rows/.test(document.querySelector("#month-end-host .log-archive-message")?.textContent ?? ""),
    );
    const sheet2024 = (await page.evaluate(
      (n) => (window as unknown as HarnessWindow).hedgeHarness.cells(n),
      "Hedge Log 2024",
    )) as CellValue[][];
    expect(sheet2024.flat()).toContain("arch-1");
    const live = (await page.evaluate(() => (window as unknown as HarnessWindow).hedgeHarness.logRows())) as Array<{
      idempotencyKey: string;
    }>;
    expect(live.map((r) => r.idempotencyKey)).toEqual(expect.arrayContaining(["arch-1", "arch-2", "arch-3"])); // month end reads them all
    await screenshot(page, "32-log-archived-320");
    expect(await axeViolations(page, "#month-end-host")).toEqual([]);
    await page.context().close();
  }, 120_000);
});
