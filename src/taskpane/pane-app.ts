// Starts the pane: the connection form, the overview (with the maturities) and Copy diagnostics at once; the panels of a connection (trade, resume, approvals, month end) loaded and mounted when it first connects.
import type { SettingsStore } from "../feeds/settings-store";
import type { Connection } from "../feeds/connection";
import type { FeedHub } from "../feeds/hub";
import type { Visibility } from "../feeds/visibility";
import type { ServicePolicy } from "../api/environment";
import type { TradingDesk } from "../trading/desk/contract";
import type { IntentStore } from "../trading/intent-store";
import { ConnectionController, errorView, type ConnectionControllerOptions } from "./connection-controller";
import { mountConnectionPanel } from "./connection-panel";
import { mirrorDisabledButtons } from "./aria-mirror";
import { byId } from "./dom";
import { mountOverviewPanel } from "./overview-panel";
import { MaturityWatch } from "./maturities-model";
import { ErrorLog, type OfficeFacts } from "./diagnostics";
import { mountDiagnosticsPanel } from "./diagnostics-panel";
import type { Workbench, Workspace, WorkspaceDependencies } from "./workspace";

export interface PaneDependencies {
  store: SettingsStore;
  connection: Connection;
  hub: FeedHub;
  /** Shown in the base URL field when none was saved. */
  defaultBaseUrl: string;
  /** Where this build may send a key (from SERVICE_ORIGINS and the build mode); no restriction when absent. */
  policy?: ServicePolicy;
  /**
   * The workbook, this computer's journal, the desk and the rest the panels of a connection work on: asked for when the
   * pane first connects (in Excel its code is in the panels' chunk, loaded then), never before.
   */
  workbench: () => Promise<Workbench>;
  /** Epoch ms now, for the month-end panel; Date.now by default. */
  now?: () => number;
  /** Whether the pane can be seen: its overview polls only while it can (always visible when absent). */
  visibility?: Visibility;
  /** The key's check already sent at start (in Excel: by the functions' engine), taken instead of asking again. */
  sentCheck?: ConnectionControllerOptions["sentCheck"];
  /** Office's host, platform, version and requirement sets for Copy diagnostics (the entry file reads them); null outside Office. */
  officeFacts?: () => OfficeFacts | null;
}

export interface Pane {
  controller: ConnectionController;
  /** Copy diagnostics' error log. */
  errors: ErrorLog;
  /** The desk of the current connection, if any. */
  desk(): TradingDesk | null;
}

/**
 * Mounts what the page shows before any connection (the key form, the overview), then restores the saved connection.
 * The first time the pane is connected, the panels' chunk is loaded (trade with the desk, approvals, month end, the
 * workbook's code: one chunk, "panels") and the panels mounted; each connection state is then handed to them in order. A saved key that
 * connects at start resolves only once its panels are mounted.
 */
