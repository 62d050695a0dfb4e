// The trade panel's elements, found once, and the state its parts share (the desk, the rows read, the preview) with the busy line, the error box and the clearing of what was read and previewed.
import type { Preview, ReadResult } from "../trading/types";
import type { TradingDesk } from "../trading/desk/contract";
import type { ErrorView } from "./connection-controller";
import { renderError } from "./connection-panel";
import { byId } from "./dom";

/** The parts of the Fluent elements the panel touches. */
type ProgressElement = HTMLElement & { value: number | null; max: number | null };
type RadioGroupElement = HTMLElement & { value: string | null };

/** The panel's elements, found once. */
export function panelElements() {
  return {
    actionGroup: byId<RadioGroupElement>("action"),
    columnChoice: byId("action-column-choice"),
    help: byId("action-help"),
    readButton: byId("read-selection"),
    proposeButton: byId("propose"),
    proposeNote: byId("propose-note"),
    previewButton: byId("preview"),
    readSummaryHost: byId("read-summary"),
    problemsHost: byId("problems"),
    previewHost: byId("preview-area"),
    confirmButton: byId("confirm"),
    submitButton: byId("submit-approval"),
    cancelButton: byId("cancel-preview"),
    confirmNote: byId("confirm-note"),
    progressBar: byId<ProgressElement>("send-progress"),
    progressText: byId("progress-text"),
    statusList: byId("row-status"),
    errorHost: byId("trade-error"),
    busy: byId("trade-busy"),
    busyText: byId("trade-busy-text"),
    cancelPricing: byId("cancel-pricing"),
  };
}
export type Elements = ReturnType<typeof panelElements>;

/** What the panel's parts share: the desk, the rows read, the preview, the "send again" rows, and the panel-wide helpers. */
export interface PanelCore {
  els: Elements;
  desk: TradingDesk | null;
  read: ReadResult | null;
  preview: Preview | null;
  /** The preview being priced (Cancel aborts it). */
  pricing: AbortController | null;
  sendAgain: Set<number>;
  /** Why direct sending is refused (Confirm disabled, saying so), or null. */
  directRefusal: string | null;
  submitter: ((preview: Preview) => Promise<string>) | null;
  setBusy(text: string | null): void;
  showError(error: ErrorView | null): void;
  clearRead(): void;
  clearPreview(): void;
}

/** The busy line, the error box and the clearing of what was read and previewed. */
export function makeCore(els: Elements): PanelCore {
  const { readButton, proposeButton, readSummaryHost, problemsHost, previewButton, previewHost, confirmButton, cancelButton } = els;
  const core: PanelCore = {
    els,
    desk: null,
    read: null,
    preview: null,
    pricing: null,
    sendAgain: new Set<number>(),
    directRefusal: null,
    submitter: null,
    setBusy(text) {
      els.busy.hidden = text === null;
      els.busyText.textContent = text ?? "";
      readButton.toggleAttribute("disabled", text !== null || !core.desk);
      proposeButton.toggleAttribute("disabled", text !== null || !core.desk);
      if (text === null) els.cancelPricing.hidden = true;
    },
    showError: (error) => renderError(els.errorHost, error),
    clearPreview() {
      core.preview = null;
      core.sendAgain.clear();
      previewHost.replaceChildren();
      previewHost.hidden = true;
      confirmButton.hidden = true;
      els.submitButton.hidden = true;
      cancelButton.hidden = true;
      els.confirmNote.textContent = "";
    },
    clearRead() {
      core.read = null;
      readSummaryHost.textContent = "";
      problemsHost.replaceChildren();
      problemsHost.hidden = true;
      previewButton.hidden = true;
      core.clearPreview();
    },
  };
  return core;
}
