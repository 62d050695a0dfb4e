// Copy diagnostics, as plain logic: the pane's last errors (codes and times only), the facts support needs, and the plain-text report built from them with no key, amount, client reference or account address in it.
import { ERROR_CODES } from "../api/errors";
import { redactKey } from "../api/redact";
import type { FlowState } from "../api/throttle";
import { INTENT_STATUSES, type IntentStatus } from "../trading/types";

/**
 * The requirement sets the add-in uses, each once: manifest.xml's <Requirements> and every isSetSupported call in src/
 * (test/taskpane/diagnostics.test.ts reads both and fails when one is missing here).
 */
export const REQUIREMENT_SETS: ReadonlyArray<{ name: string; version: string; why: string }> = [
  { name: "SharedRuntime", version: "1.1", why: "manifest: one page for the pane and the functions" },
  { name: "CustomFunctionsRuntime", version: "1.3", why: "manifest: error messages in cells" },
  { name: "ExcelApi", version: "1.9", why: "manifest: the Hedge Log table and the selection" },
  { name: "ExcelApi", version: "1.10", why: "snapshot: a comment on each replaced cell" },
  { name: "ExcelApi", version: "1.12", why: "snapshot: spills" },
  { name: "ExcelApi", version: "1.18", why: "snapshot: a note on each replaced cell" },
];

/** How many errors the report lists (the newest). */
const ERROR_LOG_SIZE = 50;

interface LoggedError {
  /** ISO 8601 UTC. */
  at: string;
  /** Where the pane met it: connection, trade, row, workbook, page. */
  where: string;
  /** The error's code (network_error, insufficient_scope, …); "other" when what was given is not a plain code. */
  code: string;
}

/** The pane's own codes (connection-controller.ts, the desk's errors, the approvals), beside the service's and the client's. */
const PANE_CODES = [
  "approval_refused",
  "confirm_nothing_shown",
  "cors_blocked",
  "key_origin_mismatch",
  "origin_not_allowed",
  "redirected",
  "selection",
  "unexpected_error",
];
/** The codes a report shows by name; any other text given as a code (it could carry a deal id or an amount) is "other". */
const KNOWN_CODES: ReadonlySet<string> = new Set([...ERROR_CODES, ...PANE_CODES]);
const WHERE = new Set(["connection", "trade", "row", "workbook", "page"]);

/** The pane's last errors: only their code, where and when, never their message (which may name an amount or a deal). */
export class ErrorLog {
  private readonly entries: LoggedError[] = [];

  constructor(
    private readonly size = ERROR_LOG_SIZE,
    private readonly now: () => number = Date.now,
  ) {}

  record(where: string, code: string | null | undefined): void {
    if (!code) return;
    this.entries.push({
      at: new Date(this.now()).toISOString(),
      where: WHERE.has(where) ? where : "other",
      code: KNOWN_CODES.has(code) ? code : "other",
    });
    if (this.entries.length > this.size) this.entries.splice(0, this.entries.length - this.size);
  }

  /** Oldest first. */
  list(): LoggedError[] {
    return [...this.entries];
  }
}

/** What Office says of itself (Office.context.diagnostics and requirements), read by the entry file; null outside Office. */
export interface OfficeFacts {
  host: string;
  platform: string;
  version: string;
  /** Whether the host supports each of REQUIREMENT_SETS, as "ExcelApi 1.12" → true. */
  supports: Record<string, boolean>;
}

export interface DiagnosticFacts {
  version: string;
  office: OfficeFacts | null;
  /** What the page runs on when Office is absent ("the memory harness in a browser"). */
  outsideOffice?: string;
  connection: {
    status: "disconnected" | "connecting" | "connected";
    environment: string | null;
    /** The service's origin (scheme, host and port): never a path, a query or user-info. */
    serviceOrigin: string | null;
    /** The code of the last connection error, if disconnected by one. */
    errorCode: string | null;
  };
  flow: FlowState | null;
  errors: readonly LoggedError[];
  /** This computer's journal for the connected account, counted by status; null when not connected. */
  journal: Partial<Record<IntentStatus, number>> | null;
  now: Date;
}

const setLabel = (s: { name: string; version: string }) => `${s.name} ${s.version}`;
const rate = (n: number) => `${n.toFixed(1)}/s`;
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

/** The report's lines, grouped as support reads them. */
function reportLines(f: DiagnosticFacts): string[] {
  const lines = ["Hedge for Excel diagnostics", `Made at: ${f.now.toISOString()} (UTC)`, `Add-in version: ${f.version}`];
  if (f.office) lines.push(`Office: host ${f.office.host}, platform ${f.office.platform}, version ${f.office.version}`);
  else lines.push(`Office: not running in Office (${f.outsideOffice ?? "a browser"})`);
  lines.push("", "Requirement sets the add-in uses:");
  for (const set of REQUIREMENT_SETS) {
    const supported = f.office ? f.office.supports[setLabel(set)] : undefined;
    const word = supported === undefined ? "unknown" : supported ? "supported" : "NOT supported";
    lines.push(`  ${setLabel(set)}: ${word} (${set.why})`);
  }
  const c = f.connection;
  lines.push("", `Connection: ${c.status}${c.environment ? ` (${c.environment})` : ""}`);
  if (c.serviceOrigin && ORIGIN.test(c.serviceOrigin)) lines.push(`  Service: ${c.serviceOrigin}`);
  if (c.errorCode) lines.push(`  Last connection error: ${KNOWN_CODES.has(c.errorCode) ? c.errorCode : "other"}`);
  if (f.flow) {
    const learned = f.flow.learnedLimitPerSecond === null ? "none yet (no 429 seen)" : rate(f.flow.learnedLimitPerSecond);
    lines.push(
      `  Request rate allowed now: ${rate(f.flow.ratePerSecond)}${f.flow.adaptive ? "" : " (fixed)"}; learned limit: ${learned}; ` +
        `429s in the last minute: ${f.flow.rateLimitedInLastMinute}; waiting: ${f.flow.waiting.trade} trade, ${f.flow.waiting.feed} feed`,
    );
  } else lines.push("  Request rate: no client (not connected)");
  lines.push("", `Errors (the last ${ERROR_LOG_SIZE}, newest first): ${f.errors.length}`);
  for (const e of [...f.errors].reverse().slice(0, ERROR_LOG_SIZE)) lines.push(`  ${e.at}  ${e.code}  (${e.where})`);
  lines.push("", "This computer's journal (the connected account's rows, by status):");
  if (!f.journal) lines.push("  not read: not connected");
  else lines.push(`  ${INTENT_STATUSES.map((s) => `${s} ${f.journal?.[s] ?? 0}`).join(", ")}`);
  return lines;
}

/** An account address (0x and 40 hex digits) or a transaction hash: masked wherever it would appear. */
const HEX_ADDRESS = /0x[0-9a-fA-F]{8,}/g;

/**
 * The plain-text report. Built only of versions, set names, codes, times, counts and rates, then scrubbed once more:
 * every echo of `apiKey` masked by redactKey and the mask itself removed (the report never shows any part of a key),
 * anything shaped like a key or an account address removed.
 */
export function diagnosticsReport(facts: DiagnosticFacts, apiKey: string | null): string {
  let text = reportLines(facts).join("\n");
  if (apiKey) text = redactKey(text, apiKey).split(apiKey).join("[key removed]");
  return `${text.replace(/svc_(?:test|live)_\S*/g, "[key removed]").replace(HEX_ADDRESS, "[address removed]")}\n`;
}
