// A 30-day program of one dated exposure rolled through the real pane (Chromium, harness mode, sandbox over HTTP, the page's clock moved with the sandbox's): each time the overview lists the side maturing, its Propose gives Close + Open, traded as one batch; month end lists every roll, none unhedged longer than from the Close's fill to the Open's.
import path from "path";
import type { Page } from "playwright-core";
import { HedgingClient } from "../../src/api/client";
import type { Hedge } from "../../src/api/schemas";
import { SIDE_TIME_COLUMNS } from "../../src/monthend/recon-layout";
import { rollOnce } from "../../src/policy/rollcost";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import { utcMinute } from "../../src/api/time";
import type { CellValue } from "../../src/trading/cells";
import { until } from "../sandbox/helpers";
import { DAY, exposureGrid, HOUR, policyGrid } from "../support/program";
import { describeWithBrowser } from "./browser";
import {
  ARTIFACTS,
  connect,
  harness,
  logRows,
  paneWithSandbox,
  PREVIEW_DONE,
  waitReady,
  waitRowsFinal,
  WAIT_MS,
  type PanePage,
} from "./pane-driver";

jest.setTimeout(600_000);
// A flake seen under load (test/README.md "The rolls program's flake"): the pane's armed roll sent an Open of its own
// between two rounds, which the service refused (hedge_exists), and the refused row kept the log from being all filled or
// closed. Its cause is fixed (a hedge closed early is no settlement); after 42 loaded runs with no failure the retry is
// gone, and a failure still prints the log's rows, the pane's and the armed rolls.

const noteOf = async (page: Page) => (await page.locator("#propose-note").textContent()) ?? "";

/**
 * The sheet the proposal just asked for was written to, and its counts, from what the pane says. `previous` is the note
 * before Propose was pressed, which the pane must not show from the press on. The flake of 2026-11-27: this wait took the
 * previous roll's note, still on screen while the new proposal read the positions; the test then traded the previous
 * roll's sheet again (at the fourth roll a 7-day Open where the rule gives 1 day, so the program passed its value date
 * after 4 rolls), or pressed Read selection while the pane was still busy proposing (swallowed: Preview never came).
 */
