// Runs every benchmark in test/bench (files named *.bench.ts, each exporting `run()`), or those named on the command line.
import { readdirSync } from "node:fs";
import { join } from "node:path";

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith(".bench.ts"))
    .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
    .sort();
  for (const file of files) {
    console.log(`\n=== ${file.replace(/\.bench\.ts$/, "")} ===`);
    const bench = (await import(join(__dirname, file))) as { run: () => Promise<void> };
    await bench.run();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
