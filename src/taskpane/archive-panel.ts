// The log archive control (Fluent v3 elements), under the month-end section: count, confirm, move with a progress bar, result.
import { ArchiveController, archiveQuestion, type ArchiveDeps, type ArchiveView } from "./archive-model";
import { h, showMessage } from "./dom";

let panels = 0;

type ProgressElement = HTMLElement & { value: number | null; max: number };

/** Builds the control, appended to `container`, and returns its controller. */
export function mountArchivePanel(container: HTMLElement, deps: ArchiveDeps): ArchiveController {
  const controller = new ArchiveController(deps);
  const id = `log-archive-${++panels}`;
  const askButton = h("fluent-button", { type: "button", class: "log-archive-ask" }, "Archive old log rows…");
  const question = h("p", { id: `${id}-question` });
  const confirmButton = h("fluent-button", { type: "button", appearance: "primary", class: "log-archive-confirm" }, "Move rows");
  const cancelButton = h("fluent-button", { type: "button", class: "log-archive-cancel" }, "Cancel");
  const confirmBox = h(
    "div",
    { class: "log-archive-confirm-box", role: "group", "aria-labelledby": `${id}-question` },
    question,
    h("div", { class: "actions" }, confirmButton, cancelButton),
  );
  const bar = h("fluent-progress-bar", { class: "log-archive-bar", "aria-labelledby": `${id}-progress` }) as ProgressElement;
  const progressText = h("p", { id: `${id}-progress`, role: "status", "aria-live": "polite" });
  const progress = h("div", { class: "log-archive-progress" }, progressText, bar);
  const message = h("div", { class: "log-archive-message", role: "status", "aria-live": "polite" });
  const hint = h("p", { class: "hint" });

  container.append(
    h(
      "section",
      { class: "log-archive", "aria-labelledby": `${id}-title` },
      h("h3", { id: `${id}-title` }, "Hedge Log archive"),
      hint,
      askButton,
      confirmBox,
      progress,
      message,
    ),
  );

  askButton.addEventListener("click", () => void controller.ask());
  confirmButton.addEventListener("click", () => void controller.confirm());
  cancelButton.addEventListener("click", () => controller.cancel());

  const render = (view: ArchiveView) => {
    hint.textContent =
      `Moves finished rows logged before ${view.cutoffDay} (UTC) to “Hedge Log YYYY” sheets, so the log stays quick to read and write. ` +
      "Unfinished rows always stay; month end still reads the archive.";
    askButton.toggleAttribute("disabled", view.busy !== null || view.confirming !== null);
    askButton.textContent = view.busy === "counting" ? "Counting rows…" : "Archive old log rows…";
    confirmBox.hidden = view.confirming === null;
    if (view.confirming) question.textContent = archiveQuestion(view.confirming, view.cutoffDay);
    progress.hidden = view.progress === null;
    if (view.progress) {
      progressText.textContent = `Archiving… ${view.progress.moved.toLocaleString("en-US")} of ${view.progress.total.toLocaleString("en-US")} rows moved`;
      bar.max = Math.max(1, view.progress.total);
      bar.value = view.progress.moved;
    }
    showMessage(message, view.message, "log-archive-message");
  };
  controller.subscribe(render);
  return controller;
}
