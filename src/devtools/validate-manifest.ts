// `npm run validate`: offline check of manifest.xml against dist/ and src/functions (runs a development build first if dist/ has none).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { checkManifest, declaredCustomFunctionIds } from "./manifest-check";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DIST = join(ROOT, "dist");
const FUNCTIONS_DIR = join(ROOT, "src", "functions");
const WEBPACK = join(ROOT, "node_modules", "webpack", "bin", "webpack.js");

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : [relative(DIST, full).split(sep).join("/")];
  });
}

function main(): number {
  const functionsJsonPath = join(DIST, "functions.json");
  if (!existsSync(functionsJsonPath)) {
    console.log("dist/functions.json not found: building first (webpack --mode development)");
    const build = spawnSync(process.execPath, [WEBPACK, "--mode", "development"], { cwd: ROOT, stdio: "inherit" });
    if (build.status !== 0 || !existsSync(functionsJsonPath)) {
      console.error("✖ the build failed, so the manifest cannot be checked against dist/ (run npm run build:dev to see why)");
      return 1;
    }
  }

  const manifestXml = readFileSync(join(ROOT, "manifest.xml"), "utf8");
  const distFiles = listFiles(DIST);
  let functionsJson: unknown;
  try {
    functionsJson = JSON.parse(readFileSync(functionsJsonPath, "utf8"));
  } catch (err) {
    console.error(`✖ dist/functions.json is not valid JSON: ${(err as Error).message}`);
    return 1;
  }
  const sources = readdirSync(FUNCTIONS_DIR).filter(
    (name) => name.endsWith(".ts") && !name.endsWith(".d.ts") && !name.endsWith(".test.ts"),
  );
  const declaredIds = sources.flatMap((name) => declaredCustomFunctionIds(readFileSync(join(FUNCTIONS_DIR, name), "utf8")));

  const problems = checkManifest(manifestXml, distFiles, functionsJson, declaredIds);
  if (problems.length > 0) {
    for (const { code, message } of problems) console.error(`✖ [${code}] ${message}`);
    console.error(
      `manifest.xml: ${problems.length} problem${problems.length === 1 ? "" : "s"} (offline check; npm run validate:online asks Microsoft's validator)`,
    );
    return 1;
  }
  console.log(
    `✔ manifest.xml: resids resolve, URLs are https and built (dist/ has ${distFiles.length} files), namespace HEDGE, ` +
      `functions.json matches @customfunction ids (${declaredIds.join(", ") || "none"})`,
  );
  return 0;
}

process.exitCode = main();
