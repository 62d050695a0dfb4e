// The month-end panel: month picker, Reconcile month, Snapshot to values (selection or sheet, confirmed first), progress and results.
import { MonthEndController, type MonthEndPanelDeps, type MonthEndView } from "../monthend/month-end-controller";
import { h } from "./dom";

export type { MonthEndPanelDeps };

let panels = 0;

/** Builds the panel inside `container` and returns its controller (for tests and the harness). */
export function mountMonthEndPanel(container: HTMLElement, deps: MonthEndPanelDeps): MonthEndController {
  const controller = new MonthEndController(deps);
  const id = `month-end-${++panels}`;

  const monthSelect = h("select", { id: `${id}-month`, name: "month" });
  const reconcileButton = h("button", { type: "button", class: "month-end-reconcile" }, "Reconcile month");
  const scopeSelect = h(
    "select",
    { id: `${id}-scope`, name: "scope" },
    h("option", { value: "selection" }, "Selection"),
    h("option", { value: "sheet" }, "Whole active sheet"),
  );
  const snapshotButton = h("button", { type: "button", class: "month-end-snapshot" }, "Snapshot to values");
  const confirmText = h("p", { id: `${id}-confirm-text` });
  const confirmButton = h("button", { type: "button", class: "month-end-confirm" }, "Replace by values");
  const cancelButton = h("button", { type: "button", class: "month-end-cancel" }, "Cancel");
  const confirmBox = h("div", { class: "month-end-confirm-box", role: "group", "aria-labelledby": `${id}-confirm-text` }, confirmText, confirmButton, " ", cancelButton);
  const progress = h("p", { class: "month-end-progress", role: "status", "aria-live": "polite" });
  const message = h("div", { class: "month-end-message", role: "status", "aria-live": "polite" });

  const snapshotGroup = h(
    "div",
    { class: "month-end-snapshot-group" },
    h("label", { for: `${id}-scope` }, "Snapshot "),
    scopeSelect,
    " ",
    snapshotButton,
    h("p", { class: "hint" }, "Replaces every HEDGE.* formula by its current value, with a note saying when, so a closed month stops moving."),
  );
  snapshotGroup.hidden = !controller.canSnapshot;

  container.replaceChildren(
    h(
      "section",
      { class: "month-end", "aria-labelledby": `${id}-title` },
      h("h2", { id: `${id}-title` }, "Month end"),
      h("div", { class: "month-end-reconcile-group" }, h("label", { for: `${id}-month` }, "Month (UTC) "), monthSelect, " ", reconcileButton),
      snapshotGroup,
      confirmBox,
      progress,
      message,
    ),
  );

  monthSelect.addEventListener("change", () => controller.selectMonth(monthSelect.value));
  reconcileButton.addEventListener("click", () => void controller.reconcile());
  snapshotButton.addEventListener("click", () => controller.askSnapshot(scopeSelect.value === "sheet" ? "sheet" : "selection"));
  confirmButton.addEventListener("click", () => void controller.snapshot());
  cancelButton.addEventListener("click", () => controller.cancelSnapshot());

  let shownMonths = "";
  const render = (view: MonthEndView) => {
    const months = view.months.join(",");
    if (months !== shownMonths) {
      monthSelect.replaceChildren(...view.months.map((m) => h("option", { value: m }, m)));
      shownMonths = months;
    }
    monthSelect.value = view.month;
    const busy = view.busy !== null;
    for (const el of [monthSelect, reconcileButton, scopeSelect, snapshotButton]) el.toggleAttribute("disabled", busy || view.confirming !== null);
    reconcileButton.textContent = view.busy === "reconcile" ? "Reconciling…" : "Reconcile month";
    confirmBox.hidden = view.confirming === null;
    if (view.confirming) {
      confirmText.textContent =
        `Replace every HEDGE.* formula ${view.confirming === "sheet" ? "on the active sheet" : "in the selection"} by its current value? ` +
        "Excel cannot undo this; each cell's note keeps the formula and the time.";
    }
    progress.hidden = view.progress === null;
    progress.textContent = view.progress ?? "";
    message.replaceChildren();
    message.hidden = view.message === null;
    if (view.message) {
      message.className = `month-end-message ${view.message.kind}`;
      message.setAttribute("role", view.message.kind === "error" ? "alert" : "status");
      message.append(h("p", {}, view.message.text), ...view.message.details.map((d) => h("p", { class: "detail" }, d)));
    }
  };
  controller.subscribe(render);
  return controller;
}
