// Where desktop Excel is on this computer (Windows or Mac), or why the smoke run cannot use one here; and how to close it afterwards.
import { spawnSync } from "child_process";
import fs from "fs";

const WINDOWS_EXCEL = ["ProgramFiles", "ProgramFiles(x86)", "ProgramW6432"].flatMap((v) =>
  ["Microsoft Office\\root\\Office16\\EXCEL.EXE", "Microsoft Office\\Office16\\EXCEL.EXE"].map((rel) => ({ v, rel })),
);
const MAC_EXCEL = "/Applications/Microsoft Excel.app";

/** Excel's path, or the reason the run is skipped ("no desktop Excel on Linux", "CI"). */
export function findDesktopExcel(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  exists: (p: string) => boolean = fs.existsSync,
): { excel: string } | { skip: string } {
  if (env.CI) return { skip: "CI is set: build agents have no desktop Excel to sideload into" };
  if (platform === "darwin")
    return exists(MAC_EXCEL) ? { excel: MAC_EXCEL } : { skip: `no desktop Excel on this Mac (${MAC_EXCEL} not found)` };
  if (platform === "win32") {
    const found = WINDOWS_EXCEL.map(({ v, rel }) => (env[v] ? `${env[v]}\\${rel}` : null)).find(
      (p): p is string => p !== null && exists(p),
    );
    return found ? { excel: found } : { skip: "no desktop Excel on this PC (EXCEL.EXE not found under Program Files\\Microsoft Office)" };
  }
  return { skip: `no desktop Excel on ${platform === "linux" ? "Linux" : platform}: run it on a Windows PC or a Mac with Excel` };
}

/** Closes Excel as Microsoft's sample does (after the add-in closed its workbook without saving). */
export function closeExcel(platform: NodeJS.Platform = process.platform): boolean {
  const result =
    platform === "win32"
      ? spawnSync("taskkill", ["/IM", "EXCEL.EXE"], { stdio: "ignore" })
      : spawnSync("osascript", ["-e", 'quit app "Microsoft Excel" saving no'], { stdio: "ignore" });
  return result.status === 0;
}
