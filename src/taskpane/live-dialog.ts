// The LIVE batch's second, deliberate confirmation in a modal Fluent dialog (the trade panel's Confirm and the resume panel's Resume ask it).
import { byId, focusWhenReady } from "./dom";

type DialogElement = HTMLElement & { show(): void; hide(): void };

/** Whether the fluent-dialog's native <dialog> is open. */
function dialogIsOpen(dialog: HTMLElement): boolean {
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
