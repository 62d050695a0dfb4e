// The trade panel: mounts its parts (the Action choice, Propose, Read selection, Preview, Confirm or Submit for approval, send progress) and is what the workspace drives: the desk, progress, errors and the rule of direct sending.
import type { Side } from "../api/schemas";
import type { Preview, Progress } from "../trading/types";
import type { TradingDesk } from "../trading/desk/contract";
import type { ErrorView } from "./connection-controller";
import { mountActionChoice } from "./action-choice";
import { mountPropose, type ProposeDependencies } from "./propose-control";
import { makeCore, panelElements } from "./trade-elements";
import { mountPreviewing, mountReading, mountSending, mountSubmitting, updateConfirm } from "./trade-flow";
import { progressModel } from "./trade-model";

export interface TradePanel {
  /** Propose again from the last proposal's exposures and policy (the overview's Propose beside a maturing side). */
  /** Propose again from the last proposal's inputs; `only`: one market side's rows (Propose beside that side). */
  proposeAgain(only?: { market: string; side: Side }): Promise<void>;
  /** The desk to use (null when not connected). */
  setDesk(desk: TradingDesk | null): void;
  /** Feeds the engine's progress callbacks into the progress bar and the per-row list. */
  onProgress(progress: Progress): void;
  showError(error: ErrorView): void;
  /** Why the pane will not send directly now (a read-only key; a LIVE key under the workbook's rule), or null. */
  setDirectRefusal(reason: string | null): void;
  /** Submit for approval: takes the rows that would be sent and says where they went; null hides the button. */
  setSubmitter(submit: ((preview: Preview) => Promise<string>) | null): void;
}

export function mountTradePanel(propose?: ProposeDependencies): TradePanel {
  const els = panelElements();
  const core = makeCore(els);
  const proposer = propose ? mountPropose(els, propose, core) : null;
  els.proposeButton.hidden = !proposer;
  const choice = mountActionChoice(els, () => {
    core.clearRead();
    choice.show(choice.action());
  });
  mountReading(core, choice);
  mountPreviewing(core);
  const upsertRow = mountSending(core);
  mountSubmitting(core);

  const panel: TradePanel = {
    proposeAgain: async (only) => proposer?.again(only),
    setDesk(next) {
      core.desk = next;
      core.clearRead();
      proposer?.reset();
      els.readButton.toggleAttribute("disabled", !next);
      els.proposeButton.toggleAttribute("disabled", !next);
    },
    onProgress(progress) {
      upsertRow(progress.row);
      const m = progressModel(progress);
      els.progressBar.hidden = false;
      els.progressBar.max = 100;
      els.progressBar.value = m.percent;
      els.progressBar.setAttribute("aria-valuetext", m.text);
      els.progressText.textContent = m.text;
    },
    showError: (error) => core.showError(error),
    setDirectRefusal(reason) {
      // Told on every change of the connection (the account's figures too): the confirmation is redrawn only when the reason changes.
      if (reason === core.directRefusal) return;
      core.directRefusal = reason;
      updateConfirm(core);
    },
    setSubmitter(submit) {
      core.submitter = submit;
      updateConfirm(core);
    },
  };
  panel.setDesk(null);
  return panel;
}
