// The connection panel: API key (password field), base URL, Connect and Forget key, and the connection's status line.
import { renderBadge } from "./environment-badge";
import { byId, h } from "./dom";
import { formatUsdc } from "./format";
import type { ConnectionController, ConnectionState, ErrorView } from "./connection-controller";
import { keyAccessNote } from "./key-access";

/** "code: message — advice" as a block for an alert region. */
export function renderError(host: HTMLElement, error: ErrorView | null): void {
  host.replaceChildren();
  host.hidden = !error;
  if (!error) return;
  host.append(h("strong", { class: "error-code" }, error.code), " ", h("span", {}, error.message));
  if (error.advice) host.append(h("div", { class: "advice" }, `What to do: ${error.advice}`));
}

/** The status line's words for a connection state; only the masked key ever appears. */
export function connectionSummary(state: ConnectionState): string {
  switch (state.status) {
    case "connecting":
      return `Connecting to ${state.baseUrl} with key ${state.maskedKey}…`;
    case "connected":
      return `Connected with key ${state.maskedKey} to ${state.baseUrl}.`;
    default:
      return "Not connected. Enter your API key and Connect.";
  }
}

/** The part of fluent-text-input the panel touches. */
type TextFieldElement = HTMLElement & { value: string };

export function mountConnectionPanel(controller: ConnectionController): void {
  const form = byId<HTMLFormElement>("connect-form");
  const edit = byId<HTMLDetailsElement>("connection-edit");
  const keyField = byId<HTMLInputElement>("api-key");
  const urlField = byId<TextFieldElement>("base-url");
  const connectButton = byId("connect");
  const forgetButton = byId("forget");
  const status = byId("connection-status");
  const details = byId("connection-details");
  const error = byId("connection-error");
  const busy = byId("connection-busy");
  const badge = byId("env-badge");
  const badgeRow = byId("env-badge-row");

  const submit = async () => {
    if (controller.current.status === "connecting") return;
    const key = keyField.value;
    const state = await controller.connect(key, urlField.value);
    // The typed key leaves the page once it was tried: from here on only its masked form is shown.
    if (state.status === "connected") keyField.value = "";
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void submit();
  });
  forgetButton.addEventListener("click", () => {
    keyField.value = "";
    void controller.forget();
  });

  let lastStatus: ConnectionState["status"] | null = null;
  const render = (state: ConnectionState) => {
    // Fold the form away on connecting successfully, open it when the connection is gone; the user may toggle it in between.
    if (state.status !== lastStatus && state.status !== "connecting") edit.open = state.status !== "connected";
    lastStatus = state.status;
    status.textContent = connectionSummary(state);
    busy.hidden = state.status !== "connecting";
    connectButton.toggleAttribute("disabled", state.status === "connecting");
    forgetButton.hidden = state.status !== "connected";
    if (document.activeElement !== urlField && urlField.value !== state.baseUrl) urlField.value = state.baseUrl;
    renderError(error, state.status === "disconnected" ? state.error : null);
    renderBadge(badge, state.status === "disconnected" ? null : state.environment);
    badgeRow.hidden = badge.hidden;
    keyField.setAttribute(
      "placeholder",
      state.status === "connected"
        ? `Saved for ${new URL(state.baseUrl).origin}: ${state.maskedKey} — type a new key to replace it`
        : "svc_test_… or svc_live_…",
    );
    details.replaceChildren();
    if (state.status === "connected") {
      details.append(
        h(
          "div",
          {},
          h("span", { class: "label" }, "Account "),
          h("span", { class: "mono", id: "account-address" }, state.account.account_address ?? "no on-chain address yet"),
        ),
        h(
          "div",
          {},
          h("span", { class: "label" }, "Balance "),
          h("span", { id: "account-balance" }, formatUsdc(state.account.balance_usdc)),
        ),
        // The public fingerprint tells a preparer's key from an approver's (the Approvals sheet and the log name keys by it).
        h(
          "div",
          {},
          h("span", { class: "label" }, "Key fingerprint "),
          h("span", { class: "mono", id: "key-fingerprint" }, state.fingerprint),
        ),
      );
      const note = keyAccessNote(state.access);
      if (note) details.append(h("div", { id: "key-access", class: state.access === "read_only" ? "key-read-only" : "" }, note));
    }
    document.body.classList.toggle("is-live", state.status !== "disconnected" && state.environment === "production");
  };
  controller.onChange(render);
  render(controller.current);
}
