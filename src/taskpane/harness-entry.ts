// Entry module of development and test builds only (webpack puts it before taskpane.ts): outside Office, ?harness=memory runs the pane on the memory harness and exposes window.hedgeHarness; ?smoke=PORT runs the smoke script (in Excel or the harness) and posts to Microsoft's test server.
import { pingTestServer, sendTestResults } from "office-addin-test-helpers";
import { MemorySheetWriter } from "../excel/recon-sheet";
import { memoryDocumentRules } from "../excel/document-settings";
import { MemoryFormulas } from "../excel/memory-formulas";
import type { MemoryWorkbook } from "../excel/memory-workbook";
import { officeSmokeSheet, SMOKE_SHEET } from "../excel/smoke-sheet";
import { officeSnapshotter } from "../excel/snapshot";
import { DEFAULT_BASE_URL } from "../feeds/connection";
import { memoryApprovalJournal } from "../excel/intent-store";
import { createDesk } from "../trading/desk";
import { createHarness, wantsHarness } from "./harness";
import { registerSmoke, registerStandIn } from "./outside-office";
import { runSmoke, type SmokeSheet } from "./smoke-script";
import type { Snapshotter } from "../monthend/snapshot-plan";

/** The sandbox's documented demo key (src/sandbox/README.md): the only key the smoke run uses. */
const SANDBOX_DEMO_KEY = "svc_test_demo_sandbox_key_0001";

let harnessWorkbook: MemoryWorkbook | null = null;

registerStandIn((search) => {
  if (!wantsHarness(search, null)) return null;
  const harness = createHarness();
  harnessWorkbook = harness.workbook;
  window.hedgeHarness = harness.api;
  document.documentElement.dataset.mode = "harness";
  const workbench = {
    workbook: harness.workbook,
    createDesk,
    intentStore: harness.intentStore,
    approvalJournal: memoryApprovalJournal(harness.intentStore),
    // The recon sheet lands in the memory workbook (window.hedgeHarness.cells reads it); no formulas, so no snapshot.
    reconWriter: new MemorySheetWriter(harness.workbook),
    snapshotter: null,
    // "LIVE trades need approval" lands in the memory workbook's document settings (window.hedgeHarness.documentSettings).
    rules: memoryDocumentRules(harness.workbook.documentSettings),
  };
  return { store: harness.store, workbench: () => Promise.resolve(workbench) };
});

/** The smoke sheet in the memory workbook: its HEDGE.* formulas calculated by the functions as the page registered them. */
function memorySmokeSheet(workbook: MemoryWorkbook): { sheet: SmokeSheet; snapshotter: Snapshotter } {
  workbook.setSheet(SMOKE_SHEET, [[null]]);
  const formulas = new MemoryFormulas(workbook, SMOKE_SHEET);
  return {
    sheet: {
      prepare: async () => undefined,
      writeRows: async (rows, select) => {
        workbook.writeRaw(SMOKE_SHEET, 0, 0, rows);
        workbook.select(SMOKE_SHEET, select);
      },
      enter: async (address, formula) => formulas.enter(address, formula),
      shown: async (address) => formulas.shown(address),
      formulas: async () => formulas.formulas(),
    },
    snapshotter: formulas.snapshotter(),
  };
}

registerSmoke(({ search, host, deps }) => {
  const params = new URLSearchParams(search);
  const port = Number(params.get("smoke"));
  if (!Number.isInteger(port) || port <= 0) return null;
  const inExcel = host === "Excel";
  const memory = !inExcel && harnessWorkbook ? memorySmokeSheet(harnessWorkbook) : null;
  const office = inExcel ? officeSmokeSheet() : null;
  const sheet = memory?.sheet ?? office;
  const snapshotter = memory?.snapshotter ?? (inExcel ? officeSnapshotter() : null);
  if (!sheet || !snapshotter) return null;
  return async () => {
    document.documentElement.dataset.smoke = "running";
    // As Microsoft's sample: ping the test server first, run, post every observation at once, close the workbook.
    await pingTestServer(port);
    const observations = await runSmoke({
      sheet,
      snapshotter,
      readLog: async () => (await deps.workbench()).workbook.readLog(),
      apiKey: SANDBOX_DEMO_KEY,
      baseUrl: params.get("smoke-service") ?? DEFAULT_BASE_URL,
      onObservation: (o) => console.info(`smoke: ${o.Name} ${JSON.stringify(o.Value)}`),
    }).catch((e: unknown) => [{ Name: "SCRIPT", Value: { error: String(e) } }]);
    const sent = await sendTestResults(observations, port);
    document.documentElement.dataset.smoke = sent ? "sent" : "not-sent";
    if (inExcel) await office?.close().catch(() => undefined);
  };
});
