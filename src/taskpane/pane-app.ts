// Wires the pane: connection, overview, trade and month-end panels over one settings store, workbook, connection, feed hub and trading desk.
import type { Workbook } from "../trading/workbook";
import type { ApprovalsSheet } from "../trading/approvals/port";
import type { SettingsStore } from "../feeds/settings-store";
import type { Connection } from "../feeds/connection";
import type { FeedHub } from "../feeds/hub";
import type { Visibility } from "../feeds/visibility";
import type { HedgingClient } from "../api/client";
import type { ServicePolicy } from "../api/environment";
import type { Snapshotter } from "../monthend/snapshot-plan";
import type { SheetWriter } from "../monthend/sheet-content";
import type { Progress } from "../trading/types";
import type { DeskOptions, TradingDesk } from "../trading/desk/contract";
import type { IntentStore } from "../trading/intent-store";
import type { ApprovalJournal } from "../trading/approvals/port";
import { isFinal } from "../trading/intent";
import { ConnectionController, errorView } from "./connection-controller";
import { mountConnectionPanel } from "./connection-panel";
import { mirrorDisabledButtons } from "./aria-mirror";
import { byId } from "./dom";
import { monthEndLog, mountMonthEndPanel } from "./month-end-panel";
import { mountArchivePanel } from "./archive-panel";
import { MaturityWatch } from "./maturities-model";
import { mountOverviewPanel } from "./overview-panel";
import { askLiveConfirmation, mountTradePanel, type TradePanel } from "./trade-panel";
import { mountResumePanel } from "./resume-panel";
import { mountApprovalsPanel } from "./approvals-panel";
import { directTradeRefusal } from "./key-access";
import { memoryDocumentRules, type DocumentRules } from "../excel/document-settings";
import { ErrorLog, type OfficeFacts } from "./diagnostics";
import { mountDiagnosticsPanel } from "./diagnostics-panel";

export interface PaneDependencies {
  store: SettingsStore;
  workbook: Workbook & ApprovalsSheet;
  connection: Connection;
  hub: FeedHub;
  /** Shown in the base URL field when none was saved. */
  defaultBaseUrl: string;
  /** Where this build may send a key (from SERVICE_ORIGINS and the build mode); no restriction when absent. */
  policy?: ServicePolicy;
  createDesk: (options: DeskOptions) => Promise<TradingDesk>;
  /** This computer's journal of intents (OfficeRuntime.storage in Excel, in memory in the harness). */
  intentStore: IntentStore;
  /** This computer's journal of approval decisions (the same per-user storage); in memory when absent. */
  approvalJournal?: ApprovalJournal;
  /** Where Reconcile month writes its sheet: officeSheetWriter() in Excel, a MemorySheetWriter in the harness. */
  reconWriter: SheetWriter;
  /** Snapshot to values: officeSnapshotter() in Excel; null hides the button (the harness has no formulas). */
  snapshotter: Snapshotter | null;
  /** Epoch ms now, for the month-end panel; Date.now by default. */
  now?: () => number;
  /** Whether the pane can be seen: its overview polls only while it can (always visible when absent). */
  visibility?: Visibility;
  /** The workbook's own rules (its document settings: "LIVE trades need approval"); in memory when absent. */
  rules?: DocumentRules;
  /** Office's host, platform, version and requirement sets for Copy diagnostics (the entry file reads them); null outside Office. */
  officeFacts?: () => OfficeFacts | null;
}

export interface Pane {
  controller: ConnectionController;
  /** The errors the pane met (codes and times), for Copy diagnostics. */
  errors: ErrorLog;
  /** The desk of the current connection, if any. */
  desk(): TradingDesk | null;
}

