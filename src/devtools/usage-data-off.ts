// Turns off usage-data reporting of Microsoft's office-addin-* tools (~/office-addin-usage-data.json); run directly, it does it and says so.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * office-addin-usage-data (used by office-addin-dev-certs, -manifest, -debugging, custom-functions-metadata) reads its
 * setting from this file, per group; every office-addin-* CLI uses the group "office-addin-usage-data". Versions up to
 * 2.0.x send usage data when the level is "on" and prompt when the group is missing; 2.1+ send nothing at all. There is
 * no environment variable or command-line flag for it.
 */
export const USAGE_DATA_FILE = join(homedir(), "office-addin-usage-data.json");
export const USAGE_DATA_GROUP = "office-addin-usage-data";

interface UsageDataFile {
  // Groups by name, plus non-group entries such as a "deviceID" string.
  usageDataInstances?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Sets usageDataLevel "off" for the office-addin tools' group (and any other group already listed). Returns true if the file changed. */
export function turnOffOfficeAddinUsageData(file = USAGE_DATA_FILE): boolean {
  let data: UsageDataFile = {};
  if (existsSync(file)) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) data = parsed as UsageDataFile;
    } catch {
      // A broken file would make the tools throw; replace it.
    }
  }
  const before = JSON.stringify(data);
  const instances = (data.usageDataInstances ??= {});
  if (!instances[USAGE_DATA_GROUP] || typeof instances[USAGE_DATA_GROUP] !== "object") instances[USAGE_DATA_GROUP] = {};
  for (const group of Object.values(instances)) {
    if (group && typeof group === "object" && !Array.isArray(group)) (group as Record<string, unknown>).usageDataLevel = "off";
  }
  if (JSON.stringify(data) === before) return false;
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const changed = turnOffOfficeAddinUsageData();
  console.log(`office-addin usage data: off (${USAGE_DATA_FILE}${changed ? " written" : " already says so"})`);
}
