// Task pane entry: waits for Office, then starts the pane in Excel, or in harness mode (?harness=memory) outside it, or says to open it from Excel.
import { OfficeWorkbook } from "../excel/office-workbook";
import { MemorySheetWriter, officeSheetWriter } from "../excel/recon-sheet";
import { officeSnapshotter } from "../excel/snapshot";
import { officeRuntimeStore } from "../excel/settings";
import { officeIntentStore } from "../excel/intent-store";
import { DEFAULT_BASE_URL, connection } from "../feeds/connection";
import { sharedHub } from "../feeds/shared";
import { createDesk } from "../trading/desk";
import { errorView } from "./connection-controller";
import { byId } from "./dom";
import { applyTheme, registerFluent } from "./fluent";
import { createHarness, wantsHarness } from "./harness";
import { startPane, type PaneDependencies } from "./pane-app";
import { chooseTheme } from "./theme-choice";

/** The local sandbox in development builds; production builds start empty so the user names the real service. */
const DEV_BASE_URL = process.env.NODE_ENV === "production" ? "" : DEFAULT_BASE_URL;
const OFFICE_READY_TIMEOUT_MS = 10_000;

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

async function main(): Promise<void> {
  registerFluent();
  const { host, theme } = await officeHost();
  const params = new URLSearchParams(location.search);
  const prefersDark = typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
  applyTheme(chooseTheme(theme, prefersDark, params.get("theme")));

  let deps: PaneDependencies;
  if (host === "Excel") {
    deps = {
      store: officeRuntimeStore(),
      workbook: new OfficeWorkbook(),
      connection,
      hub: sharedHub(),
      defaultBaseUrl: DEV_BASE_URL,
      createDesk,
      intentStore: officeIntentStore(),
      reconWriter: officeSheetWriter(),
      snapshotter: officeSnapshotter(),
    };
    // Follow Office's theme when the user changes it (hosts without the event keep the theme read at start).
    try {
      Office.context.document.addHandlerAsync?.(Office.EventType.OfficeThemeChanged, () =>
        applyTheme(chooseTheme(Office.context.officeTheme, prefersDark)),
      );
    } catch {
      // No theme event on this host.
    }
  } else if (wantsHarness(location.search, host)) {
    const harness = createHarness();
    window.hedgeHarness = harness.api;
    deps = {
      store: harness.store,
      workbook: harness.workbook,
      connection,
      hub: sharedHub(),
      defaultBaseUrl: DEV_BASE_URL,
      createDesk,
      intentStore: harness.intentStore,
      // The recon sheet lands in the memory workbook (window.hedgeHarness.cells reads it); no formulas, so no snapshot.
      reconWriter: new MemorySheetWriter(harness.workbook),
      snapshotter: null,
    };
    document.documentElement.dataset.mode = "harness";
  } else {
    byId("outside-office").hidden = false;
    return;
  }
  byId("app").hidden = false;
  try {
    await startPane(deps);
  } catch (e) {
    const view = errorView(e);
    const box = byId("connection-error");
    box.hidden = false;
    box.textContent = `${view.code}: ${view.message}`;
  }
  document.documentElement.dataset.ready = "true";
}

void main();
