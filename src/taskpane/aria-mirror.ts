// Puts what Fluent v3 elements keep in ElementInternals (role, checked, expanded, name) into ARIA attributes too, where Fluent leaves gaps or DOM-based audits (axe) cannot see it.
import { Observable } from "@microsoft/fast-element";

type Toggle = HTMLElement & { checked: boolean };

/**
 * A fluent-radio or fluent-checkbox: role and aria-checked as attributes, kept equal to the element's `checked`
 * (Fluent notifies every change, also when a radio group unchecks the others), and the text of its label as its name.
 */
export function mirrorCheckedState(el: HTMLElement, role: "radio" | "checkbox"): void {
  el.setAttribute("role", role);
  const name = el.closest("label")?.textContent?.trim();
  if (name && !el.hasAttribute("aria-label")) el.setAttribute("aria-label", name);
  const sync = () => el.setAttribute("aria-checked", String(Boolean((el as Toggle).checked)));
  Observable.getNotifier(el).subscribe({ handleChange: sync }, "checked");
  sync();
}

/**
 * Fluent's button-style dropdown renders its combobox button without a name and, until first opened, without
 * aria-expanded: name it by `labelId` and say it is collapsed, also after Fluent re-renders the button.
 */
export function labelDropdownControl(dropdown: HTMLElement, labelId: string): void {
  const apply = () => {
    const control = dropdown.querySelector<HTMLElement>(':scope > [slot="control"]');
    if (!control) return;
    if (control.getAttribute("aria-labelledby") !== labelId) control.setAttribute("aria-labelledby", labelId);
    if (!control.hasAttribute("aria-expanded")) control.setAttribute("aria-expanded", "false");
  };
  new MutationObserver(apply).observe(dropdown, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ["aria-expanded", "aria-labelledby"],
  });
  apply();
}

/**
 * Every fluent-button under `root`: aria-disabled follows its `disabled` attribute. The browser already treats a
 * disabled form-associated element as disabled; DOM-based audits only see the attribute (and then skip its contrast).
 */
export function mirrorDisabledButtons(root: HTMLElement): void {
  const sync = (el: Element) => {
    if (el.localName !== "fluent-button") return;
    if (el.hasAttribute("disabled")) el.setAttribute("aria-disabled", "true");
    else el.removeAttribute("aria-disabled");
  };
  root.querySelectorAll("fluent-button").forEach(sync);
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "attributes") sync(r.target as Element);
      else r.addedNodes.forEach((n) => n instanceof Element && [n, ...n.querySelectorAll("fluent-button")].forEach(sync));
    }
  }).observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ["disabled"] });
}
