// npm run test:excel's in-add-in script with Chromium standing in for Excel: the harness page runs it against the sandbox and posts to Microsoft's test server, which judges the eight checks; then Copy diagnostics is clicked and the clipboard read.
import net from "net";
import packageJson from "../../package.json";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import type { HarnessWindow } from "./pane-driver";
import { describeWithBrowser } from "./browser";
import { axeViolations, paneWithSandbox, screenshot, type PanePage } from "./pane-driver";
import { judgeSmoke, smokeTable } from "../excel-smoke/checks";
import { startSmokeTestServer, type SmokeTestServer } from "../excel-smoke/test-server";

jest.setTimeout(240_000);

const DEMO_ADDRESS = "0x5a4d0e1b2c3f40516273849a0b1c2d3e4f506172";

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describeWithBrowser("the Excel smoke script in Chromium (the harness standing in for Excel)", (chromiumPath) => {
  const world = paneWithSandbox(chromiumPath, { seed: 33, fillMs: 200, open: false });
  let server: SmokeTestServer | undefined;
  let pane: PanePage | undefined;
  beforeAll(async () => {
    server = await startSmokeTestServer(await freePort());
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  test("the page runs the script with ?smoke=PORT and posts every observation; the test server's eight checks pass", async () => {
    if (!server) throw new Error("The test server did not start.");
    const service = encodeURIComponent(world.sandbox.baseUrl);
    pane = await world.session.open({
      query: `harness=memory&smoke=${server.port}&smoke-service=${service}`,
      ignoreHTTPSErrors: true,
      permissions: ["clipboard-read", "clipboard-write"],
    });
    const observations = await server.results();
    const checks = judgeSmoke(observations, packageJson.version);
    console.log(smokeTable(checks, "Chromium (the harness page, memory workbook)"));
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    await pane.page.waitForSelector("html[data-smoke=sent]");
    // In the memory workbook the smoke sheet holds values only now, and the trade row the script wrote.
    const cells = await pane.page.evaluate(() => (window as unknown as HarnessWindow).hedgeHarness.cells("Hedge Smoke"));
    expect(cells[0][7]).toBe(packageJson.version);
    expect(typeof cells[2][7]).toBe("number");
    await screenshot(pane.page, "smoke-after-run-320");
    expect(await axeViolations(pane.page)).toEqual([]);
  });

  test("Copy diagnostics: the clipboard gets the report, with the connection, the journal's counts and none of the secrets", async () => {
    if (!pane) throw new Error("The smoke run's page is not there.");
    const { page } = pane;
    await page.locator("#copy-diagnostics").click();
    await page.waitForFunction(() => /Copied the diagnostics/.test(document.getElementById("diagnostics-status")?.textContent ?? ""));
    const report = await page.evaluate(() => navigator.clipboard.readText());
    expect(report).toContain(`Add-in version: ${packageJson.version}`);
    expect(report).toContain("Office: not running in Office");
    expect(report).toContain("Connection: connected (sandbox)");
    expect(report).toMatch(/Request rate allowed now: \d+\.\d\/s/);
    expect(report).toMatch(/submitting 0, submitted 0, needs_decision 0, filled 1,/);
    const lower = report.toLowerCase();
    for (const secret of [DEMO_API_KEY, DEMO_API_KEY.slice(9), "svc_test_", DEMO_ADDRESS.slice(2), "smoke-", "100000", "100,000"])
      expect([secret, lower.includes(secret.toLowerCase())]).toEqual([secret, false]);
    expect(await axeViolations(page, "#help-section")).toEqual([]);
    await screenshot(page, "diagnostics-copied-320");
  });
});
