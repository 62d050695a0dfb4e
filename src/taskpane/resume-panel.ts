// The Unfinished rows list: on opening it shows the rows an earlier session left and what the service shows for each; Resume (twice for LIVE) takes them up; rows needing a decision get "It was done" / "It was not done", each confirmed, in the list and in place on the line of the side that waits on them.
import type { Environment } from "../api/environment";
import type { Decision, ResumePlan } from "../trading/types";
import type { TradingDesk } from "../trading/desk/contract";
import { errorView, type ErrorView } from "./connection-controller";
import { mirrorCheckedState } from "./aria-mirror";
import { byId, focusWhenReady, h } from "./dom";
import { askLiveConfirmation } from "./live-dialog";
import {
  decisionConfirmation,
  resumeConfirmation,
  unfinishedView,
  type UnfinishedRowView,
  type UnfinishedView,
  type WaitLineView,
} from "./resume-model";

type CheckboxElement = HTMLElement & { checked: boolean };

interface ResumePanel {
  /** The desk of the connection (null when not connected): lists its unfinished rows; sends nothing. */
  setDesk(desk: TradingDesk | null, environment: Environment | null): void;
  /** Redraws from the desk's state (rows needing a decision, sides waiting); called on progress. */
  refresh(): void;
}

/** The panel's elements in taskpane.html. */
function resumeElements() {
  return {
    section: byId("resume-section"),
    headline: byId("resume-headline"),
    busy: byId("resume-busy"),
    list: byId("resume-list"),
    missingBox: byId("resume-missing"),
    missingText: byId("resume-missing-text"),
    restoreButton: byId("resume-restore"),
    othersBox: byId("resume-other-workbooks"),
    othersText: byId("resume-other-workbooks-text"),
    dismissButton: byId("resume-dismiss"),
    copiedBox: byId("resume-copied"),
    copiedText: byId("resume-copied-text"),
    copiedAdd: byId("resume-copied-add"),
    copiedNot: byId("resume-copied-not"),
    unusableList: byId("resume-unusable"),
    waitsList: byId("resume-waits"),
    resumeButton: byId("resume"),
    checkButton: byId("resume-check"),
  };
}

/** Where a decision was asked: the row in the list, or the line of the side that waits on it. */
type Place = "list" | "waits";

export function mountResumePanel(showError: (error: ErrorView | null) => void): ResumePanel {
  const panel = new ResumeList(resumeElements(), showError);
  panel.wire();
  return { setDesk: (desk, environment) => panel.setDesk(desk, environment), refresh: () => panel.schedule() };
}

class ResumeList {
  private desk: TradingDesk | null = null;
  private environment: Environment | null = null;
  private plan: ResumePlan | null = null;
  private resumed = false;
  private readonly claimed = new Set<string>();
  /** The row whose decision is being confirmed, and where. */
  /** The decision being confirmed; `nothingShown`: the desk's question when nothing shows the row was done (asked again). */
  private confirming: { key: string; decision: Decision; place: Place; nothingShown?: string } | null = null;
  private drawing = false;

  constructor(
    private readonly el: ReturnType<typeof resumeElements>,
    private readonly showError: (error: ErrorView | null) => void,
  ) {}

  setDesk(desk: TradingDesk | null, environment: Environment | null): void {
    this.desk = desk;
    this.environment = environment;
    this.plan = null;
    this.resumed = false;
    this.claimed.clear();
    this.confirming = null;
    this.render();
    if (desk) void this.inspect();
  }

  /** The buttons of the panel: Resume, Check again, Restore. */
  wire(): void {
    this.el.resumeButton.addEventListener("click", () => void this.resumePressed());
    this.el.checkButton.addEventListener("click", () => void this.inspect());
    this.el.restoreButton.addEventListener("click", () => void this.restorePressed());
    this.el.dismissButton.addEventListener("click", () => void this.dismissPressed());
    this.el.copiedAdd.addEventListener("click", () => void this.copiedPressed(true));
    this.el.copiedNot.addEventListener("click", () => void this.copiedPressed(false));
  }

  /** Redraws once per frame (a row being confirmed keeps its buttons steady until the user answers). */
  schedule(): void {
    if (this.drawing) return;
    this.drawing = true;
    requestAnimationFrame(() => {
      this.drawing = false;
      this.render();
    });
  }

  // ---- drawing ----

  private render(): void {
    const view = unfinishedView(this.plan, {
      resumed: this.resumed,
      claimed: this.claimed,
      decisions: this.desk?.needsDecision() ?? [],
      waits: this.desk?.waits() ?? [],
    });
    this.el.section.hidden = !this.desk || (view.empty && this.el.busy.hidden);
    this.el.headline.textContent = view.headline;
    this.drawRows(view);
    this.drawNotes(view);
    this.drawButtons(view);
  }

