// The pane's armed rolls through Chromium against the sandbox on its clock (issue 39 item 2): two pages (two computers, two trading keys of the demo account) propose from the same model; past each maturity the next Open is sent by the pages themselves, once on the service, the side unhedged for about one poll interval, and the list under the maturities says armed, then rolled at.
import type { Page } from "playwright-core";
import { HedgingClient } from "../../src/api/client";
import type { Hedge } from "../../src/api/schemas";
import { DEMO_API_KEY, DEMO_APPROVER_API_KEY } from "../../src/sandbox/demo";
import { utcMinute } from "../../src/api/time";
import { ARM_POLL_MS } from "../../src/trading/desk/roll-arming";
import { rollReference } from "../../src/trading/rolls";
import { DAY, exposureGrid, policyGrid, toNextHour } from "../support/program";
import { describeWithBrowser } from "./browser";
import {
  connect,
  harness,
  logRows,
  paneWithSandbox,
  PREVIEW_DONE,
  proposeFromModel,
  waitReady,
  waitRowsFinal,
  type PanePage,
} from "./pane-driver";

jest.setTimeout(600_000);

const armedText = async (page: Page) => (await page.locator("#armed-rolls-list").textContent())?.replace(/\s+/g, " ").trim() ?? "";

describeWithBrowser("armed rolls: the pane rolls at maturity by itself", (chromiumPath) => {
  const world = paneWithSandbox(chromiumPath, { seed: 43, fillMs: 400, open: false });
  let panes: PanePage[] = [];
  afterAll(async () => {
    for (const p of panes) await p.context.close();
  });

  test("two pages on one account armed: past each maturity the next Open is sent once, within a poll interval, and the list says rolled at", async () => {
    const s = world.sandbox;
    const start = toNextHour(s.clock);
    const valueDate = start + 12 * DAY;
    panes = [await world.session.open({ clockAt: s.clock.now() }), await world.session.open({ clockAt: s.clock.now() })];
    const [a, b] = panes.map((p) => p.page);
    const syncClocks = () => Promise.all(panes.map((p) => p.page.clock.setSystemTime(s.clock.now())));
    for (const [page, key] of [
      [a, DEMO_API_KEY],
      [b, DEMO_APPROVER_API_KEY],
    ] as const) {
      await waitReady(page);
      await connect(page, key, s.baseUrl);
      await harness(page).setSheet("Model", exposureGrid(400_000, valueDate));
      await harness(page).setSheet("Policy", policyGrid({ roll: "at maturity", rollWithinHours: 24, maxTradeUsd: 1_000_000 }));
    }

    // Page A proposes and sends the first Open by hand; page B proposes too (it learns the model), with nothing to send then.
    const sheet = await proposeFromModel(a);
    await harness(a).select("A2:I2", sheet);
    await a.locator("#read-selection").click();
    await a.waitForSelector("#action-column-choice:not([hidden])");
    await a.locator("#preview").click();
    await a.waitForSelector(PREVIEW_DONE);
    await a.locator("#confirm").click();
    await waitRowsFinal(a, 1);
    await proposeFromModel(b);

    const client = new HedgingClient({ apiKey: DEMO_API_KEY, baseUrl: s.baseUrl });
    const openHedge = async (): Promise<Hedge | undefined> =>
      (await client.list({ status: "filled" })).data.find((h) => h.market === "USDTNGN" && h.side === "buy");
    const first = (await openHedge()) as Hedge;
    const stampOf = (iso: string) => utcMinute(Date.parse(iso));
    for (const page of [a, b])
      await page.waitForFunction(
        (m) => (document.getElementById("armed-rolls-list")?.textContent ?? "").includes(`USDTNGN buy armed: matures ${m}`),
        stampOf(first.maturity_at as string),
      );

    // Two maturities inside the program (7 days, then 3, then 1 to the value date): each rolled by the pages.
    const gaps: number[] = [];
    let held = first;
    for (let round = 0; round < 2; round++) {
      const maturity = Date.parse(held.maturity_at as string);
      s.clock.advance(maturity - s.clock.now()); // the sandbox settles the hedge; its clock flows on at the real rate
      await syncClocks();
      const reference = rollReference(maturity, "USDTNGN", "buy", 1);
      // The pages roll it by themselves: the service shows the roll's reference.
      let byReference: Hedge[] = [];
      for (let i = 0; i < 300 && byReference.length === 0; i++) {
        byReference = (await client.list({ client_reference: reference })).data;
        if (byReference.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(byReference.map((h) => h.status === "failed")).toEqual([false]); // opened once, though two pages were armed
      gaps.push(Date.parse(byReference[0].opened_at as string) - maturity);
      s.clock.advance(1_000); // past the fill
      await syncClocks();
      let next: Hedge | undefined;
      for (let i = 0; i < 300 && next?.id !== byReference[0].id; i++) {
        next = await openHedge();
        if (next?.id !== byReference[0].id) await new Promise((r) => setTimeout(r, 100));
      }
      expect(next?.id).toBe(byReference[0].id);
      held = next as Hedge;
      // Each page arms the new hedge and says when it last rolled.
      for (const page of [a, b])
        await page.waitForFunction(
          (m) =>
            new RegExp(`USDTNGN buy armed: matures ${m}.*last rolled at`).test(
              document.getElementById("armed-rolls-list")?.textContent ?? "",
            ),
          stampOf(held.maturity_at as string),
        );
      // Not yet settled with it again within this check: still one hedge under the reference.
      expect((await client.list({ client_reference: reference })).data).toHaveLength(1);
    }
    // Unhedged one poll interval at most, plus the requests a roll makes before the service takes its Open (the hedge,
    // its reference, the positions, the preview's quote, the journal, the send): about 1 s on a quiet machine, 2 s on
    // this shared one (measured and printed); the desk-level proof on a frozen clock shows the poll alone.
    console.log(`armed rolls in Chromium, two pages: gaps ${gaps.map((g) => `${g} ms`).join(", ")}`);
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(ARM_POLL_MS + 3_000);
    expect(await armedText(a)).toMatch(/USDTNGN buy armed: matures .* last rolled at/);
    // Every roll in some page's Hedge Log (a page logs the rolls it sent; the other found it rolled or sent the same key).
    const logged = await Promise.all([a, b].map((page) => logRows(page)));
    const refs = new Set(
      logged
        .flat()
        .map((r) => String(r.clientReference))
        .filter((r) => r.startsWith("ROLL-")),
    );
    expect(refs.size).toBe(2);
  });
});
