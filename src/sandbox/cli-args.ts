// Command-line parsing of `npm run sandbox -- [options]` into SandboxOptions.
import { FAULT_CODES, type FaultPatch } from "./faults";
import type { SandboxOptions } from "./server";

export const USAGE = `Usage: npm run sandbox -- [options]

  --port N               TCP port (default 4010; 0 = any free port)
  --host H               interface to bind (default 127.0.0.1)
  --http                 plain HTTP instead of HTTPS (loopback tests and tools)
  --accounts FILE        accounts JSON ({"accounts":[...]}); default src/sandbox/default-accounts.json
  --state FILE           keep the whole state in FILE across restarts (written atomically before a change
                         is answered; FILE.lock keeps a second sandbox off the same file)
  --seed N               seed of the price walk and fill failures (default 1)
  --fill-ms N            submission to fill, in sandbox-clock ms (default 1500)
  --fail-rate P          probability that an open fails at fill, 0..1 (default 0)
  --spot X               USDTNGN mid rate at start (default 1500)
  --allow-origin URL     CORS origin allowed besides loopback ones (repeatable)
Faults at start (all also switchable at run time through POST /_sandbox/faults):
  --latency-ms N         add N ms to every /v2 request
  --fail-next N[:CODE]   fail the next N /v2 requests with a 5xx CODE (default service_unavailable)
  --drop-after-commit N  commit the next N state-changing requests, then drop the connection unanswered
  --rate-limit-next N    answer the next N /v2 requests 429 rate_limited
  --stall-fills          submitted orders do not fill until fills are resumed
  --price-unavailable    the price feed is down (503 price_unavailable)
  --help                 this text`;

export class UsageError extends Error {}

function int(name: string, value: string, min = 0): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${name} needs a whole number >= ${min}, got "${value}"`);
  return n;
}

function num(name: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < min || n > max)
    throw new UsageError(`${name} needs a number from ${min} to ${max}, got "${value}"`);
  return n;
}

export interface CliOptions extends SandboxOptions {
  help?: boolean;
}

/** A fault switched on at start (`--latency-ms`, `--fail-next`, …) into `faults`; false when `name` is not one. */
function faultOption(name: string, value: () => string, faults: FaultPatch): boolean {
  switch (name) {
    case "--latency-ms":
      faults.latency_ms = int(name, value());
      return true;
    case "--fail-next": {
      const [count, code] = value().split(":");
      if (code !== undefined && !(FAULT_CODES as string[]).includes(code))
        throw new UsageError(`--fail-next code must be one of ${FAULT_CODES.join(", ")}`);
      faults.fail_next = { count: int(name, count, 1), code: (code ?? "service_unavailable") as (typeof FAULT_CODES)[number] };
      return true;
    }
    case "--drop-after-commit":
      faults.drop_after_commit = int(name, value());
      return true;
    case "--rate-limit-next":
      faults.rate_limit_next = int(name, value());
      return true;
    case "--stall-fills":
      faults.stall_fills = true;
      return true;
    case "--price-unavailable":
      faults.price_unavailable = true;
      return true;
    default:
      return false;
  }
}

export function parseArgs(argv: string[]): CliOptions {
  const options: CliOptions = {};
  const faults: FaultPatch = {};
  const origins: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith("--") && eq > 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[++i];
      if (next === undefined) throw new UsageError(`${name} needs a value`);
      return next;
    };
    switch (name) {
      case "--help":
      case "-h":
        options.help = true;
        break;
      case "--port":
        options.port = int(name, value());
        if (options.port > 65535) throw new UsageError("--port must be at most 65535");
        break;
      case "--host":
        options.host = value();
        break;
      case "--http":
        options.http = true;
        break;
      case "--accounts":
        options.accountsFile = value();
        break;
      case "--state":
        options.stateFile = value();
        break;
      case "--seed":
        options.seed = int(name, value());
        break;
      case "--fill-ms":
        options.fillMs = int(name, value());
        break;
      case "--fail-rate":
        options.failRate = num(name, value(), 0, 1);
        break;
      case "--spot":
        options.spot = num(name, value(), 1e-9, 1e12);
        break;
      case "--allow-origin":
        origins.push(value());
        break;
      default:
        if (!faultOption(name, value, faults)) throw new UsageError(`unknown option ${arg}`);
    }
  }
  if (Object.keys(faults).length > 0) options.faults = faults;
  if (origins.length > 0) options.allowedOrigins = origins;
  return options;
}
