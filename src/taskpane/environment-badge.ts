// The environment badge: SANDBOX, or a red LIVE that says production money, from the key's prefix.
import type { Environment } from "../api/environment";

interface BadgeModel {
  label: "SANDBOX" | "LIVE";
  tone: "neutral" | "danger";
  /** The sentence next to the badge. */
  description: string;
}

export function badgeModel(environment: Environment): BadgeModel {
  return environment === "production"
    ? { label: "LIVE", tone: "danger", description: "LIVE key: orders use production money." }
    : { label: "SANDBOX", tone: "neutral", description: "Sandbox key: test balances, no real money." };
}

/** Renders the badge into `host` (replacing its content). */
export function renderBadge(host: HTMLElement, environment: Environment | null): void {
  host.replaceChildren();
  if (!environment) {
    host.hidden = true;
    return;
  }
  const model = badgeModel(environment);
  host.hidden = false;
  host.className = `env-badge env-${model.tone}`;
  const label = document.createElement("strong");
  label.className = "env-label";
  label.textContent = model.label;
  const text = document.createElement("span");
  text.textContent = model.description;
  host.append(label, " ", text);
}
