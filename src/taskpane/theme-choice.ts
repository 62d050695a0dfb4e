// Which theme to use: Office's own theme when the host gives one (dark when its background is dark), else the system preference.

export type ThemeMode = "light" | "dark";

/** Relative luminance (0 black … 1 white) of a "#rrggbb" or "#rgb" colour; null when unreadable. */
export function luminance(hex: string | null | undefined): number | null {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec((hex ?? "").trim());
  if (!m) return null;
  const digits = m[1].length === 3 ? [...m[1]].map((c) => c + c).join("") : m[1];
  const [r, g, b] = [0, 2, 4]
    .map((i) => parseInt(digits.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

interface OfficeThemeLike {
  bodyBackgroundColor?: string;
  isDarkTheme?: boolean;
}

/** Office's theme first (isDarkTheme, else the body background's luminance), then the forced mode, then the system's. */
export function chooseTheme(officeTheme: OfficeThemeLike | null | undefined, prefersDark: boolean, forced?: string | null): ThemeMode {
  if (forced === "dark" || forced === "light") return forced;
  if (officeTheme) {
    if (typeof officeTheme.isDarkTheme === "boolean") return officeTheme.isDarkTheme ? "dark" : "light";
    const l = luminance(officeTheme.bodyBackgroundColor);
    if (l !== null) return l < 0.4 ? "dark" : "light";
  }
  return prefersDark ? "dark" : "light";
}
