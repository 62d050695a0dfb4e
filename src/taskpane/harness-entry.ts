// Entry module of development and test builds only (webpack puts it before taskpane.ts): outside Office, ?harness=memory runs the pane on the memory harness and exposes window.hedgeHarness.
import { MemorySheetWriter } from "../excel/recon-sheet";
import { memoryDocumentRules } from "../excel/document-settings";
import { createDesk } from "../trading/desk";
import { createHarness, wantsHarness } from "./harness";
import { registerStandIn } from "./outside-office";

registerStandIn((search) => {
  if (!wantsHarness(search, null)) return null;
  const harness = createHarness();
  window.hedgeHarness = harness.api;
  document.documentElement.dataset.mode = "harness";
  const workbench = {
    workbook: harness.workbook,
    createDesk,
    intentStore: harness.intentStore,
    // The recon sheet lands in the memory workbook (window.hedgeHarness.cells reads it); no formulas, so no snapshot.
    reconWriter: new MemorySheetWriter(harness.workbook),
    snapshotter: null,
    // "LIVE trades need approval" lands in the memory workbook's document settings (window.hedgeHarness.documentSettings).
    rules: memoryDocumentRules(harness.workbook.documentSettings),
  };
  return { store: harness.store, workbench: () => Promise.resolve(workbench) };
});
