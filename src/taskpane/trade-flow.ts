// The trade panel's flow from the selection to the service: Read selection, Preview (streamed, cancellable), Confirm (twice for LIVE) and send with progress row by row, or Submit for approval.
import type { Preview, ReadResult, RowStatus } from "../trading/types";
import { errorView } from "./connection-controller";
import { focusWhenReady, h } from "./dom";
import { plural } from "./format";
import { askLiveConfirmation } from "./live-dialog";
import { previewNodes } from "./preview-table";
import type { ActionChoice } from "./action-choice";
import type { PanelCore } from "./trade-elements";
import { confirmation, pricingText, readSummary, rowStatusText, sendPlan, statusTone } from "./trade-model";

/** Read selection: the rows for the chosen action (or the Action column's), the problems listed by row. */
export function mountReading(core: PanelCore, choice: ActionChoice): void {
  const { readButton, readSummaryHost, problemsHost, previewButton } = core.els;
  const renderRead = (result: ReadResult) => {
    const summary = readSummary(result);
    readSummaryHost.textContent = summary.headline;
    problemsHost.hidden = summary.problems.length === 0;
    problemsHost.replaceChildren(
      ...summary.problems.map((p) =>
        h("li", { "data-row": p.rowNumber }, h("strong", {}, `Row ${p.rowNumber}`), " ", p.text.replace(/^Row \d+:\s*/, "")),
      ),
    );
    previewButton.hidden = result.rows.length === 0;
    previewButton.textContent = `Preview ${plural(result.rows.length, "row")}`;
    if (result.rows.length) focusWhenReady(previewButton);
  };
  readButton.addEventListener("click", async () => {
    if (!core.desk) return;
    core.clearRead();
    core.showError(null);
    core.setBusy("Reading the selection…");
    try {
      core.read = await core.desk.readRows(choice.action());
      choice.show(core.read.action);
      renderRead(core.read);
    } catch (e) {
      core.showError(errorView(e));
    } finally {
      core.setBusy(null);
    }
  });
}

/** The confirmation of the rows that would go now, with the LIVE wording; the Confirm button and its note follow it. */
function confirmationOf(core: PanelCore, p: Preview) {
  const plan = sendPlan(p, core.sendAgain);
  const actions = plan.lines.map((l) => l.row.action);
  return { plan, c: confirmation(p.environment, p.action, plan.count, plan.notional, core.read?.hiddenRowsSkipped ?? 0, actions) };
}

export function updateConfirm(core: PanelCore): void {
  const { confirmButton, confirmNote, submitButton } = core.els;
  if (!core.preview) return;
  const { plan, c } = confirmationOf(core, core.preview);
  confirmButton.textContent = c.button;
  confirmButton.toggleAttribute("disabled", plan.blockedReason !== null || core.directRefusal !== null);
  confirmButton.classList.toggle("live", c.steps === 2);
  // Submit for approval sits beside Confirm for any key (a read-only key's only way); the approver's key sends it.
  submitButton.hidden = !core.submitter;
  submitButton.toggleAttribute("disabled", plan.blockedReason !== null);
  confirmNote.textContent =
    plan.blockedReason ??
    core.directRefusal ??
    (c.steps === 2
      ? "LIVE key: production money. You will be asked once more before anything is sent."
      : `Sandbox: ${plural(plan.count, "row")} will be sent on one click.`);
}

