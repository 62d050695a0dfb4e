// The month-end panel (Fluent v3 elements): month picker, Reconcile month, Snapshot to values (selection or sheet, confirmed first), progress and results.
import { MonthEndController, type MonthEndPanelDeps, type MonthEndView } from "../monthend/month-end-controller";
import { chainHeadOf } from "../trading/chain-head";
import type { IntentStore } from "../trading/intent-store";
import type { Workbook } from "../trading/workbook";
import { labelDropdownControl, mirrorCheckedState } from "./aria-mirror";
import { h, showMessage } from "./dom";

export type { MonthEndPanelDeps };

/**
 * What month end reads of this workbook: its log rows with their places, and the newest link this computer's journal
 * wrote into its log (chainHeadOf, by the workbook's id), so that the chain is checked and a log cut at its end is seen.
 */
export function monthEndLog(workbook: Workbook, journal: IntentStore): Pick<MonthEndPanelDeps, "readLog" | "readLogRows" | "chainHead"> {
  return {
    readLog: () => workbook.readLog(),
    readLogRows: workbook.readLogRows?.bind(workbook),
    chainHead: async () => chainHeadOf(journal, (await workbook.identity()).id),
  };
}

let panels = 0;

/** The parts of the Fluent elements the panel touches. */
type DropdownElement = HTMLElement & { value: string | null; listbox?: unknown; open?: boolean };
type RadioGroupElement = HTMLElement & { value: string | null };

/** Builds the panel inside `container` and returns its controller (for tests and the harness). */
export function mountMonthEndPanel(container: HTMLElement, deps: MonthEndPanelDeps): MonthEndController {
  const controller = new MonthEndController(deps);
  const id = `month-end-${++panels}`;
  const parts = monthEndParts(id, controller.view);
  parts.snapshotGroup.hidden = !controller.canSnapshot;
  container.replaceChildren(monthEndSection(id, parts));
  wireMonthEnd(id, parts, controller);
  controller.subscribe((view) => renderMonthEnd(parts, view));
  return controller;
}

type MonthEndParts = ReturnType<typeof monthEndParts>;

/** The panel's controls: month picker, Reconcile, snapshot scope and button, the confirmation, progress and message. */
function monthEndParts(id: string, first: MonthEndView) {
  // The months never change while the panel lives: the list is built once, with the default month selected.
  const monthSelect = h(
    "fluent-dropdown",
    { id: `${id}-month`, class: "month-end-month", name: "month", "aria-labelledby": `${id}-month-label` },
    h("fluent-listbox", {}, ...first.months.map((m) => h("fluent-option", { value: m, selected: m === first.month }, m))),
  ) as DropdownElement;
  const reconcileButton = h("fluent-button", { type: "button", appearance: "primary", class: "month-end-reconcile" }, "Reconcile month");
  const scopeGroup = h(
    "fluent-radio-group",
    {
      id: `${id}-scope`,
      class: "month-end-scope",
      name: `${id}-scope`,
      value: "selection",
      orientation: "horizontal",
      "aria-labelledby": `${id}-scope-label`,
    },
    h("label", { class: "choice" }, h("fluent-radio", { value: "selection" }), "Selection"),
    h("label", { class: "choice" }, h("fluent-radio", { value: "sheet" }), "Whole active sheet"),
  ) as RadioGroupElement;
  const snapshotButton = h("fluent-button", { type: "button", class: "month-end-snapshot" }, "Snapshot to values");
  const confirmText = h("p", { id: `${id}-confirm-text` });
  const confirmButton = h("fluent-button", { type: "button", appearance: "primary", class: "month-end-confirm" }, "Replace by values");
  const cancelButton = h("fluent-button", { type: "button", class: "month-end-cancel" }, "Cancel");
  const confirmBox = h(
    "div",
    { class: "month-end-confirm-box", role: "group", "aria-labelledby": `${id}-confirm-text` },
    confirmText,
    h("div", { class: "actions" }, confirmButton, cancelButton),
  );
  const progress = h("p", { class: "month-end-progress", role: "status", "aria-live": "polite" });
  const message = h("div", { class: "month-end-message", role: "status", "aria-live": "polite" });

  const snapshotGroup = h(
    "div",
    { class: "month-end-snapshot-group" },
    h("div", { class: "month-end-field" }, h("span", { id: `${id}-scope-label`, class: "label" }, "Snapshot"), scopeGroup),
    snapshotButton,
    h(
      "p",
      { class: "hint" },
      "Replaces every HEDGE.* formula by its current value, with a note saying when, so a closed month stops moving.",
    ),
  );
  return {
    monthSelect,
    reconcileButton,
    scopeGroup,
    snapshotButton,
    confirmText,
    confirmButton,
    cancelButton,
    confirmBox,
    progress,
    message,
    snapshotGroup,
  };
}

