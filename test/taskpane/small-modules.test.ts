// Theme choice, harness detection and the Chromium finder.
import { chooseTheme, luminance } from "../../src/taskpane/theme-choice";
import { wantsHarness } from "../../src/taskpane/harness";
import { findChromium } from "../e2e/browser";

describe("theme", () => {
  test("follows Office's theme: its dark flag, else its background's lightness", () => {
    expect(chooseTheme({ isDarkTheme: true, bodyBackgroundColor: "#ffffff" }, false)).toBe("dark");
    expect(chooseTheme({ bodyBackgroundColor: "#262626" }, false)).toBe("dark");
    expect(chooseTheme({ bodyBackgroundColor: "#f3f3f3" }, true)).toBe("light");
  });

  test("without Office's theme: the system preference, unless the URL forces one", () => {
    expect(chooseTheme(null, true)).toBe("dark");
    expect(chooseTheme(null, false)).toBe("light");
    expect(chooseTheme(null, false, "dark")).toBe("dark");
    expect(chooseTheme({ bodyBackgroundColor: "not a colour" }, false)).toBe("light");
  });

  test("luminance of colours", () => {
    expect(luminance("#000")).toBe(0);
    expect(luminance("#ffffff")).toBeCloseTo(1);
    expect(luminance("blue")).toBeNull();
  });
});

describe("harness mode", () => {
  test("only outside Office and only when asked for", () => {
    expect(wantsHarness("?harness=memory", null)).toBe(true);
    expect(wantsHarness("?harness=memory", "Excel")).toBe(false);
    expect(wantsHarness("", null)).toBe(false);
    expect(wantsHarness("?harness=other", undefined)).toBe(false);
  });
});

describe("Chromium finder", () => {
  test("CHROMIUM_PATH wins when it exists; else the first usual path that exists; else null", () => {
    const has =
      (...paths: string[]) =>
      (p: string) =>
        paths.includes(p);
    expect(findChromium({ CHROMIUM_PATH: "/opt/chrome" }, has("/opt/chrome", "/usr/bin/chromium"))).toBe("/opt/chrome");
    expect(findChromium({ CHROMIUM_PATH: "/missing" }, has("/usr/bin/chromium"))).toBeNull();
    expect(findChromium({}, has("/usr/bin/chromium-browser"))).toBe("/usr/bin/chromium-browser");
    expect(findChromium({}, has())).toBeNull();
  });
});
