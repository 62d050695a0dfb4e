// The Unfinished rows list: on opening it shows the rows an earlier session left and what the service shows for each; Resume (twice for LIVE) takes them up; rows needing a decision get "It was done" / "It was not done", each confirmed.
import type { Environment } from "../api/environment";
import type { Decision, ResumePlan, TradingDesk } from "../trading/types";
import { errorView, type ErrorView } from "./connection-controller";
import { mirrorCheckedState } from "./aria-mirror";
import { byId, focusWhenReady, h } from "./dom";
import { askLiveConfirmation } from "./trade-panel";
import { decisionConfirmation, resumeConfirmation, unfinishedView, type UnfinishedRowView } from "./resume-model";

type CheckboxElement = HTMLElement & { checked: boolean };

export interface ResumePanel {
  /** The desk of the connection (null when not connected): lists its unfinished rows; sends nothing. */
  setDesk(desk: TradingDesk | null, environment: Environment | null): void;
  /** Redraws from the desk's state (rows needing a decision, sides waiting); called on progress. */
  refresh(): void;
}

export function mountResumePanel(showError: (error: ErrorView | null) => void): ResumePanel {
  const section = byId("resume-section");
  const headline = byId("resume-headline");
  const busy = byId("resume-busy");
  const list = byId("resume-list");
  const missingBox = byId("resume-missing");
  const missingText = byId("resume-missing-text");
  const restoreButton = byId("resume-restore");
  const unusableList = byId("resume-unusable");
  const waitsList = byId("resume-waits");
  const resumeButton = byId("resume");
  const checkButton = byId("resume-check");

  let desk: TradingDesk | null = null;
  let environment: Environment | null = null;
  let plan: ResumePlan | null = null;
  let resumed = false;
  const claimed = new Set<string>();
  /** The row whose decision is being confirmed. */
  let confirming: { key: string; decision: Decision } | null = null;
  let drawing = false;

  const render = () => {
    const view = unfinishedView(plan, {
      resumed,
      claimed,
      decisions: desk?.needsDecision() ?? [],
      waits: desk?.waits() ?? [],
    });
    section.hidden = !desk || (view.empty && busy.hidden);
    headline.textContent = view.headline;
    list.hidden = view.rows.length === 0;
    // Redrawn from the desk's state: the control that had the focus gets it back.
    const active = document.activeElement as HTMLElement | null;
    const focusKey = active?.closest("li[data-key]")?.getAttribute("data-key") ?? null;
    const focusClass = focusKey ? [...(active?.classList ?? [])].find((c) => /^(decide|confirm|decision|claim)/.test(c)) : undefined;
    list.replaceChildren(...view.rows.map(itemNode));
    if (focusKey && focusClass) list.querySelector<HTMLElement>(`li[data-key="${CSS.escape(focusKey)}"] .${focusClass}`)?.focus();
    missingBox.hidden = !view.missing;
    missingText.textContent = view.missing?.text ?? "";
    unusableList.hidden = view.unusable.length === 0;
    unusableList.replaceChildren(...view.unusable.map((u) => h("li", { class: "warning" }, u)));
    waitsList.hidden = view.waits.length === 0;
    waitsList.replaceChildren(...view.waits.map((w) => h("li", {}, w)));
    resumeButton.hidden = resumed || !plan || plan.items.length === 0;
    resumeButton.textContent = view.resumeLabel;
    resumeButton.toggleAttribute("disabled", view.resumeCount === 0);
    resumeButton.classList.toggle("live", environment === "production");
    checkButton.hidden = !desk;
  };

  const itemNode = (row: UnfinishedRowView): HTMLElement => {
    const titleId = `unfinished-${row.key}`;
    const parts: Node[] = [
      h("div", { class: "line-title", id: titleId }, row.title),
      h("div", { class: "hint" }, row.meta),
      h("div", {}, h("span", { class: "label" }, "Service: "), row.serviceSays),
      h("div", { class: row.decide ? "warning" : "hint" }, row.next),
    ];
    if (row.claimable) {
      const box = h("fluent-checkbox", { class: "claim", "data-key": row.key }) as CheckboxElement;
      box.checked = claimed.has(row.key);
      mirrorCheckedState(box, "checkbox");
      box.addEventListener("change", () => {
        if (box.checked) claimed.add(row.key);
        else claimed.delete(row.key);
        schedule();
      });
      parts.push(h("label", { class: "choice" }, box, "This row is this account's (an older log without an account)"));
    }
    if (row.decide) {
      if (confirming?.key === row.key) {
        const c = decisionConfirmation(row, confirming.decision);
        const yes = h("fluent-button", { appearance: "primary", class: "confirm-decision", type: "button" }, c.button);
        const back = h("fluent-button", { class: "decision-back", type: "button" }, "Back");
        const decision = confirming.decision;
        yes.addEventListener("click", () => void decide(row.key, decision));
        back.addEventListener("click", () => {
          confirming = null;
          render();
          focusWhenReady(list.querySelector<HTMLElement>(`li[data-key="${CSS.escape(row.key)}"] fluent-button.decide-done`) ?? headline);
        });
        parts.push(
          h(
            "div",
            { class: "decision-confirm", role: "group", "aria-labelledby": titleId },
            h("p", {}, c.text),
            h("div", { class: "actions" }, yes, back),
          ),
        );
      } else {
        const done = h("fluent-button", { class: "decide-done", type: "button", "aria-describedby": titleId }, "It was done");
        const notDone = h("fluent-button", { class: "decide-not-done", type: "button", "aria-describedby": titleId }, "It was not done");
        done.addEventListener("click", () => ask(row.key, "done"));
        notDone.addEventListener("click", () => ask(row.key, "not_done"));
        parts.push(h("div", { class: "actions" }, done, notDone));
      }
    }
    return h("li", { "data-key": row.key, class: row.decide ? "needs-decision" : "" }, ...parts);
  };

  const ask = (key: string, decision: Decision) => {
    confirming = { key, decision };
    render();
    focusWhenReady(list.querySelector<HTMLElement>(`li[data-key="${CSS.escape(key)}"] fluent-button.confirm-decision`) ?? headline);
  };

  const decide = async (key: string, decision: Decision) => {
    if (!desk) return;
    confirming = null;
    showError(null);
    try {
      await desk.decide(key, decision);
      if (plan) plan = { ...plan, items: plan.items.filter((i) => i.row.idempotencyKey !== key) };
    } catch (e) {
      showError(errorView(e));
    }
    render();
    focusWhenReady(list.querySelector<HTMLElement>("fluent-button.decide-done") ?? (resumeButton.hidden ? headline : resumeButton));
  };

  const inspect = async () => {
    const current = desk;
    if (!current) return;
    busy.hidden = false;
    resumed = false;
    render();
    try {
      const next = await current.inspect();
      if (desk !== current) return;
      plan = next;
    } catch (e) {
      if (desk === current) showError(errorView(e));
    } finally {
      if (desk === current) {
        busy.hidden = true;
        render();
      }
    }
  };

  resumeButton.addEventListener("click", async () => {
    if (!desk || !plan || resumeButton.hasAttribute("disabled")) return;
    const view = unfinishedView(plan, { resumed: false, claimed, decisions: [], waits: [] });
    const c = resumeConfirmation(environment ?? "sandbox", view.resumeCount);
    resumeButton.toggleAttribute("disabled", true);
    if (c.steps === 2 && !(await askLiveConfirmation(c.dialog ?? ""))) {
      resumeButton.toggleAttribute("disabled", false);
      return;
    }
    showError(null);
    try {
      await desk.resume({ claim: [...claimed] });
      resumed = true;
    } catch (e) {
      showError(errorView(e));
      resumeButton.toggleAttribute("disabled", false);
    }
    render();
  });

  checkButton.addEventListener("click", () => void inspect());

  restoreButton.addEventListener("click", async () => {
    if (!desk || !plan) return;
    try {
      await desk.restore(plan.missing.map((r) => r.idempotencyKey));
    } catch (e) {
      showError(errorView(e));
    }
    await inspect();
  });

  const schedule = () => {
    if (drawing) return;
    drawing = true;
    requestAnimationFrame(() => {
      drawing = false;
      // A row being confirmed keeps its buttons steady until the user answers.
      render();
    });
  };

  return {
    setDesk(next, env) {
      desk = next;
      environment = env;
      plan = null;
      resumed = false;
      claimed.clear();
      confirming = null;
      render();
      if (next) void inspect();
    },
    refresh: schedule,
  };
}
