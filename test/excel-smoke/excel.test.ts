// Where the smoke run finds desktop Excel, and why it skips: CI, Linux, a PC or Mac without Excel.
import { findDesktopExcel } from "./excel";

const only = (path: string) => (p: string) => p === path;

test("Windows: EXCEL.EXE of Microsoft 365 under Program Files is found", () => {
  const exe = "C:\\Program Files\\Microsoft Office\\root\\Office16\\EXCEL.EXE";
  expect(findDesktopExcel("win32", { ProgramFiles: "C:\\Program Files" }, only(exe))).toEqual({ excel: exe });
});

test("Mac: Microsoft Excel.app in Applications is found", () => {
  expect(findDesktopExcel("darwin", {}, only("/Applications/Microsoft Excel.app"))).toEqual({ excel: "/Applications/Microsoft Excel.app" });
});

test.each([
  ["linux", {}, /no desktop Excel on Linux/],
  ["win32", { ProgramFiles: "C:\\Program Files" }, /EXCEL\.EXE not found/],
  ["darwin", {}, /not found/],
  ["darwin", { CI: "true" }, /CI is set/],
] as const)("%s %j: skipped, saying why", (platform, env, why) => {
  const found = findDesktopExcel(platform, env, () => false);
  expect("skip" in found && found.skip).toMatch(why);
});