// 105 lines: the one place that wires the panels to each other and to the connection (each panel's logic is in its own module).
export async function startPane(deps: PaneDependencies): Promise<Pane> {
  mirrorDisabledButtons(byId("app"));
  const controller = new ConnectionController({
    store: deps.store,
    connection: deps.connection,
    defaultBaseUrl: deps.defaultBaseUrl,
    policy: deps.policy,
  });
  mountConnectionPanel(controller);
  const errors = new ErrorLog();
  mountDiagnosticsPanel({
    controller,
    store: deps.store,
    intentStore: deps.intentStore,
    errors,
    officeFacts: deps.officeFacts ?? (() => null),
  });
  // The overview's maturities remember what the last proposal wanted; Propose beside a side proposes again from it.
  const maturities = new MaturityWatch();
  const trade = mountTradePanel({
    workbook: deps.workbook,
    writer: deps.reconWriter,
    client: () => deps.connection.client,
    now: deps.now,
    onProposal: (rows, positions) => {
      maturities.observeProposal(rows, positions);
      overview.renderMaturities();
    },
  });
  const resume = mountResumePanel((e) => e && trade.showError(e));
  let desk: TradingDesk | null = null;
  let deskClient: HedgingClient | null = null;
  const approvals = mountApprovals(deps, controller, trade, () => desk);
  const overview = mountOverviewPanel(deps.hub, (account) => controller.updateAccount(account), deps.now ?? Date.now, deps.visibility, {
    watch: maturities,
    onPropose: () => void trade.proposeAgain(),
  });
  const tradeSection = byId("trade-section");
  const monthEndHost = byId("month-end-host");
  mountMonthEndPanel(monthEndHost, {
    client: () => deps.connection.client,
    ...monthEndLog(deps.workbook, deps.intentStore),
    writer: deps.reconWriter,
    snapshotter: deps.snapshotter,
    now: deps.now,
  });
  const archiveLog = deps.workbook.archiveLog?.bind(deps.workbook);
  if (archiveLog) mountArchivePanel(monthEndHost, { archiveLog, now: deps.now });

  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  const refreshFeedsSoon = () => {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => deps.hub.refreshAfterTrade(), 300);
  };

  controller.onChange((state) => {
    if (state.status === "disconnected") errors.record("connection", state.error?.code);
    const client = state.status === "connected" ? state.client : null;
    // The same connection learnt something (its scope, its account's figures): the approvals follow the scope.
    if (client === deskClient) return approvals.follow();
    desk?.stop();
    desk = null;
    deskClient = client;
    tradeSection.hidden = !client;
    monthEndHost.hidden = !client;
    overview.setConnected(client !== null);
    approvals.follow();
    if (!client) {
      trade.setDesk(null);
      resume.setDesk(null, null);
      return;
    }
    // The desk is built for the account the connection proved (GET /account), once the log and the journal are read.
    const account = state.status === "connected" ? (state.account.account_address ?? null) : null;
    const learn = (code: string | null | undefined) => controller.learnFrom(code);
    const trouble = { record: (where: string, code: string | null | undefined) => errors.record(where, code) };
    void deps
      .createDesk(
        deskOptions(deps, client, account, { trade, resume, refreshFeedsSoon, learn, trouble, approvalsProgress: approvals.onProgress }),
      )
      .then(
        (current) => {
          // Another connection (or none) came meanwhile: this desk is not the pane's.
          if (deskClient !== client) return current.stop();
          desk = current;
          trade.setDesk(current);
          approvals.follow();
          // On opening (and on every new connection): list what the log and this computer's journal show unfinished, with
          // what the service shows; nothing is sent until the user presses Resume in that visible list.
          resume.setDesk(current, client.environment);
        },
        (e: unknown) => {
          if (deskClient !== client) return;
          const view = errorView(e);
          errors.record("trade", view.code);
          trade.showError(view);
        },
      );
  });

  byId("show-log").addEventListener("click", () => {
    deps.workbook.showLog().catch((e) => {
      const view = errorView(e);
      errors.record("workbook", view.code);
      trade.showError(view);
    });
  });

  try {
    await controller.restore();
  } finally {
    // The saved settings have been read: cells still without a client may now say "set your API key".
    deps.connection.settingsRead();
  }
  return { controller, errors, desk: () => desk };
}

/**
 * The Approvals panel, and the rule of direct sending it shares with the trade panel: the key's scope, its environment and
 * the workbook's "LIVE trades need approval" decide whether Confirm may send; Submit for approval always goes to the panel.
 * `follow()` tells both of the connection now (its key, scope and desk).
 */
function mountApprovals(deps: PaneDependencies, controller: ConnectionController, trade: TradePanel, desk: () => TradingDesk | null) {
  let liveNeedsApproval = false;
  const applyDirectRule = () => {
    const state = controller.current;
    trade.setDirectRefusal(state.status === "connected" ? directTradeRefusal(state.environment, state.access, liveNeedsApproval) : null);
  };
  const panel = mountApprovalsPanel({
    workbook: deps.workbook,
    journal: deps.approvalJournal,
    now: deps.now,
    rules: deps.rules ?? memoryDocumentRules(),
    askLive: askLiveConfirmation,
    onRuleChange: (on) => {
      liveNeedsApproval = on;
      applyDirectRule();
    },
  });
  trade.setSubmitter((preview) => panel.submit(preview));
  return {
    follow(): void {
      applyDirectRule();
      const state = controller.current;
      if (state.status !== "connected") return panel.setContext(null);
      panel.setContext({ desk: desk(), fingerprint: state.fingerprint, access: state.access, environment: state.environment });
    },
    onProgress: (p: Progress) => panel.onProgress(p),
  };
}

/** The desk's options for a connection: its account, the pane's workbook and journal, and where its errors and progress go. */
function deskOptions(
  deps: PaneDependencies,
  client: HedgingClient,
  account: string | null,
  pane: {
    trade: ReturnType<typeof mountTradePanel>;
    resume: ReturnType<typeof mountResumePanel>;
    refreshFeedsSoon: () => void;
    /** Hears each error code (a 403 insufficient_scope tells the pane the key is read only). */
    learn: (code: string | null | undefined) => void;
    /** Copy diagnostics' error log: each error's code, where it was met. */
    trouble: { record(where: string, code: string | null | undefined): void };
    /** The Approvals panel's progress (the rows of a batch being approved). */
    approvalsProgress: (p: Progress) => void;
  },
): DeskOptions {
  return {
    client,
    account,
    workbook: deps.workbook,
    intentStore: deps.intentStore,
    onError: (e) => {
      const view = errorView(e);
      pane.learn(view.code);
      pane.trouble.record("trade", view.code);
      pane.trade.showError(view);
    },
    onProgress: (p) => {
      pane.learn(p.row.errorCode);
      if (isFinal(p.row.status) || p.row.status === "needs_decision") pane.trouble.record("row", p.row.errorCode);
      pane.trade.onProgress(p);
      pane.approvalsProgress(p);
      pane.resume.refresh();
      // A fill changes the account and positions: ask the feeds again (once per burst of fills) rather than wait for their next poll.
      if (isFinal(p.row.status)) pane.refreshFeedsSoon();
    },
  };
}
