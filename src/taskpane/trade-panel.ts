// The trade panel: action choice (or the selection's Action column), Read selection, Propose, problems by row, the preview table (streamed as quotes arrive, cancellable), confirm (twice for LIVE) or Submit for approval, and send progress with per-row status.
import type { HedgingClient } from "../api/client";
import type { SheetWriter } from "../monthend/sheet-content";
import type { SelectedRows, Workbook } from "../trading/workbook";
import type { Position } from "../api/schemas";
import type { ProposalRow } from "../policy/target";
import type { Action, BatchAction, Preview, Progress, ReadResult, RowStatus } from "../trading/types";
import type { TradingDesk } from "../trading/desk/contract";
import { ACTIONS } from "../trading/types";
import { errorView, type ErrorView } from "./connection-controller";
import { renderError } from "./connection-panel";
import { mirrorCheckedState } from "./aria-mirror";
import { byId, focusWhenReady, h } from "./dom";
import { formatIn, plural } from "./format";
import { proposalContent, proposalSummary } from "./proposal-sheet";
import {
  ACTION_HELP,
  BATCH_LABELS,
  batchTitle,
  COLUMN_HELP,
  confirmation,
  hiddenNote,
  previewRows,
  pricingText,
  previewTotals,
  progressModel,
  readSummary,
  rowStatusText,
  sendPlan,
  statusTone,
} from "./trade-model";

/** The parts of the Fluent elements the panel touches. */
type CheckboxElement = HTMLElement & { checked: boolean };
type ProgressElement = HTMLElement & { value: number | null; max: number | null };
type RadioGroupElement = HTMLElement & { value: string | null };
type DialogElement = HTMLElement & { show(): void; hide(): void };

/** What Propose needs: the selection (exposures, then policy), the live positions, and where the proposal is written. */
export interface ProposeDependencies {
  workbook: Pick<Workbook, "readSelection">;
  /** The safe sheet writer (plain values, never formulas): the recon writer. */
  writer: SheetWriter;
  /** The connected client, or null. */
  client: () => HedgingClient | null;
  /** Epoch ms (the references carry its UTC day). */
  now?: () => number;
  /** Told of each proposal made, with the positions it was made from (the overview's maturities remember what it wanted). */
  onProposal?: (rows: readonly ProposalRow[], positions: readonly Position[]) => void;
}

export interface TradePanel {
  /** Propose again from the last proposal's exposures and policy (the overview's Propose beside a maturing side). */
  proposeAgain(): Promise<void>;
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

/** Whether the fluent-dialog's native <dialog> is open. */
export function dialogIsOpen(dialog: HTMLElement): boolean {
  return dialog.shadowRoot?.querySelector("dialog")?.open ?? false;
}

/**
 * Asks the second, deliberate confirmation of a LIVE batch in a modal Fluent dialog. Resolves true only on the explicit
 * "Send" button; Cancel, Escape and a click outside (each closes the dialog, which emits "toggle") resolve false.
 */
export function askLiveConfirmation(text: string): Promise<boolean> {
  const dialog = byId<DialogElement>("live-dialog");
  const body = byId("live-dialog-text");
  const yes = byId("live-send");
  const no = byId("live-cancel");
  body.textContent = text;
  const opener = document.activeElement as HTMLElement | null;
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: boolean) => {
      if (settled) return;
      settled = true;
      yes.removeEventListener("click", onYes);
      no.removeEventListener("click", onNo);
      dialog.removeEventListener("toggle", onToggle);
      if (dialogIsOpen(dialog)) dialog.hide();
      if (opener) focusWhenReady(opener);
      resolve(answer);
    };
    const onYes = () => done(true);
    const onNo = () => done(false);
    const onToggle = (event: Event) => {
      if ((event as CustomEvent<{ newState?: string }>).detail?.newState === "closed") done(false);
    };
    yes.addEventListener("click", onYes);
    no.addEventListener("click", onNo);
    dialog.addEventListener("toggle", onToggle);
    dialog.show();
    // Cancel carries autofocus, which the dialog honours once open; this covers hosts where it does not.
    focusWhenReady(no);
  });
}

