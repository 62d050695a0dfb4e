// Registers the few Fluent UI web components (v3) the pane uses and applies Fluent's light or dark web theme as CSS custom properties.
import {
  Button,
  ButtonDefinition,
  Checkbox,
  CheckboxDefinition,
  Dialog,
  DialogBody,
  DialogBodyDefinition,
  DialogDefinition,
  Dropdown,
  DropdownDefinition,
  DropdownOption,
  DropdownOptionDefinition,
  Listbox,
  ListboxDefinition,
  ProgressBar,
  ProgressBarDefinition,
  Radio,
  RadioDefinition,
  RadioGroup,
  RadioGroupDefinition,
  TextInput,
  TextInputDefinition,
  setTheme,
} from "@fluentui/web-components";
import { webDarkTheme, webLightTheme } from "@fluentui/tokens";
import type { ThemeMode } from "./theme-choice";

/** Each component class with its definition (tag name, template, styles); only these are bundled. */
const COMPONENTS: Array<[{ define(definition: never): unknown }, { name: string }]> = [
  [Button, ButtonDefinition],
  [TextInput, TextInputDefinition],
  [Checkbox, CheckboxDefinition],
  [RadioGroup, RadioGroupDefinition],
  [Radio, RadioDefinition],
  [ProgressBar, ProgressBarDefinition],
  [Dialog, DialogDefinition],
  [DialogBody, DialogBodyDefinition],
  [Dropdown, DropdownDefinition],
  [Listbox, ListboxDefinition],
  [DropdownOption, DropdownOptionDefinition],
];

/** Defines the pane's Fluent elements (fluent-button, fluent-text-input, …) once; a tag already defined is left alone. */
export function registerFluent(): void {
  for (const [type, definition] of COMPONENTS) {
    if (!customElements.get(definition.name)) type.define(definition as never);
  }
}

/** Sets Fluent's web light or dark theme (its tokens become CSS custom properties such as --colorNeutralBackground1). */
export function applyTheme(mode: ThemeMode): void {
  setTheme(mode === "dark" ? webDarkTheme : webLightTheme);
  document.documentElement.dataset.theme = mode;
}
