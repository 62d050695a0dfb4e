// The production page started as Excel starts it with a saved key: nothing starts the browser's number formatting (ICU: Intl's formatters, toLocaleString, localeCompare) before the pane says it is ready, since its first call costs 20–60 ms at 1× CPU on the pane's path (issue 41).
import { describeWithBrowser, launchChromium } from "./browser";
import { ensureBuilt } from "./build";
import { serveDirectory } from "./static-server";
import { startSandbox } from "../../src/sandbox/server";
import { interceptForeignHosts, officeStandIn } from "../bench/startup-page";

jest.setTimeout(300_000);

/** Notes, before data-ready, every call that starts ICU: Intl's constructors and the locale-aware methods. */
const WATCH_ICU = `(() => {
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
})();`;

describeWithBrowser("the pane's start with a saved key", (chromiumPath) => {
  test("reaches data-ready, connected, without starting the browser's number formatting", async () => {
    const dist = await ensureBuilt("production");
    const sandbox = await startSandbox({ port: 0, http: true, seed: 1 });
    const server = await serveDirectory(dist, "hosted");
    const browser = await launchChromium(chromiumPath());
    try {
      const context = await browser.newContext({ viewport: { width: 320, height: 900 } });
      const page = await context.newPage();
      await interceptForeignHosts(await context.newCDPSession(page), new URL(sandbox.baseUrl).origin, officeStandIn());
      await page.addInitScript(WATCH_ICU);
      await page.goto(`${server.origin}/taskpane.html`);
      await page.waitForFunction(() => document.documentElement.dataset.ready === "true", undefined, { timeout: 60_000 });
      // The saved key connected (the overview and the panels of a connection are shown), and no ICU call came first.
      expect(await page.locator("#overview-section").isVisible()).toBe(true);
      expect(await page.locator("#trade-section").isVisible()).toBe(true);
      expect(await page.evaluate(() => (window as unknown as { __icuCalls: string[] }).__icuCalls)).toEqual([]);
    } finally {
      await browser.close();
      await server.close();
      await sandbox.close();
    }
  });
});
