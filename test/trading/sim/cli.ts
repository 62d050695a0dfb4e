// `npm run sim -- --seeds 20000` runs that many seeds (from --from, default 1); `--seed N` replays one exactly, with its trace.
import { CHAIN_RESOLVES_WITHOUT_DECISION } from "./checker";
import { runSeed } from "./world";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const one = arg("seed");
  if (one !== undefined) {
    const result = await runSeed(Number(one), { trace: true });
    console.log(result.trace.join("\n"));
    console.log(JSON.stringify(result.stats));
    if (result.violations.length > 0) {
      console.log(`seed ${one}: ${result.violations.length} violation(s):\n  ${result.violations.join("\n  ")}`);
      process.exitCode = 1;
    } else console.log(`seed ${one}: every invariant holds.`);
    return;
  }
  const from = Number(arg("from") ?? 1);
  const seeds = Number(arg("seeds") ?? 1000);
  const started = performance.now();
  const totals: Record<string, number> = {};
  const failing: number[] = [];
  for (let seed = from; seed < from + seeds; seed++) {
    const result = await runSeed(seed);
    for (const [k, v] of Object.entries(result.stats)) totals[k] = (totals[k] ?? 0) + v;
    if (result.violations.length > 0) {
      failing.push(seed);
      console.log(`seed ${seed} FAILED (replay: npm run sim -- --seed ${seed}):\n  ${result.violations.slice(0, 5).join("\n  ")}`);
    }
    if ((seed - from + 1) % 1000 === 0)
      console.log(`${seed - from + 1} seeds, ${failing.length} failing, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  console.log(
    `${seeds} seeds from ${from} in ${((performance.now() - started) / 1000).toFixed(1)} s: ${failing.length} failing (CHAIN_RESOLVES_WITHOUT_DECISION ${CHAIN_RESOLVES_WITHOUT_DECISION ? "on" : "off"}).`,
  );
  console.log(JSON.stringify(totals));
  if (failing.length > 0) process.exitCode = 1;
}

void main();