/** Preview: quotes and positions streamed in (redrawn at most once a frame), cancellable; then Confirm. */
export function mountPreviewing(core: PanelCore): void {
  const { previewButton, previewHost, confirmButton, cancelButton, confirmNote, busyText, cancelPricing, readButton } = core.els;
  const renderPreview = (p: Preview, final: boolean) => {
    previewHost.replaceChildren(
      ...previewNodes(p, final, core.read?.hiddenRowsSkipped ?? 0, (rowNumber, on) => {
        if (on) core.sendAgain.add(rowNumber);
        else core.sendAgain.delete(rowNumber);
        updateConfirm(core);
      }),
    );
    previewHost.hidden = false;
    confirmButton.hidden = !final;
    core.els.submitButton.hidden = !final || !core.submitter;
    cancelButton.hidden = false;
    if (final) updateConfirm(core);
  };
  previewButton.addEventListener("click", async () => {
    const { desk, read } = core;
    if (!desk || !read) return;
    core.clearPreview();
    core.showError(null);
    const pricingNow = new AbortController();
    core.pricing = pricingNow;
    const quoting = read.rows.some((r) => r.action === "open" || r.action === "add");
    core.setBusy(quoting ? "Pricing…" : "Looking up the positions…");
    cancelPricing.hidden = !quoting;
    previewButton.toggleAttribute("disabled", true);
    let latest: Preview | null = null;
    let drawing = false;
    const onProgress = (partial: Preview) => {
      latest = partial;
      if (drawing) return;
      drawing = true;
      requestAnimationFrame(() => {
        drawing = false;
        if (core.pricing !== pricingNow || !latest || core.preview) return;
        renderPreview(latest, false);
        busyText.textContent = pricingText(latest, false);
      });
    };
    try {
      const preview = await desk.preview(read.action, read.rows, { signal: pricingNow.signal, onProgress });
      core.preview = preview;
      renderPreview(preview, true);
      confirmNote.textContent = `${pricingText(preview, true)} ${confirmNote.textContent ?? ""}`.trim();
      const submit = core.els.submitButton;
      const fallback = submit.hidden || submit.hasAttribute("disabled") ? cancelButton : submit;
      focusWhenReady(
        confirmButton.hasAttribute("disabled")
          ? (previewHost.querySelector<HTMLElement>("fluent-checkbox.send-again") ?? fallback)
          : confirmButton,
      );
    } catch (e) {
      core.showError(errorView(e));
    } finally {
      if (core.pricing === pricingNow) core.pricing = null;
      core.setBusy(null);
      previewButton.toggleAttribute("disabled", false);
    }
  });
  cancelPricing.addEventListener("click", () => {
    core.pricing?.abort(new Error("Cancelled by the user."));
    busyText.textContent = "Cancelling…";
  });
  cancelButton.addEventListener("click", () => {
    core.pricing?.abort(new Error("Cancelled by the user."));
    core.clearPreview();
    focusWhenReady(readButton);
  });
}

/** Confirm (a second time for LIVE) and send: disabled at once, the batch goes once; progress row by row. */
export function mountSending(core: PanelCore): (row: RowStatus) => void {
  const { confirmButton, confirmNote, readButton, progressBar, progressText, statusList } = core.els;
  const rowsByKey = new Map<string, HTMLElement>();
  const upsertRow = (row: RowStatus) => {
    let li = rowsByKey.get(row.idempotencyKey);
    if (!li) {
      li = h("li", { "data-key": row.idempotencyKey, "data-row": row.rowNumber ?? "" });
      rowsByKey.set(row.idempotencyKey, li);
      statusList.append(li);
    }
    li.className = `tone-${statusTone(row.status)}`;
    li.dataset.status = row.status;
    li.textContent = rowStatusText(row);
  };
  confirmButton.addEventListener("click", async () => {
    const { desk, preview: current, sendAgain } = core;
    if (!desk || !current || confirmButton.hasAttribute("disabled")) return;
    const { plan, c } = confirmationOf(core, current);
    if (plan.blockedReason || core.directRefusal) return;
    // Disabled at once: a second click must never send the batch twice.
    confirmButton.toggleAttribute("disabled", true);
    if (c.steps === 2 && !(await askLiveConfirmation(c.dialog ?? ""))) {
      confirmButton.toggleAttribute("disabled", false);
      confirmNote.textContent = "Not sent.";
      return;
    }
    const chosen =
      sendAgain.size > 0 ? { ...current, lines: current.lines.filter((l) => !l.duplicateOf || sendAgain.has(l.row.rowNumber)) } : current;
    const options = { sendAgain: sendAgain.size > 0 };
    core.clearRead();
    core.showError(null);
    focusWhenReady(readButton);
    progressBar.hidden = false;
    progressBar.value = 0;
    progressText.textContent = `Sending ${plural(plan.count, "row")}…`;
    try {
      const result = await desk.send(chosen, options);
      for (const row of result.rows) upsertRow(row);
      for (const s of result.skipped) statusList.prepend(h("li", { class: "tone-busy" }, `Row ${s.rowNumber} · Skipped · ${s.reason}`));
    } catch (e) {
      core.showError(errorView(e));
    }
  });
  return upsertRow;
}

/** Submit for approval: the rows that would be sent go to the Approvals sheet as a pending batch; nothing is traded. */
export function mountSubmitting(core: PanelCore): void {
  const { submitButton, confirmNote, readButton } = core.els;
  submitButton.addEventListener("click", async () => {
    const { preview: current, submitter } = core;
    if (!current || !submitter || submitButton.hasAttribute("disabled")) return;
    const { plan } = confirmationOf(core, current);
    if (plan.blockedReason) return;
    submitButton.toggleAttribute("disabled", true);
    core.showError(null);
    core.setBusy("Submitting for approval…");
    try {
      const said = await submitter({ ...current, lines: plan.lines });
      core.clearRead();
      confirmNote.textContent = said;
      focusWhenReady(readButton);
    } catch (e) {
      core.showError(errorView(e));
      submitButton.toggleAttribute("disabled", false);
    } finally {
      core.setBusy(null);
    }
  });
}
