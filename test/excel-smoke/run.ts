// `npm run test:excel`: the smoke test inside desktop Excel — Microsoft's test server on 4201, then npm start's sandbox, dev server and sideload with the smoke manifest; the add-in runs its script in Excel and posts; the checks are judged, Excel closed, a table printed. Without desktop Excel it says so: on CI (or with --excel-only) it exits 0 as skipped, elsewhere it runs the script in Chromium instead.
import { spawn, spawnSync } from "child_process";
import path from "path";
import packageJson from "../../package.json";
import { judgeSmoke, smokeTable } from "./checks";
import { closeExcel, findDesktopExcel } from "./excel";
import { startSmokeTestServer } from "./test-server";

/** Microsoft's test server's port, as its sample uses it (the add-in's page is told it by ?smoke=4201). */
const PORT = 4201;
/** Building, starting Excel, one fill and a snapshot: generous on a slow PC. */
const RESULTS_MS = 10 * 60_000;
const ROOT = path.resolve(__dirname, "../..");

async function main(): Promise<number> {
  const found = findDesktopExcel();
  if ("skip" in found) {
    console.log(`SKIPPED in Excel: the Excel smoke test needs desktop Excel: ${found.skip}.`);
    if (process.env.CI || process.argv.includes("--excel-only")) return 0;
    // Here the same in-add-in script runs in Chromium standing in for Excel (the harness page, the memory workbook).
    console.log("Running its in-add-in script in Chromium instead (test/e2e/excel-smoke.test.ts)…");
    const jest = spawnSync(process.execPath, [path.join(ROOT, "node_modules/jest/bin/jest.js"), "test/e2e/excel-smoke.test.ts"], {
      cwd: ROOT,
      stdio: "inherit",
    });
    return jest.status ?? 1;
  }
  console.log(`Excel: ${found.excel}`);
  const server = await startSmokeTestServer(PORT);
  console.log(`Test server: https://localhost:${PORT}/ (office-addin-test-server)`);
  // npm start's own steps: development build, sandbox, dev server, sideload — with the manifest that asks for the smoke run.
  const start = spawn(
    process.execPath,
    [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), "src/devtools/start.ts", "--smoke", String(PORT)],
    {
      cwd: ROOT,
      stdio: "inherit",
    },
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no results from the add-in within ${RESULTS_MS / 60_000} min`)), RESULTS_MS);
  });
  let code = 1;
  try {
    const observations = await Promise.race([server.results(), timeout]);
    const checks = judgeSmoke(observations, packageJson.version);
    console.log(`\n${smokeTable(checks, `desktop Excel (${process.platform === "win32" ? "Windows" : "Mac"})`)}`);
    const agent = observations.find((o) => o.Name === "UserAgent");
    if (agent) console.log(`Excel's web view: ${String(agent.Value)}`);
    code = checks.every((c) => c.ok) ? 0 : 1;
  } catch (e) {
    console.error(`✖ ${(e as Error).message}`);
  } finally {
    clearTimeout(timer);
    await server.stop();
    console.log(closeExcel() ? "Excel closed." : "Close Excel by hand (it did not quit).");
    start.kill("SIGTERM");
    spawnSync(process.execPath, [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), "src/devtools/stop.ts"], {
      cwd: ROOT,
      stdio: "inherit",
    });
  }
  return code;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`✖ npm run test:excel: ${(e as Error).message}`);
    process.exit(1);
  },
);
