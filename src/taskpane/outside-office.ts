// What the pane runs on outside Office: nothing in production builds (the page says to open it from Excel); the development and test builds' harness entry registers the memory harness here.
import type { PaneDependencies } from "./pane-app";

/** The parts of the pane's dependencies a stand-in for Excel provides (the connection and hub stay the shared ones). */
export type StandIn = Pick<PaneDependencies, "store" | "workbench">;

/** Given the page's query string, a stand-in for Excel, or null when the page should just say to open it from Excel. */
export type StandInFactory = (search: string) => StandIn | null;

let factory: StandInFactory | null = null;

/** Called by src/taskpane/harness-entry.ts, which only development and test builds contain. */
export function registerStandIn(make: StandInFactory): void {
  factory = make;
}

/** The stand-in for this page outside Office, if this build has one and the URL asks for it. */
export function standInFor(search: string): StandIn | null {
  return factory ? factory(search) : null;
}
