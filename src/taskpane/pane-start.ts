// The pane's start, run by the task pane entry (taskpane.ts) once the saved start's first answers are in (only what the first view needs; the panels of a connection are a chunk loaded when it connects): waits for Office, then starts the pane in Excel, or outside it on a stand-in the build provides (development and test builds: ?harness=memory), or says to open it from Excel.
import { officeRuntimeStore } from "../excel/settings";
import { buildPolicy, BUILD_BASE_URL } from "../feeds/build-policy";
import { connection } from "../feeds/connection";
import { savedCheckSent, takeSavedCheck } from "../feeds/saved-start";
import { sharedHub } from "../feeds/shared";
import { paneVisibility } from "../feeds/visibility";
import { errorView } from "./connection-controller";
import { byId } from "./dom";
import { applyTheme, registerFluent } from "./fluent";
import { smokeFor, standInFor } from "./outside-office";
import { loadPanelCode, startPane, type PaneDependencies } from "./pane-app";
import { chooseTheme } from "./theme-choice";
import { REQUIREMENT_SETS, type OfficeFacts } from "./diagnostics";

const OFFICE_READY_TIMEOUT_MS = 10_000;
/** How long a saved key's pane stays hidden at most while its connection is restored and its panels mounted. */
const SHOW_AT_MOST_MS = 1_500;

/** Office.onReady's host, null outside Office, or null when Office.js did not load (or never got ready). */
async function officeHost(): Promise<{ host: string | null; theme: Office.OfficeTheme | null }> {
  if (typeof Office === "undefined" || typeof Office.onReady !== "function") return { host: null, theme: null };
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), OFFICE_READY_TIMEOUT_MS));
  const info = await Promise.race([Office.onReady(), timeout]);
  const host = info?.host ? String(info.host) : null;
  try {
    return { host, theme: host ? (Office.context?.officeTheme ?? null) : null };
  } catch {
    return { host, theme: null };
  }
}

/** The workbook's code and the desk, in the panels' chunk (imported once). */
let officeCode: Promise<typeof import("./office-workbench")> | null = null;
const loadOfficeCode = () =>
  (officeCode ??= import(/* webpackChunkName: "panels" */ "./office-workbench").catch((e: unknown) => {
    officeCode = null;
    throw e;
  }));

/**
 * Starts the pane. `answered`: the saved start's first answers are in (taskpane.ts waited for them); when they are
 * not (a slow service), the panels' code is not loaded before the connection, so as not to hold them further.
 */
export async function main({ answered }: { answered: boolean } = { answered: true }): Promise<void> {
  // A saved key's check is on its way (the engine sent it) and the first values are in: the panels' chunk (with the
  // workbook's code) is imported now, so they load while the first view is set up rather than after the connection (their
  // files are preloaded by the page).
  if (answered && savedCheckSent()) {
    void loadPanelCode().catch(() => undefined); // a failure is met again, and said, when the pane connects
    void loadOfficeCode().catch(() => undefined);
  }
  registerFluent();
  const { host, theme } = await officeHost();
  const params = new URLSearchParams(location.search);
  const prefersDark = typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
  applyTheme(chooseTheme(theme, prefersDark, params.get("theme")));

  const shared = { connection, hub: sharedHub(), defaultBaseUrl: BUILD_BASE_URL, policy: buildPolicy() };
  let deps: PaneDependencies;
  if (host === "Excel") {
    deps = {
      ...shared,
      store: officeRuntimeStore(),
      // The key's check the functions' engine sent at start (src/feeds/saved-start.ts), if it did.
      sentCheck: takeSavedCheck,
      // The workbook's code and the desk are in the panels' chunk, loaded when the pane first connects.
      workbench: () => loadOfficeCode().then((m) => m.officeWorkbench()),
      // The overview polls only while Office shows the pane (the shared runtime lives on when it is closed).
      visibility: paneVisibility(officeAddin(), document),
      officeFacts,
    };
    // Follow Office's theme when the user changes it (hosts without the event keep the theme read at start).
    try {
      Office.context.document.addHandlerAsync?.(Office.EventType.OfficeThemeChanged, () =>
        applyTheme(chooseTheme(Office.context.officeTheme, prefersDark)),
      );
    } catch {
      // No theme event on this host.
    }
  } else {
    const standIn = host ? null : standInFor(location.search);
    if (!standIn) {
      byId("outside-office").hidden = false;
      connection.settingsRead();
      return;
    }
    // Outside Office only the page's own visibility tells whether anyone looks.
    deps = { ...shared, ...standIn, visibility: paneVisibility(null, document) };
  }
  // A saved key connecting (its check already sent): the pane is shown once its connected panels are mounted, at most
  // SHOW_AT_MOST_MS later, so that the page is laid out once, whole, not first as the key form and again connected.
  const app = byId("app");
  const show = () => (app.hidden = false);
  if (answered && savedCheckSent()) setTimeout(show, SHOW_AT_MOST_MS);
  else show();
  try {
    const pane = await startPane(deps);
    // Test builds only (?smoke=PORT): the in-add-in smoke script, after the pane is up.
    const smoke = smokeFor({ search: location.search, host, pane, deps });
    if (smoke) void smoke();
  } catch (e) {
    const view = errorView(e);
    const box = byId("connection-error");
    box.hidden = false;
    box.textContent = `${view.code}: ${view.message}`;
  } finally {
    connection.settingsRead(); // cells never wait for settings that will not come
    show();
  }
  document.documentElement.dataset.ready = "true";
}

/** What Office says of itself, for Copy diagnostics: Office.context.diagnostics and the requirement sets the add-in uses. */
function officeFacts(): OfficeFacts | null {
  try {
    const d = Office.context.diagnostics;
    const supports: Record<string, boolean> = {};
    for (const set of REQUIREMENT_SETS)
      supports[`${set.name} ${set.version}`] = Office.context.requirements.isSetSupported(set.name, set.version);
    return { host: String(d.host), platform: String(d.platform), version: String(d.version), supports };
  } catch {
    return null;
  }
}

/** Office.addin where the host has it (SharedRuntime 1.1), else null. */
function officeAddin(): Office.Addin | null {
  try {
    return typeof Office.addin?.onVisibilityModeChanged === "function" ? Office.addin : null;
  } catch {
    return null;
  }
}
