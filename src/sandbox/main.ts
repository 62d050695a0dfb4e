// CLI entry of `npm run sandbox`: starts the sandbox, prints "listening on <base url>" and the keys it serves, stops on Ctrl-C.
import { maskKey } from "../api/environment";
import { parseArgs, USAGE, UsageError } from "./cli-args";
import { startSandbox, type RunningSandbox, type ServedKey } from "./server";

function keyLine(k: ServedKey): string {
  const shown = k.demo ? k.api_key : maskKey(k.api_key);
  const notes = [k.environment, k.scopes.join("+") || "no scopes", k.revoked ? "REVOKED" : ""].filter(Boolean).join(", ");
  return `    ${shown.padEnd(34)} ${notes}${k.label ? ` — ${k.label}` : ""}`;
}

async function main(): Promise<void> {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`sandbox: ${e.message}\n\n${USAGE}`);
      process.exit(2);
    }
    throw e;
  }
  if (options.help) {
    console.log(USAGE);
    return;
  }

  let sandbox: RunningSandbox;
  try {
    sandbox = await startSandbox({ ...options, log: (line) => console.error(`sandbox: ${line}`) });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "EADDRINUSE") console.error(`sandbox: port ${options.port ?? 4010} is in use; pass --port N (0 picks a free port).`);
    else console.error(`sandbox: ${err.message}`);
    process.exit(1);
  }

  const lines = [
    `Hedge sandbox (Hedging Service v2 emulator) listening on ${sandbox.baseUrl}`,
    `  control API: ${sandbox.controlUrl}  (faults, clock, reset, state; loopback only)`,
    `  control token: ${sandbox.controlToken}  (X-Sandbox-Token header, needed to read state and accounts or add them; new at every start)`,
    `  fills after ${sandbox.engine.fillMs} ms, fail rate ${sandbox.engine.failRate}, seed ${sandbox.engine.seed}, state ${options.stateFile ?? "in memory"}`,
    `  keys served:`,
    ...sandbox.keys.map(keyLine),
  ];
  console.log(lines.join("\n"));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`sandbox: ${signal}, stopping${options.stateFile ? ` (state saved to ${options.stateFile})` : ""}`);
    void sandbox.close().then(() => process.exit(0));
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

void main();
