// What only development and test builds add to the page, registered by their harness entry: the memory harness outside Office, and the smoke run of npm run test:excel; production builds have neither (the page says to open it from Excel).
import type { Pane, PaneDependencies } from "./pane-app";

/** The parts of the pane's dependencies a stand-in for Excel provides (the connection and hub stay the shared ones). */
type StandIn = Pick<PaneDependencies, "store" | "workbench">;

/** Given the page's query string, a stand-in for Excel, or null when the page should just say to open it from Excel. */
type StandInFactory = (search: string) => StandIn | null;

let factory: StandInFactory | null = null;

/** Called by src/taskpane/harness-entry.ts, which only development and test builds contain. */
export function registerStandIn(make: StandInFactory): void {
  factory = make;
}

/** The stand-in for this page outside Office, if this build has one and the URL asks for it. */
export function standInFor(search: string): StandIn | null {
  return factory ? factory(search) : null;
}

/** What a test build's smoke run gets once the pane is up: the page's query, Office's host (null outside Office), the pane and its parts. */
interface SmokeContext {
  search: string;
  host: string | null;
  pane: Pane;
  deps: PaneDependencies;
}

/** Given the page, the smoke run to start, or null when the URL does not ask for one (or the build has none). */
type SmokeFactory = (context: SmokeContext) => (() => Promise<void>) | null;

let smoke: SmokeFactory | null = null;

/** Called by src/taskpane/harness-entry.ts (development and test builds only): the in-add-in smoke script of npm run test:excel. */
export function registerSmoke(make: SmokeFactory): void {
  smoke = make;
}

/** The smoke run this page should start, if this build has one and the URL asks for it (?smoke=PORT). */
export function smokeFor(context: SmokeContext): (() => Promise<void>) | null {
  return smoke ? smoke(context) : null;
}
