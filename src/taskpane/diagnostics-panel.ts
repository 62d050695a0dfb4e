// The help area's Copy diagnostics button: gathers the facts (connection, learned rate, errors, this computer's journal, Office), builds the report (diagnostics.ts) and copies it, or shows it to copy by hand.
import packageJson from "../../package.json";
import { loadSettings } from "../feeds/connection";
import type { SettingsStore } from "../feeds/settings-store";
import { intentScope, type IntentStore } from "../trading/intent-store";
import type { IntentStatus } from "../trading/types";
import type { ConnectionController } from "./connection-controller";
import { diagnosticsReport, type DiagnosticFacts, type ErrorLog, type OfficeFacts } from "./diagnostics";
import { byId } from "./dom";

interface DiagnosticsPanelDeps {
  controller: ConnectionController;
  store: SettingsStore;
  /** This computer's journal once the pane has loaded it (its counts are left out before). */
  intentStore: () => IntentStore | null;
  errors: ErrorLog;
  /** Office's facts (the entry file reads them); null outside Office. */
  officeFacts: () => OfficeFacts | null;
  /** The clipboard; absent or refusing (a host's webview may), the report is shown to copy by hand. */
  writeClipboard?: (text: string) => Promise<void>;
  now?: () => number;
}

async function journalCounts(intentStore: IntentStore, scope: string): Promise<Partial<Record<IntentStatus, number>>> {
  const counts: Partial<Record<IntentStatus, number>> = {};
  for (const entry of await intentStore.load(scope)) {
    const status = entry.record.status as IntentStatus;
    counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

function originOrNull(url: string): string | null {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
}

/** The report as the pane makes it now. */
export async function currentReport(deps: DiagnosticsPanelDeps): Promise<string> {
  const state = deps.controller.current;
  const origin = originOrNull(state.baseUrl);
  const connected = state.status === "connected" ? state : null;
  const journal = deps.intentStore();
  const facts: DiagnosticFacts = {
    version: packageJson.version,
    office: deps.officeFacts(),
    outsideOffice: "a browser (development harness)",
    connection: {
      status: state.status,
      environment: state.status === "disconnected" ? null : state.environment,
      serviceOrigin: origin,
      errorCode: state.status === "disconnected" ? (state.error?.code ?? null) : null,
    },
    flow: connected ? connected.client.flowState() : null,
    errors: deps.errors.list(),
    journal:
      connected && journal
        ? await journalCounts(journal, intentScope(connected.environment, connected.account.account_address ?? null)).catch(() => null)
        : null,
    now: new Date((deps.now ?? Date.now)()),
  };
  const { apiKey } = await loadSettings(deps.store, "").catch(() => ({ apiKey: null }));
  return diagnosticsReport(facts, apiKey ?? null);
}

/** Wires the button; the status line says what happened, and the text box holds the report when the clipboard refused it. */
export function mountDiagnosticsPanel(deps: DiagnosticsPanelDeps): void {
  const button = byId("copy-diagnostics");
  const status = byId("diagnostics-status");
  const box = byId("diagnostics-text") as HTMLTextAreaElement;
  const write = deps.writeClipboard ?? ((text: string) => navigator.clipboard.writeText(text));
  button.addEventListener("click", () => {
    void (async () => {
      const report = await currentReport(deps);
      box.value = report;
      try {
        await write(report);
        box.hidden = true;
        status.textContent = `Copied the diagnostics (${report.split("\n").length - 1} lines) to the clipboard: paste them into your message to support.`;
      } catch {
        box.hidden = false;
        box.select();
        status.textContent =
          "The clipboard is not available here: the diagnostics are in the box below, selected; press Ctrl+C (Cmd+C on a Mac).";
      }
    })();
  });
}
