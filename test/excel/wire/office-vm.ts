// Microsoft's own Excel request serializer (the excel-web debug script of @microsoft/office-js) in a Node vm, its requests answered by a WireHost and every context.sync measured.
import { readFileSync } from "node:fs";
import { createContext, runInContext } from "node:vm";
import type { WireHost } from "./wire-host";

/** Found as Node finds a package (not by a path from this file), so it loads from Stryker's sandbox copy too, which has no node_modules of its own. */
const SCRIPT = require.resolve("@microsoft/office-js/dist/excel-web-16.00.debug.js");
const SESSION_URL = "https://excel.meter.invalid/";

/** One context.sync as it went over the wire. */
export interface SyncRecord {
  /** Bytes of the request body (JSON), as Office.js sends it. */
  requestBytes: number;
  /** Bytes of the response body (JSON). */
  responseBytes: number;
  /** Bytes of an answer Excel on the web would refuse (over 5 MB; the response is then its error), else 0. */
  refusedBytes: number;
  actions: number;
  /** The request flags (64 = delayForCellEdit). */
  flags: number;
  /** Set by label(): the scenario step this sync belongs to. */
  label: string;
}

type Namespaces = { Excel: typeof Excel; OfficeExtension: typeof OfficeExtension };

let compiled: string | null = null;
/** Excel on the web's limit on a request or a response. */
export const EXCEL_WEB_LIMIT_BYTES = 5 * 1024 * 1024;

/** A fresh vm with the excel-web script loaded; each meter gets its own (the script keeps global state). */
function loadScript(): Namespaces {
  compiled ??= readFileSync(SCRIPT, "utf8");
  const noop = () => undefined;
  const sandbox: Record<string, unknown> = {
    console: { log: noop, warn: noop, error: noop, info: noop, debug: noop },
    setTimeout,
    clearTimeout,
    Promise,
    navigator: { userAgent: "node" },
    location: { href: "https://localhost/", search: "", hash: "" },
    document: {
      addEventListener: noop,
      readyState: "complete",
      getElementsByTagName: () => [],
      createElement: () => ({ style: {}, setAttribute: noop, appendChild: noop }),
    },
  };
  sandbox.window = sandbox;
  sandbox.self = sandbox;
  sandbox.globalThis = sandbox;
  createContext(sandbox);
  runInContext(compiled, sandbox, { filename: "excel-web-16.00.debug.js" });
  return { Excel: sandbox.Excel as typeof Excel, OfficeExtension: sandbox.OfficeExtension as typeof OfficeExtension };
}

/**
 * Runs batches through the real serializer against a host: `excel.run` is what the adapters take as their Excel
 * namespace (options such as delayForCellEdit are passed through), `syncs` what every context.sync carried.
 */
export class OfficeMeter {
  readonly syncs: SyncRecord[] = [];
  readonly Excel: typeof Excel;
  private current = "";

  constructor(readonly host: WireHost) {
    const ns = loadScript();
    this.Excel = ns.Excel;
    const http = (ns.OfficeExtension as unknown as { HttpUtility: { setCustomSendRequestFunc(f: unknown): void } }).HttpUtility;
    http.setCustomSendRequestFunc(async (request: { url: string; body: unknown }) => {
      const body = typeof request.body === "string" ? request.body : JSON.stringify(request.body);
      const answer = JSON.stringify(host.execute(JSON.parse(body)));
      const flags = Number(/flags=(\d+)/.exec(request.url)?.[1] ?? 0);
      const actions = (JSON.parse(body) as { Actions?: unknown[] }).Actions?.length ?? 0;
      const refused = Buffer.byteLength(answer) > EXCEL_WEB_LIMIT_BYTES;
      // Excel on the web answers a response over its limit with an error, as Office.js parses it (no values).
      const sent = refused
        ? JSON.stringify({
            error: { code: "ResponsePayloadSizeLimitExceeded", message: "The response payload size has exceeded the limit." },
          })
        : answer;
      this.syncs.push({
        requestBytes: Buffer.byteLength(body),
        responseBytes: Buffer.byteLength(sent),
        refusedBytes: refused ? Buffer.byteLength(answer) : 0,
        actions,
        flags,
        label: this.current,
      });
      return { statusCode: refused ? 413 : 200, headers: { "content-type": "application/json" }, body: sent };
    });
  }

  /** What the adapters get as `Excel`: run(batch) or run(options, batch), through the serializer. */
  get excel(): Pick<typeof Excel, "run"> {
    const Excel = this.Excel;
    const run = (a: unknown, b?: unknown) =>
      typeof a === "function"
        ? Excel.run({ session: SESSION_URL } as Excel.RunOptions, a as (c: Excel.RequestContext) => Promise<unknown>)
        : Excel.run({ ...(a as object), session: SESSION_URL } as Excel.RunOptions, b as (c: Excel.RequestContext) => Promise<unknown>);
    return { run } as unknown as Pick<typeof Excel, "run">;
  }

  /** run(batch) alone, for the snapshot and recon writers. */
  get runner(): <T>(batch: (context: Excel.RequestContext) => Promise<T>) => Promise<T> {
    return (batch) => this.Excel.run({ session: SESSION_URL } as Excel.RunOptions, batch);
  }

  /** Names the syncs that follow (a scenario step). */
  label(name: string): void {
    this.current = name;
  }

  /** The syncs of one label (or all). */
  of(label?: string): SyncRecord[] {
    return label === undefined ? this.syncs : this.syncs.filter((s) => s.label === label);
  }

  /** The largest request and response of some syncs. */
  static largest(syncs: readonly SyncRecord[]): { request: number; response: number; syncs: number; total: number } {
    return {
      request: Math.max(0, ...syncs.map((s) => s.requestBytes)),
      response: Math.max(0, ...syncs.map((s) => s.responseBytes)),
      syncs: syncs.length,
      total: syncs.reduce((n, s) => n + s.requestBytes + s.responseBytes, 0),
    };
  }
}
