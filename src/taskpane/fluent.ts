// Registers the Fluent UI web components (v3) the pane's first view uses (the connection form) and applies Fluent's light or dark web theme as CSS custom properties; the rest of the components come with the panels (fluent-panels.ts).
import {
  Button,
  ButtonDefinition,
  ProgressBar,
  ProgressBarDefinition,
  TextInput,
  TextInputDefinition,
  setTheme,
} from "@fluentui/web-components";
import { webDarkTheme, webLightTheme } from "@fluentui/tokens";
import type { ThemeMode } from "./theme-choice";

/** A component class with its definition (tag name, template, styles); only the listed ones are bundled. */
export type FluentComponent = [{ define(definition: never): unknown }, { name: string }];

/** What the page shows before anything is connected: the key form's button, text input and busy bar. */
const FIRST_VIEW: FluentComponent[] = [
  [Button, ButtonDefinition],
  [TextInput, TextInputDefinition],
  [ProgressBar, ProgressBarDefinition],
];

/** Defines Fluent elements once; a tag already defined is left alone (an element in the page upgrades when its tag is defined). */
export function defineFluent(components: readonly FluentComponent[]): void {
  for (const [type, definition] of components) {
    if (!customElements.get(definition.name)) type.define(definition as never);
  }
}

/** Defines the first view's Fluent elements (fluent-button, fluent-text-input, fluent-progress-bar). */
export function registerFluent(): void {
  defineFluent(FIRST_VIEW);
}

/** Sets Fluent's web light or dark theme (its tokens become CSS custom properties such as --colorNeutralBackground1). */
export function applyTheme(mode: ThemeMode): void {
  setTheme(mode === "dark" ? webDarkTheme : webLightTheme);
  document.documentElement.dataset.theme = mode;
}
