// Registers the few Fluent UI web components the pane uses and applies the light or dark Fluent theme.
import {
  StandardLuminance,
  accentFillRest,
  accentForegroundRest,
  baseLayerLuminance,
  bodyFont,
  fillColor,
  fluentButton,
  fluentCheckbox,
  fluentDialog,
  fluentProgress,
  fluentRadio,
  fluentRadioGroup,
  fluentTextField,
  foregroundOnAccentRest,
  neutralFillLayerRest,
  neutralFillSecondaryRest,
  neutralForegroundHint,
  neutralForegroundRest,
  neutralLayer1,
  neutralStrokeDividerRest,
  provideFluentDesignSystem,
  typeRampBaseFontSize,
  typeRampBaseLineHeight,
  typeRampMinus1FontSize,
} from "@fluentui/web-components";
import type { ThemeMode } from "./theme-choice";

let registered = false;

export function registerFluent(): void {
  if (registered) return;
  registered = true;
  provideFluentDesignSystem().register(fluentButton(), fluentTextField(), fluentCheckbox(), fluentRadioGroup(), fluentRadio(), fluentProgress(), fluentDialog());
}

type Colorish = { toColorString(): string } | string;
const css = (v: Colorish) => (typeof v === "string" ? v : v.toColorString());

/** Sets the Fluent luminance on the page and copies the resolved colours into CSS variables for the pane's own styles. */
export function applyTheme(mode: ThemeMode): void {
  const root = document.body;
  baseLayerLuminance.setValueFor(root, mode === "dark" ? StandardLuminance.DarkMode : StandardLuminance.LightMode);
  fillColor.setValueFor(root, neutralLayer1.getValueFor(root));
  const style = document.documentElement.style;
  const vars: Record<string, string> = {
    "--hx-bg": css(neutralLayer1.getValueFor(root)),
    "--hx-fg": css(neutralForegroundRest.getValueFor(root)),
    "--hx-hint": css(neutralForegroundHint.getValueFor(root)),
    "--hx-layer": css(neutralFillLayerRest.getValueFor(root)),
    "--hx-subtle": css(neutralFillSecondaryRest.getValueFor(root)),
    "--hx-stroke": css(neutralStrokeDividerRest.getValueFor(root)),
    "--hx-accent": css(accentFillRest.getValueFor(root)),
    "--hx-accent-fg": css(accentForegroundRest.getValueFor(root)),
    "--hx-on-accent": css(foregroundOnAccentRest.getValueFor(root)),
    "--hx-font": bodyFont.getValueFor(root),
    "--hx-font-size": typeRampBaseFontSize.getValueFor(root),
    "--hx-line-height": typeRampBaseLineHeight.getValueFor(root),
    "--hx-small": typeRampMinus1FontSize.getValueFor(root),
  };
  for (const [name, value] of Object.entries(vars)) style.setProperty(name, value);
  document.documentElement.dataset.theme = mode;
}