  /** The rows; the control that had the focus gets it back after the redraw. */
  private drawRows(view: UnfinishedView): void {
    const list = this.el.list;
    list.hidden = view.rows.length === 0;
    const active = document.activeElement as HTMLElement | null;
    const focusKey = active?.closest("li[data-key]")?.getAttribute("data-key") ?? null;
    const focusClass = focusKey ? [...(active?.classList ?? [])].find((c) => /^(decide|confirm|decision|claim)/.test(c)) : undefined;
    list.replaceChildren(...view.rows.map((row) => this.rowNode(row)));
    if (focusKey && focusClass) list.querySelector<HTMLElement>(`li[data-key="${CSS.escape(focusKey)}"] .${focusClass}`)?.focus();
  }

  /** Rows the Hedge Log lacks, rows never sent, and the sides that wait (with the decisions they wait on, in place). */
  private drawNotes(view: UnfinishedView): void {
    this.el.missingBox.hidden = !view.missing;
    this.el.missingText.textContent = view.missing?.text ?? "";
    this.el.othersBox.hidden = !view.otherWorkbooks;
    this.el.othersText.textContent = view.otherWorkbooks?.text ?? "";
    this.el.copiedBox.hidden = !view.copied;
    this.el.copiedText.textContent = view.copied?.text ?? "";
    this.el.unusableList.hidden = view.unusable.length === 0;
    this.el.unusableList.replaceChildren(...view.unusable.map((u) => h("li", { class: "warning" }, u)));
    this.el.waitsList.hidden = view.waitLines.length === 0;
    this.el.waitsList.replaceChildren(...view.waitLines.map((w) => this.waitNode(w)));
  }

  private drawButtons(view: UnfinishedView): void {
    const { resumeButton, checkButton } = this.el;
    resumeButton.hidden = this.resumed || !this.plan || this.plan.items.length === 0;
    resumeButton.textContent = view.resumeLabel;
    resumeButton.toggleAttribute("disabled", view.resumeCount === 0);
    resumeButton.classList.toggle("live", this.environment === "production");
    checkButton.hidden = !this.desk;
  }

  private rowNode(row: UnfinishedRowView): HTMLElement {
    const titleId = `unfinished-${row.key}`;
    const parts: Node[] = [
      h("div", { class: "line-title", id: titleId }, row.title),
      h("div", { class: "hint" }, row.meta),
      h("div", {}, h("span", { class: "label" }, "Service: "), row.serviceSays),
      h("div", { class: row.decide ? "warning" : "hint" }, row.next),
    ];
    if (row.claimable) parts.push(this.claimBox(row));
    if (row.decide) parts.push(this.decisionControls(row, titleId, "list"));
    return h("li", { "data-key": row.key, class: row.decide ? "needs-decision" : "" }, ...parts);
  }

  /** A side's line; when it waits on a decision, the row's two decisions right there. */
  private waitNode(line: WaitLineView): HTMLElement {
    if (!line.decide) return h("li", {}, line.text);
    const titleId = `waits-on-${line.decide.key}`;
    const parts: Node[] = [
      h("div", { id: titleId }, line.text),
      h("div", { class: "hint" }, h("span", { class: "label" }, "Service: "), line.decide.serviceSays),
      this.decisionControls(line.decide, titleId, "waits"),
    ];
    return h("li", { "data-wait-key": line.decide.key, class: "needs-decision" }, ...parts);
  }

  private claimBox(row: UnfinishedRowView): HTMLElement {
    const box = h("fluent-checkbox", { class: "claim", "data-key": row.key }) as CheckboxElement;
    box.checked = this.claimed.has(row.key);
    mirrorCheckedState(box, "checkbox");
    box.addEventListener("change", () => {
      if (box.checked) this.claimed.add(row.key);
      else this.claimed.delete(row.key);
      this.schedule();
    });
    return h("label", { class: "choice" }, box, "This row is this account's (an older log without an account)");
  }

  /** "It was done" / "It was not done", or, once one is pressed here, its confirmation and Back. */
  private decisionControls(row: UnfinishedRowView, titleId: string, place: Place): HTMLElement {
    const confirming = this.confirming;
    if (confirming?.key === row.key && confirming.place === place) {
      const c = confirming.nothingShown
        ? { text: confirming.nothingShown, button: "Record as done anyway" }
        : decisionConfirmation(row, confirming.decision);
      const yes = h("fluent-button", { appearance: "primary", class: "confirm-decision", type: "button" }, c.button);
      const back = h("fluent-button", { class: "decision-back", type: "button" }, "Back");
      yes.addEventListener("click", () => void this.decide(row.key, confirming.decision, place, confirming.nothingShown !== undefined));
      back.addEventListener("click", () => {
        this.confirming = null;
        this.render();
        focusWhenReady(this.placed(row.key, place, "fluent-button.decide-done") ?? this.el.headline);
      });
      return h(
        "div",
        { class: "decision-confirm", role: "group", "aria-labelledby": titleId },
        h("p", {}, c.text),
        h("div", { class: "actions" }, yes, back),
      );
    }
    const done = h("fluent-button", { class: "decide-done", type: "button", "aria-describedby": titleId }, "It was done");
    const notDone = h("fluent-button", { class: "decide-not-done", type: "button", "aria-describedby": titleId }, "It was not done");
    done.addEventListener("click", () => this.ask(row.key, "done", place));
    notDone.addEventListener("click", () => this.ask(row.key, "not_done", place));
    return h("div", { class: "actions" }, done, notDone);
  }