export async function startPane(deps: PaneDependencies): Promise<Pane> {
  mirrorDisabledButtons(byId("app"));
  const controller = new ConnectionController({
    store: deps.store,
    connection: deps.connection,
    defaultBaseUrl: deps.defaultBaseUrl,
    policy: deps.policy,
    sentCheck: deps.sentCheck,
  });
  mountConnectionPanel(controller);
  let journal: IntentStore | null = null; // this computer's journal, once the workbench is loaded
  const errors = new ErrorLog();
  mountDiagnosticsPanel({
    controller,
    store: deps.store,
    intentStore: () => journal,
    errors,
    officeFacts: deps.officeFacts ?? (() => null),
  });
  // The overview's maturities remember what the last proposal wanted; Propose beside a side proposes again from it.
  const maturities = new MaturityWatch();
  const overview = mountOverviewPanel(deps.hub, (account) => controller.updateAccount(account), deps.now ?? Date.now, deps.visibility, {
    watch: maturities,
    onPropose: (item) =>
      void opened?.proposeAgain(item.side === "buy" || item.side === "sell" ? { market: item.market, side: item.side } : undefined),
  });
  const onProposal = (
    rows: Parameters<MaturityWatch["observeProposal"]>[0],
    positions: Parameters<MaturityWatch["observeProposal"]>[1],
    only?: Parameters<MaturityWatch["observeProposal"]>[2],
    inputs?: Parameters<MaturityWatch["observeProposal"]>[3],
  ) => {
    maturities.observeProposal(rows, positions, only, inputs);
    overview.renderMaturities();
  };

  let workspace: Promise<Workspace> | null = null;
  let opened: Workspace | null = null;
  let turn: Promise<void> = Promise.resolve();
  let connected = false;
  controller.onChange((state) => {
    if (state.status === "disconnected") errors.record("connection", state.error?.code);
    // Only a change of connection moves the overview: an account update (which the overview itself reports) must not.
    if ((state.status === "connected") !== connected) overview.setConnected((connected = state.status === "connected"));
    if (!workspace) {
      if (state.status !== "connected") return;
      const parts = { controller, errors, onProposal, onWorkbench: (store: IntentStore) => (journal = store) };
      workspace = openWorkspace(deps, parts).then((w) => (opened = w));
    }
    const loading = workspace;
    turn = turn
      .then(async () => (await loading).follow(state))
      .catch((e: unknown) => {
        // The panels' code could not be loaded (the add-in's server unreachable): said, and tried again on the next connection.
        if (workspace === loading) workspace = null;
        showStartError(e);
      });
  });

  try {
    await controller.restore();
  } finally {
    // The saved settings have been read: cells still without a client may now say "set your API key".
    deps.connection.settingsRead();
  }
  await turn;
  return { controller, errors, desk: () => opened?.desk() ?? null };
}

/**
 * The panels' code, imported once (a failed import is tried again on the next call). Every import of the panels and the
 * workbook names the one chunk "panels": one file to fetch and run rather than twelve (in a trace at 4× CPU the twelve
 * files' script elements took about 100 ms of the pane's start; test/README.md, Benchmarks, "The fifth round").
 */
let panelCode: Promise<
  [typeof import("./workspace"), typeof import("./approvals-panel"), typeof import("./month-end-panel"), typeof import("./archive-panel")]
> | null = null;

/**
 * Imports the panels' chunk (trade with the desk, approvals, month end): when the pane first connects, or earlier, by
 * the pane's start, when a saved connection's check is already on its way (their files arrive and their modules run
 * while the first view is mounted, not after the connection).
 */
export function loadPanelCode(): NonNullable<typeof panelCode> {
  panelCode ??= Promise.all([
    import(/* webpackChunkName: "panels" */ "./workspace"),
    import(/* webpackChunkName: "panels" */ "./approvals-panel"),
    import(/* webpackChunkName: "panels" */ "./month-end-panel"),
    import(/* webpackChunkName: "panels" */ "./archive-panel"),
  ]).catch((e: unknown) => {
    panelCode = null;
    throw e;
  });
  return panelCode;
}

/** Loads the panels' chunk and the workbench together, and mounts the panels. */
async function openWorkspace(
  deps: PaneDependencies,
  parts: Pick<WorkspaceDependencies, "controller" | "errors" | "onProposal"> & { onWorkbench: (journal: IntentStore) => void },
): Promise<Workspace> {
  const [[{ mountWorkspace }, approvals, monthEnd, archive], workbench] = await Promise.all([loadPanelCode(), deps.workbench()]);
  parts.onWorkbench(workbench.intentStore);
  return mountWorkspace({ ...deps, ...parts, workbench }, { approvals, monthEnd, archive });
}

function showStartError(e: unknown): void {
  const view = errorView(e);
  const box = byId("connection-error");
  box.hidden = false;
  box.textContent = `${view.code}: ${view.message}`;
}