/** The section that lays the controls out, with its title, labels and hints. */
function monthEndSection(
  id: string,
  { monthSelect, reconcileButton, snapshotGroup, confirmBox, progress, message }: MonthEndParts,
): HTMLElement {
  return h(
    "section",
    { class: "month-end", "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title` }, "Month end"),
    h(
      "div",
      { class: "month-end-reconcile-group" },
      h("div", { class: "month-end-field" }, h("span", { id: `${id}-month-label`, class: "label" }, "Month (UTC)"), monthSelect),
      reconcileButton,
    ),
    h(
      "p",
      { class: "hint" },
      "Writes a new sheet “Hedge Recon YYYY-MM” as plain values: realized hedges with totals, open positions, and differences with the Hedge Log.",
    ),
    snapshotGroup,
    confirmBox,
    progress,
    message,
  );
}

/** Keyboard and ARIA fixes of the Fluent controls, and each control to the controller. */
function wireMonthEnd(id: string, parts: MonthEndParts, controller: MonthEndController): void {
  const { monthSelect, scopeGroup, reconcileButton, snapshotButton, confirmButton, cancelButton } = parts;
  labelDropdownControl(monthSelect, `${id}-month-label`);
  // Enter on the closed dropdown: Fluent opens the list, but the button's own Enter click would close it again at once.
  monthSelect.addEventListener(
    "keydown",
    (event) => {
      if (event.key === "Enter" && !monthSelect.open && event.target !== monthSelect) event.preventDefault();
    },
    true,
  );
  for (const radio of scopeGroup.querySelectorAll<HTMLElement>("fluent-radio")) mirrorCheckedState(radio, "radio");

  const chosenScope = (): "selection" | "sheet" => (scopeGroup.value === "sheet" ? "sheet" : "selection");

  monthSelect.addEventListener("change", (event) => {
    // The chosen option's own change bubbles through first; the dropdown's follows once its value is updated.
    if (event.target === monthSelect && monthSelect.value) controller.selectMonth(monthSelect.value);
  });
  reconcileButton.addEventListener("click", () => void controller.reconcile());
  snapshotButton.addEventListener("click", () => controller.askSnapshot(chosenScope()));
  confirmButton.addEventListener("click", () => void controller.snapshot());
  cancelButton.addEventListener("click", () => controller.cancelSnapshot());
}

/** Shows one state of the controller. */
function renderMonthEnd(parts: MonthEndParts, view: MonthEndView): void {
  const { monthSelect, reconcileButton, snapshotButton, confirmBox, confirmText, progress, message } = parts;
  // Only once the dropdown found its listbox can its value be set (before that, the option's `selected` holds it).
  if (monthSelect.listbox && monthSelect.value !== view.month) monthSelect.value = view.month;
  const busy = view.busy !== null;
  // The scope group stays enabled: disabling a Fluent radio group clears its choice.
  for (const el of [monthSelect, reconcileButton, snapshotButton]) el.toggleAttribute("disabled", busy || view.confirming !== null);
  reconcileButton.textContent = view.busy === "reconcile" ? "Reconciling…" : "Reconcile month";
  confirmBox.hidden = view.confirming === null;
  if (view.confirming) {
    confirmText.textContent =
      `Replace every HEDGE.* formula ${view.confirming === "sheet" ? "on the active sheet" : "in the selection"} by its current value? ` +
      "Excel cannot undo this; each cell's note keeps the formula and the time.";
  }
  progress.hidden = view.progress === null;
  progress.textContent = view.progress ?? "";
  showMessage(message, view.message, "month-end-message");
}
