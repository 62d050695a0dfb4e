// The trade panel's Action choice: the user's radio, or "From the Action column" while the rows read carry their own actions.
import type { Action, BatchAction } from "../trading/types";
import { ACTIONS } from "../trading/types";
import { mirrorCheckedState } from "./aria-mirror";
import type { Elements } from "./trade-elements";
import { ACTION_HELP, BATCH_LABELS, COLUMN_HELP } from "./trade-model";

/**
 * The Action choice: the user's radio, or "From the Action column" (shown and checked only while the rows read carry their
 * own actions). Choosing a radio calls `onChoose`; showing the column choice does not.
 */
export function mountActionChoice(els: Elements, onChoose: () => void) {
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

export type ActionChoice = ReturnType<typeof mountActionChoice>;
