// The workbench of the pane in Excel (its own chunk, loaded when the pane first connects): the Office.js workbook, this computer's journal, the recon sheet writer, the snapshotter, the workbook's rules, and the desk.
import { OfficeWorkbook } from "../excel/office-workbook";
import { officeSheetWriter } from "../excel/recon-sheet";
import { officeSnapshotter } from "../excel/snapshot";
import { officeIntentStore, storageApprovalJournal } from "../excel/intent-store";
import { officeDocumentRules } from "../excel/document-settings";
import { createDesk } from "../trading/desk";
import type { Workbench } from "./workspace";

export function officeWorkbench(): Workbench {
  return {
    workbook: new OfficeWorkbook(),
    createDesk,
    intentStore: officeIntentStore(),
    approvalJournal: storageApprovalJournal(),
    reconWriter: officeSheetWriter(),
    snapshotter: officeSnapshotter(),
    rules: officeDocumentRules(),
  };
}