async function proposed(page: Page, previous: string): Promise<{ sheet: string; note: string }> {
  expect(await noteOf(page)).not.toBe(previous);
  await page.waitForFunction((before) => {
    const note = document.getElementById("propose-note")?.textContent ?? "";
    return note !== before && /proposed on|Nothing to do/.test(note);
  }, previous);
  const note = await noteOf(page);
  const sheet = /proposed on (.+?) \(\d+ (?:Close|Open|Add|Reduce)/.exec(note)?.[1] ?? "";
  return { sheet, note };
}

/** The pane's own words now (maturities, proposal note, busy line, error, the last rows sent), for a failure's message. */
async function paneSays(page: Page): Promise<string> {
  return page.evaluate(() => {
    const text = (id: string) => (document.getElementById(id)?.textContent ?? "(absent)").replace(/\s+/g, " ").trim();
    const rows = [...document.querySelectorAll("#row-status li")]
      .slice(-4)
      .map((li) => `${(li as HTMLElement).dataset.status}: ${li.textContent}`);
    return [
      `maturities: ${text("maturities-list")}`,
      `armed rolls: ${text("armed-rolls-list")}`,
      `propose note: ${text("propose-note")}`,
      `busy: ${document.getElementById("trade-busy")?.hidden ? "no" : text("trade-busy-text")}`,
      `error: ${text("trade-error") || "none"}`,
      `last rows: ${rows.join(" | ") || "none"}`,
    ].join("\n  ");
  });
}

/** Reads the proposal's rows, previews them and sends them as one batch; waits until `final` rows in all are final. */
async function tradeProposal(page: Page, sheet: string, rows: number, final: number): Promise<void> {
  await harness(page).select(`A2:I${rows + 1}`, sheet);
  await page.locator("#read-selection").click();
  // This read's summary (Read clears the last one's at once; a press swallowed while the pane is busy leaves none).
  await page.waitForFunction((n) => (document.getElementById("read-summary")?.textContent ?? "").startsWith(`${n} row`), rows);
  await page.waitForSelector("#action-column-choice:not([hidden])");
  await page.locator("#preview").click();
  await page.waitForSelector(PREVIEW_DONE);
  expect(await page.locator("#preview-table .blocker").allTextContents()).toEqual([]);
  if (rows === 2) {
    // A roll (issue 39): its exit impact, the fee pair and one cost under the totals; the notional counted once.
    const roll = (await page.locator("#preview-rolls li.roll").allTextContents()).join(" | ");
    expect(roll).toMatch(
      /^Roll USDTNGN buy: Close \(row 2\), then Open \(row 3\)Exit impact of the Close: [\d,]+\.\d\d USDFees: [\d,]+\.\d\d USD \(Close\) \+ [\d,]+\.\d\d USDC \(Open\)This roll costs [\d,]+\.\d\d USD\.$/,
    );
    const totals = await page
      .locator("#preview-totals")
      .evaluate((dl) =>
        Object.fromEntries([...dl.querySelectorAll("dt")].map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
      );
    expect(totals["Total notional"]).toBe("500,000.00 USD");
  }
  await page.locator("#confirm").click();
  await waitRowsFinal(page, final);
}

/** A maturity as the overview writes it: "2026-11-30 17:00 UTC". */
const stamp = (iso: string) => utcMinute(Date.parse(iso));

describeWithBrowser("a hedging program rolled through the task pane", (chromiumPath) => {
  const world = paneWithSandbox(chromiumPath, { seed: 31, fillMs: 400, open: false });
  let pane: PanePage;

  /** The page's clock set to the sandbox's (both flow on at the real rate). */
  const syncClock = () => pane.page.clock.setSystemTime(world.sandbox.clock.now());

  test("each time the overview lists the side maturing, Propose beside it rolls it; month end lists the rolls and no longer gap", async () => {
    // The program starts at 01:00 UTC on the 1st of the sandbox's next month, so its month end holds it.
    const s = world.sandbox;
    const now = new Date(s.clock.now());
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 1);
    s.clock.advance(start - s.clock.now());
    pane = await world.session.open({ clockAt: s.clock.now() });
    await waitReady(pane.page);
    const { page } = pane;
    await connect(page, DEMO_API_KEY, s.baseUrl);
    const wb = harness(page);
    const valueDate = start + 30 * DAY;
    await wb.setSheet("Model", exposureGrid(500_000, valueDate));
    await wb.setSheet("Policy", policyGrid({ roll: "early", rollWithinHours: 2, maxTradeUsd: 1_000_000 }));

    // The first hedge: Propose from the model and the policy.
    await wb.select("A2:D2", "Model");
    await page.locator("#propose").click();
    await page.waitForFunction(() => /^Exposures: /.test(document.getElementById("propose-note")?.textContent ?? ""));
    await wb.select("A2:I2", "Policy");
    const exposuresNote = await noteOf(page);
    await page.locator("#propose").click();
    const first = await proposed(page, exposuresNote);
    expect(first.note).toMatch(/^1 row proposed on .* \(1 Open\)/);
    let final = 1;
    await tradeProposal(page, first.sheet, 1, final);
    // The overview lists the hedge a week ahead with its plan (issue 39): early (the policy's Roll), 7 days at its
    // maturity (23 days then left), and this roll's cost as ROLLCOST prices one roll from the sandbox's quotes; a timeline.
    const planLine = await page.waitForFunction(() => {
      const plan = document.querySelector('#maturities-list li[data-kind="maturing"][data-side="USDTNGN|buy"] .plan')?.textContent ?? "";
      return /costs [\d,]+\.\d\d USD$/.test(plan) ? plan : false;
    });
    const planText = String(await planLine.jsonValue());
    expect(planText).toMatch(/^Plan: roll early \(Close, then Open, inside Roll within\) into 7 days · this roll costs [\d,]+\.\d\d USD$/);
    const quoted = (
      await new HedgingClient({ apiKey: DEMO_API_KEY, baseUrl: s.baseUrl }).quote({
        market: "USDTNGN",
        side: "buy",
        notional_usd: 500_000,
        tenor_days: 7,
      })
    ).data;
    const expectedCost = rollOnce(500_000, 7, "early", () => quoted).totalUsd;
    // Within 50 cents: the sandbox's quotes move as its clock flows, and under load seconds pass between the pane's pricing
    // and this quote (0.06 USD apart was seen once with a 5-cent bound); a wrong formula is off by far more (the fees alone
    // are hundreds of dollars).
    expect(Math.abs(Number(/costs ([\d,]+\.\d\d)/.exec(planText)![1].replace(/,/g, "")) - expectedCost)).toBeLessThanOrEqual(0.5);
    expect(await page.locator("#maturities-timeline svg.maturity-timeline").getAttribute("data-dots")).toBe("1");

    const client = new HedgingClient({ apiKey: DEMO_API_KEY, baseUrl: s.baseUrl });
    const openHedge = async (): Promise<Hedge | null> =>
      (await client.list({ status: "filled" })).data.find((h) => h.market === "USDTNGN" && h.side === "buy") ?? null;
    // The tenor rule (src/functions/README.md): the longest of 7, 3, 1 days that ends by the value date, else 1 day.
    const tenorAt = (ms: number) => [7, 3, 1].find((t) => ms + t * DAY <= valueDate) ?? 1;
    const rolls: Array<{ closed: string; opened: string }> = [];
    // What each round did, so that a failure says which roll went wrong and what came before it.
    const story: string[] = [];
    const hedgeText = (h: Hedge) => `${h.id} ${h.status} ${h.tenor_days} d, filled ${h.filled_at ?? "not yet"}, matures ${h.maturity_at}`;
    const explain = async (): Promise<string> => {
      const lines = [`Sandbox clock ${new Date(s.clock.now()).toISOString()}; value date ${new Date(valueDate).toISOString()}.`];
      lines.push(`Rounds so far:\n  ${story.join("\n  ") || "none"}`);
      try {
        const side = (await client.list({ limit: 20 })).data.filter((h) => h.market === "USDTNGN" && h.side === "buy");
        lines.push(`The service's USDTNGN buy hedges, newest first:\n  ${side.map(hedgeText).join("\n  ")}`);
      } catch (e) {
        lines.push(`The service's hedges could not be read: ${String(e)}`);
      }
      try {
        lines.push(`The pane:\n  ${await paneSays(page)}`);
      } catch (e) {
        lines.push(`The pane could not be read: ${String(e)}`);
      }
      return lines.join("\n");
    };
    /** Runs one step of a round; a failure names the round and the step and shows the service and the pane then. */
    const step = async <T>(round: number, what: string, run: () => Promise<T>): Promise<T> => {
      try {
        return await run();
      } catch (e) {
        throw new Error(
          `Round ${round + 1} (after ${rolls.length} rolls), ${what}: ${e instanceof Error ? e.message : String(e)}\n${await explain()}`,
          { cause: e },
        );
      }
    };
    let pictured = false;
    for (let round = 0; round < 12; round++) {
      const held = await openHedge();
      if (!held) {
        story.push(`round ${round + 1}: no open USDTNGN buy hedge`);
        break;
      }
      // An hour before its maturity: inside the overview's 24 hours and the policy's roll window.
      s.clock.advance(Date.parse(String(held.maturity_at)) - HOUR - s.clock.now());
      await syncClock();
      const at = new Date(s.clock.now()).toISOString();
      // The overview lists this hedge (its own maturity, to the minute) once its positions poll sees the time now: an item
      // of the hedge before it, or of this one read at the time before (a 1-day hedge is listed from its opening), is not it.
      await step(round, `waiting for the overview to list ${hedgeText(held)} as maturing within the hour`, () =>
        page.waitForFunction(
          (maturity) => {
            const text =
              document.querySelector('#maturities-list li[data-kind="maturing"][data-side="USDTNGN|buy"] > span')?.textContent ?? "";
            return /^USDTNGN buy 500,000\.00 USD matures in (\d+ min|1 h 00 min) \(/.test(text) && text.endsWith(`(${maturity})`);
          },
          stamp(String(held.maturity_at)),
        ),
      );
      if (!pictured) {
        // The guide's picture (src/taskpane/README.md, copied to assets/docs/): the maturities list at 320 px.
        await page.locator("#maturities").screenshot({ path: path.join(ARTIFACTS, "pane-maturities-320.png"), animations: "disabled" });
        pictured = true;
      }
      const before = await noteOf(page);
      await page.locator('#maturities-list fluent-button[data-propose="USDTNGN|buy"]').click();
      const roll = await step(round, "Propose beside the maturing side", () => proposed(page, before));
      if (/\(1 Close\)/.test(roll.note)) {
        // Past the value date: the exposure is paid, the hedge is closed, not rolled.
        story.push(`round ${round + 1} at ${at}: ${held.id} closed (${roll.sheet}), past the value date`);
        await step(round, `the Close past the value date (${roll.note})`, async () => {
          expect(s.clock.now()).toBeGreaterThanOrEqual(valueDate);
          await tradeProposal(page, roll.sheet, 1, final + 1);
        });
        break;
      }
      const tenor = tenorAt(s.clock.now());
      const opened = await step(round, `the roll proposed on ${roll.sheet || "(no sheet)"}, then traded`, async () => {
        expect(roll.note).toMatch(/^USDTNGN buy only: 2 rows proposed on .* \(1 Close, 1 Open\)/); // Propose beside the side: its rows only
        const cells = await wb.cells(roll.sheet);
        expect(cells.slice(1).map((r) => [r[0], r[4], String(r[5]).startsWith("ROLL-"), String(r[8]).startsWith("Roll: matures")])).toEqual(
          [
            ["Close", "", true, true],
            ["Open", tenor, true, true],
          ],
        );
        await tradeProposal(page, roll.sheet, 2, (final += 2));
        const next = await openHedge();
        expect(next?.id).not.toBe(held.id);
        expect(next?.tenor_days).toBe(tenor);
        return next as Hedge;
      });
      story.push(`round ${round + 1} at ${at}: ${held.id} (${held.tenor_days} d) rolled on ${roll.sheet} to ${hedgeText(opened)}`);
      rolls.push({ closed: held.id, opened: opened.id });
    }
    // 7 + 7 + 7 + 7 days, then 1-day hedges up to the value date (the tenor rule), each rolled an hour before it matured;
    // past the value date the exposure is paid and the last hedge closed.
    if (rolls.length !== 6) throw new Error(`The program rolled ${rolls.length} times where the tenor rule gives 6.\n${await explain()}`);
    // This program's hedges (a retry runs a second program a month on, in the same sandbox).
    const tenors = (await client.list({ limit: 100 })).data
      .filter((h) => Date.parse(String(h.opened_at)) >= start)
      .map((h) => h.tenor_days)
      .reverse();
    expect(tenors).toEqual([7, 7, 7, 7, 1, 1, 1]);
    expect(await openHedge()).toBeNull();
    // Every row of the program in the Hedge Log, final (the log is written behind the pane's row list).
    await until(
      async () => (await logRows(page)).every((r) => ["filled", "closed"].includes(String(r.status))),
      WAIT_MS,
      "every Hedge Log row filled or closed",
    ).catch(async (e: Error) => {
      const rows = (await logRows(page)).map(
        (r) =>
          `${r.loggedAt} ${r.action} ${r.status} ${r.tenor ?? ""} ref ${r.clientReference} key ${r.idempotencyKey}${r.message ? ` (${r.message})` : ""}`,
      );
      const list = await page.evaluate(() =>
        [...document.querySelectorAll("#row-status li")].map((li) => `${(li as HTMLElement).dataset.status}: ${li.textContent}`),
      );
      throw new Error(
        `${e.message}; the log's rows:\n  ${rows.join("\n  ")}\nthe pane's rows:\n  ${list.join("\n  ")}\n${await explain()}`,
      );
    });

    // Month end of the program's month, in the pane.
    const month = new Date(start).toISOString().slice(0, 7);
    await page.locator("#month-end-host fluent-dropdown").click();
    await page.locator(`#month-end-host fluent-option[value="${month}"]`).click();
    await page.locator("#month-end-host .month-end-reconcile").click();
    await page.waitForFunction(() =>
      /^Wrote “Hedge Recon/.test(document.querySelector("#month-end-host .month-end-message")?.textContent ?? ""),
    );
    const sheet = await wb.cells(`Hedge Recon ${month}`);
    const title = sheet.findIndex((r) => String(r[0]).startsWith("Rolls and unhedged time"));
    const headers = sheet[title + 1].slice(0, SIDE_TIME_COLUMNS.length).map(String);
    const col = (name: string) => headers.indexOf(name);
    const lines: CellValue[][] = [];
    for (let r = title + 2; r < sheet.length && sheet[r][0] !== ""; r++) lines.push(sheet[r]);

    // Every roll whose Close filled in the month is listed as a roll to its Open, unhedged no longer than Close fill → Open fill.
    const monthEnd = Date.UTC(new Date(start).getUTCFullYear(), new Date(start).getUTCMonth() + 1, 1);
    let checked = 0;
    for (const r of rolls) {
      const closed = (await client.get(r.closed)).data;
      const opened = (await client.get(r.opened)).data;
      const closeFill = (await client.history({ limit: 500 })).data.find((x) => x.hedge_id === r.closed && x.exit_type === "close");
      expect(closeFill).toBeDefined();
      if (Date.parse(String(closeFill?.closed_at)) >= monthEnd) continue;
      const line = lines.find((l) => l[col("Hedge id")] === closed.id);
      expect(line?.[col("Followed by")]).toBe("Roll");
      expect(line?.[col("Next hedge id")]).toBe(opened.id);
      const gapMs = Number(line?.[col("Unhedged (hours)")]) * HOUR;
      const fillToFill = Date.parse(String(opened.filled_at)) - Date.parse(String(closeFill?.closed_at));
      expect(gapMs).toBeGreaterThan(0);
      expect(gapMs).toBeLessThanOrEqual(fillToFill + 1);
      checked++;
    }
    expect(checked).toBe(6);
    expect(sheet.find((r) => r[0] === "Rolls")?.[1]).toBe(lines.filter((l) => l[col("Followed by")] === "Roll").length);
  });
});