/** The panel's elements, found once. */
function panelElements() {
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
type Elements = ReturnType<typeof panelElements>;

/**
 * The Action choice: the user's radio, or "From the Action column" (shown and checked only while the rows read carry their
 * own actions). Choosing a radio calls `onChoose`; showing the column choice does not.
 */
function mountActionChoice(els: Elements, onChoose: () => void) {
  const { actionGroup, columnChoice, help } = els;
  for (const radio of actionGroup.querySelectorAll<HTMLElement>("fluent-radio")) mirrorCheckedState(radio, "radio");
  const columnRadio = columnChoice.querySelector<HTMLElement & { checked: boolean }>("fluent-radio")!;
  /** The user's last choice (the page starts on the group's value attribute, Open). */
  let chosen: string = actionGroup.getAttribute("value") ?? "open";
  let showing = false;
  const action = (): Action => {
    const value = chosen;
    return (ACTIONS as readonly string[]).includes(value) ? (value as Action) : "open";
  };
  const radioOf = (value: string) => actionGroup.querySelector<HTMLElement & { checked: boolean }>(`fluent-radio[value="${value}"]`);
  actionGroup.addEventListener("change", (event) => {
    // The radio that changed says which action is chosen (the group may not have unchecked the others yet).
    const radio = event.target as (HTMLElement & { value?: string; checked?: boolean }) | null;
    const value = radio && radio !== actionGroup && radio.checked ? (radio.value ?? null) : actionGroup.value;
    // Ignored: the panel's own moves (showing the column choice, or putting the user's radio back), which are no new choice.
    if (showing || value === "column" || value === null || value === chosen) return;
    chosen = value;
    help.textContent = ACTION_HELP[action()];
    onChoose();
  });
  const show = (batch: BatchAction) => {
    showing = true;
    columnChoice.hidden = batch !== "column";
    // Enabled only while shown (so it reads as the current choice, and arrow keys never land on it hidden).
    columnRadio.toggleAttribute("disabled", batch !== "column");
    if (batch === "column") {
      // The user's radio is unchecked while the column decides, so the group shows one choice.
      for (const a of ACTIONS) {
        const r = radioOf(a);
        if (r) r.checked = false;
      }
      columnRadio.checked = true;
    } else {
      columnRadio.checked = false;
      const own = radioOf(action());
      if (own) own.checked = true;
    }
    help.textContent = batch === "column" ? COLUMN_HELP : ACTION_HELP[action()];
    actionGroup.setAttribute("aria-description", BATCH_LABELS[batch]);
    showing = false;
  };
  help.textContent = ACTION_HELP[action()];
  return { action, show };
}

/** The preview table, its totals, limit checks and blockers; `onSendAgain` hears a duplicate's "Send again" box. */
function previewNodes(p: Preview, final: boolean, hiddenRows: number, onSendAgain: (rowNumber: number, on: boolean) => void): Node[] {
  const rows = previewRows(p);
  const table = h(
    "table",
    // data-state says whether the figures are all in ("final") or still streaming in ("pricing").
    { class: "preview-table", id: "preview-table", "data-state": final ? "final" : "pricing" },
    h("caption", {}, `Preview: ${batchTitle(p)}`),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Row"), h("th", { scope: "col" }, "What is sent"))),
    h(
      "tbody",
      {},
      ...rows.map((r) => {
        const extra: Node[] = [];
        for (const b of r.blockers) extra.push(h("div", { class: "blocker" }, `Not sent: ${b}`));
        for (const w of r.warnings) extra.push(h("div", { class: "warning" }, w));
        if (r.duplicate) {
          const box = h("fluent-checkbox", { "data-row": r.rowNumber, class: "send-again" }) as CheckboxElement;
          box.addEventListener("change", () => onSendAgain(r.rowNumber, box.checked));
          extra.push(h("div", { class: "duplicate" }, h("span", {}, r.duplicate), " ", h("label", { class: "choice" }, box, "Send again")));
          mirrorCheckedState(box, "checkbox");
        }
        return h(
          "tr",
          { "data-row": r.rowNumber, class: r.sendable ? "" : "blocked" },
          h("th", { scope: "row" }, String(r.rowNumber)),
          h(
            "td",
            {},
            h("div", { class: "line-title" }, r.title),
            h("dl", { class: "cells" }, ...r.cells.flatMap((c) => [h("dt", {}, c.label), h("dd", {}, c.value)])),
            ...extra,
          ),
        );
      }),
    ),
  );
  const totals = h(
    "dl",
    { class: "totals", id: "preview-totals", "aria-label": "Totals" },
    ...previewTotals(p).flatMap((c) => [h("dt", {}, c.label), h("dd", {}, c.value)]),
  );
  const checks = p.checks.length
    ? h(
        "ul",
        { class: "checks", "aria-label": "Limit checks" },
        ...p.checks.map((c) =>
          h(
            "li",
            { class: c.ok ? "ok" : "fail" },
            h("span", { class: "check-mark", "aria-hidden": "true" }, c.ok ? "✓" : "✗"),
            ` ${c.label}: needs ${formatIn(c.needed, c.unit)}, available ${formatIn(c.available, c.unit)}`,
            h("span", { class: "visually-hidden" }, c.ok ? " (ok)" : " (not enough)"),
          ),
        ),
      )
    : null;
  const blockers =
    final && p.blockers.length ? h("div", { class: "blocker", role: "alert" }, ...p.blockers.map((b) => h("div", {}, b))) : null;
  const hidden = hiddenRows ? h("p", { class: "warning", id: "hidden-rows" }, hiddenNote(hiddenRows).trim()) : null;
  return [table, ...(hidden ? [hidden] : []), totals, ...(checks ? [checks] : []), ...(blockers ? [blockers] : [])];
}

/**
 * Propose: the first press reads the selection as the exposures, the second as the policy; then the proposal from the live
 * positions is written to a new "Hedge Proposal" sheet as plain values. Nothing is traded.
 */
function mountPropose(
  els: Elements,
  deps: ProposeDependencies,
  ui: { setBusy(text: string | null): void; showError(e: ErrorView | null): void },
) {
  const { proposeButton, proposeNote } = els;
  let exposures: Awaited<ReturnType<Workbook["readSelection"]>> | null = null;
  // The exposures and policy of the last proposal: Propose beside a maturing side proposes from them again.
  let last: { exposures: SelectedRows; policy: SelectedRows } | null = null;
  const reset = () => {
    exposures = null;
    proposeButton.textContent = "Propose";
  };
  const proposeFrom = async (client: HedgingClient, from: { exposures: SelectedRows; policy: SelectedRows }) => {
    // The note names the proposal just made: from the press on, the previous one's sheet is no longer it.
    proposeNote.textContent = "Proposing from the live positions…";
    ui.setBusy("Reading the live positions…");
    const positions = (await client.positions()).data;
    const { rows, content } = proposalContent(from.exposures, from.policy, positions, new Date((deps.now ?? Date.now)()));
    const written = await deps.writer.writeSheet(content);
    last = from;
    proposeNote.textContent = proposalSummary(rows, written.name);
    deps.onProposal?.(rows, positions);
  };
  const failed = (e: unknown) => {
    // Start over: the exposures are read again with the next press (the model may be what needs fixing).
    ui.showError(errorView(e));
    reset();
    proposeNote.textContent = "Select the exposures and press Propose to start again.";
  };
  proposeButton.addEventListener("click", async () => {
    const client = deps.client();
    if (!client) return;
    ui.showError(null);
    try {
      if (!exposures) {
        ui.setBusy("Reading the exposures…");
        exposures = await deps.workbook.readSelection();
        proposeButton.textContent = "Propose with this policy";
        proposeNote.textContent = `Exposures: ${exposures.address}, ${plural(exposures.rows.length, "row")}. Now select the policy and press Propose with this policy.`;
        return;
      }
      ui.setBusy("Reading the policy and the live positions…");
      const policy = await deps.workbook.readSelection();
      await proposeFrom(client, { exposures, policy });
      reset();
    } catch (e) {
      failed(e);
    } finally {
      ui.setBusy(null);
    }
  });
  return {
    reset() {
      reset();
      proposeNote.textContent = "";
    },
    /** Propose again from the last proposal's exposures and policy (as read then) and the positions now; without one, says how to start. */
    async again(): Promise<void> {
      const client = deps.client();
      if (!client) return;
      ui.showError(null);
      if (!last) {
        reset();
        proposeNote.textContent = "No proposal yet: select the exposures and press Propose, then the policy and Propose with this policy.";
        proposeButton.focus();
        return;
      }
      try {
        await proposeFrom(client, last);
      } catch (e) {
        failed(e);
      } finally {
        ui.setBusy(null);
        proposeNote.scrollIntoView?.({ block: "nearest" });
      }
    },
  };
}

/** What the panel's parts share: the desk, the rows read, the preview, the "send again" rows, and the panel-wide helpers. */
interface PanelCore {
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
function makeCore(els: Elements): PanelCore {
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

/** Read selection: the rows for the chosen action (or the Action column's), the problems listed by row. */
function mountReading(core: PanelCore, choice: ReturnType<typeof mountActionChoice>): void {
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

function updateConfirm(core: PanelCore): void {
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
function mountPreviewing(core: PanelCore): void {
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
function mountSending(core: PanelCore): (row: RowStatus) => void {
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
function mountSubmitting(core: PanelCore): void {
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
    proposeAgain: async () => proposer?.again(),
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
