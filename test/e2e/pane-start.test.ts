// The production page started as Excel starts it with a saved key (issue 41): nothing starts the browser's number formatting (ICU: Intl's formatters, toLocaleString, localeCompare; 20–60 ms at 1× CPU on its first call) before the pane says it is ready, and the pane is shown once, connected, never first as the key form.
import type { Browser } from "playwright-core";
import { describeWithBrowser, launchChromium } from "./browser";
import { ensureBuilt } from "./build";
import { serveDirectory } from "./static-server";
import { startSandbox } from "../../src/sandbox/server";
import { interceptForeignHosts, officeStandIn } from "../bench/startup-page";

jest.setTimeout(300_000);

/**
 * From the document's start: notes, before data-ready, every call that starts ICU (Intl's constructors and the
 * locale-aware methods), and what the page holds when #app is first shown.
 */
const WATCH = `(() => {
  const calls = (window.__icuCalls = []);
  const note = (what) => { if (document.documentElement.dataset.ready !== "true") calls.push(what + " " + new Error().stack.split("\\n").slice(3, 5).join(" ")); };
  for (const name of ["NumberFormat", "DateTimeFormat", "Collator", "PluralRules", "RelativeTimeFormat", "ListFormat", "Segmenter"]) {
    const C = Intl[name];
    Intl[name] = new Proxy(C, { construct: (t, a, nt) => (note("Intl." + name), Reflect.construct(t, a, nt)), apply: (t, self, a) => (note("Intl." + name), Reflect.apply(t, self, a)) });
  }
  for (const [proto, m] of [[Number.prototype, "toLocaleString"], [Date.prototype, "toLocaleString"], [Date.prototype, "toLocaleDateString"], [Date.prototype, "toLocaleTimeString"], [String.prototype, "localeCompare"]]) {
    const f = proto[m];
    proto[m] = function (...a) { note(m); return f.apply(this, a); };
  }
  new MutationObserver((records) => {
    const app = records.map((r) => r.target).find((t) => t.id === "app" && !t.hidden);
    if (!app || window.__appShown) return;
    const shown = (id) => { const el = document.getElementById(id); return !!el && el.checkVisibility(); };
    window.__appShown = { trade: shown("trade-section"), keyForm: shown("connection-edit") && document.getElementById("connection-edit").open };
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["hidden"] });
})();`;

interface Seen {
  icuCalls: string[];
  appShown: { trade: boolean; keyForm: boolean } | undefined;
  overview: boolean;
}

describeWithBrowser("a saved key's start of the production page", (chromiumPath) => {
  let browser: Browser | undefined;
  let seen: Seen;
  let close: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const dist = await ensureBuilt("production");
    const sandbox = await startSandbox({ port: 0, http: true, seed: 1 });
    const server = await serveDirectory(dist, "hosted");
    close = async () => {
      await browser?.close();
      await server.close();
      await sandbox.close();
    };
    browser = await launchChromium(chromiumPath());
    const context = await browser.newContext({ viewport: { width: 320, height: 900 } });
    const page = await context.newPage();
    await interceptForeignHosts(await context.newCDPSession(page), new URL(sandbox.baseUrl).origin, officeStandIn());
    await page.addInitScript(WATCH);
    await page.goto(`${server.origin}/taskpane.html`);
    await page.waitForFunction(() => document.documentElement.dataset.ready === "true", undefined, { timeout: 60_000 });
    seen = await page.evaluate(() => {
      const w = window as unknown as { __icuCalls: string[]; __appShown: Seen["appShown"] };
      return { icuCalls: w.__icuCalls, appShown: w.__appShown, overview: document.getElementById("overview-section")!.checkVisibility() };
    });
  }, 300_000);
  afterAll(() => close());

  test("reaches data-ready connected without starting the browser's number formatting", () => {
    expect(seen.overview).toBe(true);
    expect(seen.icuCalls).toEqual([]);
  });

  test("the pane is first shown connected, its panels mounted, not as the key form", () => {
    expect(seen.appShown).toEqual({ trade: true, keyForm: false });
  });
});
