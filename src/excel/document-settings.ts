// The workbook's own rules kept in its document settings (saved inside the .xlsx): "LIVE trades need approval"; the Office.js store and an in-memory one.

/** The document setting's name (Office.context.document.settings); its value is true or false. */
export const LIVE_NEEDS_APPROVAL_SETTING = "hedge.liveTradesNeedApproval";

/**
 * The workbook's rules as the pane reads and changes them. They travel with the file (anyone who can edit the workbook can
 * change them): a convenience for the desk, not a control; the control is the API key's scopes.
 */
export interface DocumentRules {
  /** Whether the pane refuses direct LIVE trading in this workbook (only approved batches are sent). Off when never set. */
  liveNeedsApproval(): Promise<boolean>;
  /** Changes it and saves it in the workbook's settings. */
  setLiveNeedsApproval(on: boolean): Promise<void>;
}

/** true, "true" (a value written by hand or by another tool) is on; anything else, absent included, is off. */
function isOn(value: unknown): boolean {
  return value === true || (typeof value === "string" && value.trim().toLowerCase() === "true");
}

/** Office.context.document.settings: set, then saveAsync so that the value is in the file when the user saves it; a failed save puts the old value back. */
export function officeDocumentRules(settings: Office.Settings = Office.context.document.settings): DocumentRules {
  return {
    liveNeedsApproval: () => Promise.resolve(isOn(settings.get(LIVE_NEEDS_APPROVAL_SETTING))),
    setLiveNeedsApproval(on) {
      const before: unknown = settings.get(LIVE_NEEDS_APPROVAL_SETTING);
      settings.set(LIVE_NEEDS_APPROVAL_SETTING, on);
      return new Promise((resolve, reject) =>
        settings.saveAsync((result) => {
          if (result.status === Office.AsyncResultStatus.Succeeded) return resolve();
          if (before === null || before === undefined) settings.remove(LIVE_NEEDS_APPROVAL_SETTING);
          else settings.set(LIVE_NEEDS_APPROVAL_SETTING, before);
          reject(new Error(`The workbook's settings could not be saved: ${result.error?.message ?? "no reason given"}.`));
        }),
      );
    },
  };
}

/** Over a map of document settings (the memory workbook's `documentSettings`, so the harness shows what a file would hold). */
export function memoryDocumentRules(settings: Map<string, string> = new Map()): DocumentRules {
  return {
    liveNeedsApproval: () => Promise.resolve(isOn(settings.get(LIVE_NEEDS_APPROVAL_SETTING))),
    setLiveNeedsApproval(on) {
      settings.set(LIVE_NEEDS_APPROVAL_SETTING, String(on));
      return Promise.resolve();
    },
  };
}
