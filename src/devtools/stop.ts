// `npm stop`: unregisters the sideloaded add-in on Windows and Mac (office-addin-debugging, fetched on demand); nothing to do on Linux.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { turnOffOfficeAddinUsageData, USAGE_DATA_FILE } from "./usage-data-off";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

if (turnOffOfficeAddinUsageData()) console.log(`office-addin usage data turned off (${USAGE_DATA_FILE}).`);
if (process.platform === "win32" || process.platform === "darwin") {
  const result = spawnSync("npx", ["--yes", "office-addin-debugging@6", "stop", "manifest.xml"], {
    cwd: ROOT,
    stdio: "inherit",
    shell: process.platform === "win32",
  });
  process.exitCode = result.status ?? 1;
} else {
  console.log(
    `Nothing to unregister on ${process.platform === "linux" ? "Linux" : process.platform}: the add-in was not sideloaded (remove an uploaded add-in from Excel on the web's My Add-ins). Stop npm start with Ctrl-C.`,
  );
}