  /** The element `selector` of row `key` where it is shown (the list, or the waiting side's line). */
  private placed(key: string, place: Place, selector: string): HTMLElement | null {
    const item =
      place === "list" ? `#resume-list li[data-key="${CSS.escape(key)}"]` : `#resume-waits li[data-wait-key="${CSS.escape(key)}"]`;
    return document.querySelector<HTMLElement>(`${item} ${selector}`);
  }

  // ---- actions ----

  private ask(key: string, decision: Decision, place: Place, nothingShown?: string): void {
    this.confirming = { key, decision, place, nothingShown };
    this.render();
    focusWhenReady(this.placed(key, place, "fluent-button.confirm-decision") ?? this.el.headline);
  }

  private async decide(key: string, decision: Decision, place: Place, nothingShown = false): Promise<void> {
    if (!this.desk) return;
    this.confirming = null;
    this.showError(null);
    try {
      await this.desk.decide(key, decision, { nothingShown });
      if (this.plan) this.plan = { ...this.plan, items: this.plan.items.filter((i) => i.row.idempotencyKey !== key) };
    } catch (e) {
      // Nothing shows it was done: ask once more, in place, with the desk's question (nothing was changed).
      if ((e as { code?: unknown } | null)?.code === "confirm_nothing_shown") {
        this.ask(key, decision, place, (e as Error).message);
        return;
      }
      this.showError(errorView(e));
    }
    this.render();
    const { list, resumeButton, headline } = this.el;
    focusWhenReady(list.querySelector<HTMLElement>("fluent-button.decide-done") ?? (resumeButton.hidden ? headline : resumeButton));
  }

  /** Asks the desk for the plan (reads only), showing "checking" meanwhile. */
  private async inspect(): Promise<void> {
    const current = this.desk;
    if (!current) return;
    this.el.busy.hidden = false;
    this.resumed = false;
    this.render();
    try {
      const next = await current.inspect();
      if (this.desk !== current) return;
      this.plan = next;
    } catch (e) {
      if (this.desk === current) this.showError(errorView(e));
    } finally {
      if (this.desk === current) {
        this.el.busy.hidden = true;
        this.render();
      }
    }
  }

  private async resumePressed(): Promise<void> {
    const { resumeButton } = this.el;
    if (!this.desk || !this.plan || resumeButton.hasAttribute("disabled")) return;
    const view = unfinishedView(this.plan, { resumed: false, claimed: this.claimed, decisions: [], waits: [] });
    const c = resumeConfirmation(this.environment ?? "sandbox", view.resumeCount);
    resumeButton.toggleAttribute("disabled", true);
    if (c.steps === 2 && !(await askLiveConfirmation(c.dialog ?? ""))) {
      resumeButton.toggleAttribute("disabled", false);
      return;
    }
    this.showError(null);
    try {
      await this.desk.resume({ claim: [...this.claimed] });
      this.resumed = true;
    } catch (e) {
      this.showError(errorView(e));
      resumeButton.toggleAttribute("disabled", false);
    }
    this.render();
  }

  private async dismissPressed(): Promise<void> {
    if (!this.desk || !this.plan) return;
    try {
      await this.desk.dismiss(this.plan.otherWorkbooks.map((o) => o.row.idempotencyKey));
    } catch (e) {
      this.showError(errorView(e));
    }
    await this.inspect();
  }

  /** The user's word on a copy's rows: written into this Hedge Log (yes), or not listed in this file again (no). */
  private async copiedPressed(belongHere: boolean): Promise<void> {
    if (!this.desk || !this.plan?.copied) return;
    const keys = this.plan.copied.rows.map((c) => c.row.idempotencyKey);
    try {
      await (belongHere ? this.desk.restore(keys) : this.desk.dismiss(keys));
    } catch (e) {
      this.showError(errorView(e));
    }
    await this.inspect();
  }

  private async restorePressed(): Promise<void> {
    if (!this.desk || !this.plan) return;
    try {
      await this.desk.restore(this.plan.missing.map((r) => r.idempotencyKey));
    } catch (e) {
      this.showError(errorView(e));
    }
    await this.inspect();
  }
}
