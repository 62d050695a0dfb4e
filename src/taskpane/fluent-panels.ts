// The Fluent UI web components (v3) only the panels shown once connected use (radios, checkbox, dialog, dropdown), defined when their chunk loads.
import {
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
  Radio,
  RadioDefinition,
  RadioGroup,
  RadioGroupDefinition,
} from "@fluentui/web-components";
import { defineFluent, registerFluent, type FluentComponent } from "./fluent";

const PANELS: FluentComponent[] = [
  [Checkbox, CheckboxDefinition],
  [RadioGroup, RadioGroupDefinition],
  [Radio, RadioDefinition],
  [Dialog, DialogDefinition],
  [DialogBody, DialogBodyDefinition],
  [Dropdown, DropdownDefinition],
  [Listbox, ListboxDefinition],
  [DropdownOption, DropdownOptionDefinition],
];

/** Defines every Fluent element the pane uses (the first view's too, so a panel may be mounted on its own, as in tests). */
export function registerPanelFluent(): void {
  registerFluent();
  defineFluent(PANELS);
}
