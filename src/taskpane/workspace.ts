// The panels of a connection, mounted when the pane first connects (this module is the "trade" chunk): trade, resume, the desk of each connection, Show log, and the approvals and month-end panels handed in from their own chunks.
import type { Workbook } from "../trading/workbook";
import type { ApprovalsSheet } from "../trading/approvals/port";
import type { Connection } from "../feeds/connection";
import type { FeedHub } from "../feeds/hub";
import type { HedgingClient } from "../api/client";
import type { Snapshotter } from "../monthend/snapshot-plan";
import type { SheetWriter } from "../trading/sheet-content";
import type { Progress } from "../trading/types";
import type { DeskOptions, TradingDesk } from "../trading/desk/contract";
import type { IntentStore } from "../trading/intent-store";
import type { SettingsStore } from "../feeds/settings-store";
import type { ApprovalJournal } from "../trading/approvals/port";
import type { Side } from "../api/schemas";
import type { ProposeDependencies } from "./propose-control";
import type { ErrorLog } from "./diagnostics";
import { isFinal } from "../trading/intent";
import { memoryDocumentRules, type DocumentRules } from "../excel/document-settings";
import { errorView, type ConnectionController, type ConnectionState } from "./connection-controller";
import { byId } from "./dom";
import { registerPanelFluent } from "./fluent-panels";
import { askLiveConfirmation } from "./live-dialog";
import { mountTradePanel, type TradePanel } from "./trade-panel";
import { mountResumePanel } from "./resume-panel";
import { directTradeRefusal } from "./key-access";
import { mountArmedRolls } from "./armed-rolls-control";
import { instructionCover } from "../trading/approvals/roll-cover";

/** Why a standing roll instruction sends nothing with the key in use. */
const READ_ONLY_ROLL = "this key is read only, so no roll is sent with it even under a standing roll instruction";

/** What the panels of a connection work on: the workbook, this computer's journal, the desk, the month-end writers. */
export interface Workbench {
  workbook: Workbook & ApprovalsSheet;
  createDesk: (options: DeskOptions) => Promise<TradingDesk>;
  /** This computer's journal of intents (OfficeRuntime.storage in Excel, in memory in the harness). */
  intentStore: IntentStore;
  /** This computer's journal of approval decisions (the same per-user storage); in memory when absent. */
  approvalJournal?: ApprovalJournal;
  /** Where Reconcile month writes its sheet: officeSheetWriter() in Excel, a MemorySheetWriter in the harness. */
  reconWriter: SheetWriter;
  /** Snapshot to values: officeSnapshotter() in Excel; null hides the button (the harness has no formulas). */
  snapshotter: Snapshotter | null;
  /** The workbook's own rules (its document settings: "LIVE trades need approval"); in memory when absent. */
  rules?: DocumentRules;
}

export interface WorkspaceDependencies {
  workbench: Workbench;
  connection: Connection;
  hub: FeedHub;
  controller: ConnectionController;
  /** Copy diagnostics' error log: each error's code, where it was met. */
  errors: ErrorLog;
  /** A proposal was made (the overview's maturities remember what it wanted). */
  onProposal?: ProposeDependencies["onProposal"];
  /** Epoch ms now, for the month-end panel; Date.now by default. */
  now?: () => number;
  /** This user's settings (the Approvals panel's "Approval valid for (hours)"). */
  store?: SettingsStore;
}

/** The panels loaded as chunks of their own (pane-app.ts imports them beside this one). */
export interface PanelModules {
  approvals: typeof import("./approvals-panel");
  monthEnd: typeof import("./month-end-panel");
  archive: typeof import("./archive-panel");
}

export interface Workspace {
  /** Hands the panels a connection state (each change, in order). */
  follow(state: ConnectionState): void;
  desk(): TradingDesk | null;
  /** Proposes again from the last proposal's exposures and policy and the positions now (the overview's Propose); `only`: that side's rows. */
  proposeAgain(only?: { market: string; side: Side }): Promise<void>;
}

// Over 80 lines: the one place that wires the connected panels to each other and to the connection (each panel's logic is in its own module).
export function mountWorkspace(deps: WorkspaceDependencies, panels: PanelModules): Workspace {
  registerPanelFluent();
  const { workbench, controller } = deps;
  const trade = mountTradePanel({
    workbook: workbench.workbook,
    writer: workbench.reconWriter,
    client: () => deps.connection.client,
    now: deps.now,
    onProposal: deps.onProposal,
    onModel: (model) => armed.setModel(model),
  });
  const resume = mountResumePanel((e) => e && trade.showError(e));
  let desk: TradingDesk | null = null;
  let deskClient: HedgingClient | null = null;
  const approvals = mountApprovals(deps, panels.approvals, trade, () => desk);
  // Rolls at maturity while the pane is open: sent at once where the pane may send directly, else proposed (four-eyes).
  const armed = mountArmedRolls({
    direct: approvals.direct,
    instructions: standingInstructions(deps),
    propose: (side) => void trade.proposeAgain(side),
    onError: (e) => deps.errors.record("rolls", errorView(e).code),
    now: deps.now,
  });
  const tradeSection = byId("trade-section");
  const monthEndHost = byId("month-end-host");
  panels.monthEnd.mountMonthEndPanel(monthEndHost, {
    client: () => deps.connection.client,
    ...panels.monthEnd.monthEndLog(workbench.workbook, workbench.intentStore),
    writer: workbench.reconWriter,
    snapshotter: workbench.snapshotter,
    now: deps.now,
  });
  const archiveLog = workbench.workbook.archiveLog?.bind(workbench.workbook);
  if (archiveLog) panels.archive.mountArchivePanel(monthEndHost, { archiveLog, now: deps.now });

  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  const refreshFeedsSoon = () => {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => deps.hub.refreshAfterTrade(), 300);
    armed.rearm();
  };

  byId("show-log").addEventListener("click", () => {
    workbench.workbook.showLog().catch((e) => {
      const view = errorView(e);
      deps.errors.record("workbook", view.code);
      trade.showError(view);
    });
  });

  const follow = (state: ConnectionState): void => {
    const client = state.status === "connected" ? state.client : null;
    // The same connection learnt something (its scope, its account's figures): the approvals follow the scope.
    if (client === deskClient) return approvals.follow();
    desk?.stop();
    desk = null;
    deskClient = client;
    tradeSection.hidden = !client;
    monthEndHost.hidden = !client;
    approvals.follow();
    armed.setDesk(null, null);
    if (!client) {
      trade.setDesk(null);
      resume.setDesk(null, null);
      return;
    }
    // The desk is built for the account the connection proved (GET /account), once the log and the journal are read.
    const account = state.status === "connected" ? (state.account.account_address ?? null) : null;
    const learn = (code: string | null | undefined) => controller.learnFrom(code);
    const trouble = deps.errors;
    void workbench
      .createDesk(
        deskOptions(workbench, client, account, {
          trade,
          resume,
          refreshFeedsSoon,
          learn,
          trouble,
          approvalsProgress: approvals.onProgress,
        }),
      )
      .then(
        (current) => {
          // Another connection (or none) came meanwhile: this desk is not the pane's.
          if (deskClient !== client) return current.stop();
          desk = current;
          trade.setDesk(current);
          armed.setDesk(current, client);
          approvals.follow();
          // On opening (and on every new connection): list what the log and this computer's journal show unfinished, with
          // what the service shows; nothing is sent until the user presses Resume in that visible list.
          resume.setDesk(current, client.environment);
        },
        (e: unknown) => {
          if (deskClient !== client) return;
          const view = errorView(e);
          deps.errors.record("trade", view.code);
          trade.showError(view);
        },
      );
  };
  return { follow, desk: () => desk, proposeAgain: (only) => trade.proposeAgain(only) };
}

/**
 * The Approvals panel, and the rule of direct sending it shares with the trade panel: the key's scope, its environment and
 * the workbook's "LIVE trades need approval" decide whether Confirm may send; Submit for approval always goes to the panel.
 * `follow()` tells both of the connection now (its key, scope and desk).
 */
function mountApprovals(
  deps: WorkspaceDependencies,
  approvals: PanelModules["approvals"],
  trade: TradePanel,
  desk: () => TradingDesk | null,
) {
  const { controller, workbench } = deps;
  let liveNeedsApproval = false;
  const applyDirectRule = () => {
    const state = controller.current;
    trade.setDirectRefusal(state.status === "connected" ? directTradeRefusal(state.environment, state.access, liveNeedsApproval) : null);
  };
  const panel = approvals.mountApprovalsPanel({
    workbook: workbench.workbook,
    journal: workbench.approvalJournal,
    store: deps.store,
    now: deps.now,
    rules: workbench.rules ?? memoryDocumentRules(),
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
      panel.setContext({
        desk: desk(),
        fingerprint: state.fingerprint,
        access: state.access,
        environment: state.environment,
        account: state.account.account_address,
      });
    },
    onProgress: (p: Progress) => panel.onProgress(p),
    /** Whether a row may leave without a person's click now (the same rule as Confirm's). */
    direct: (): boolean => {
      const state = controller.current;
      return state.status === "connected" && directTradeRefusal(state.environment, state.access, liveNeedsApproval) === null;
    },
  };
}

/**
 * The armed rolls' standing roll instructions: under four-eyes, a roll an approved instruction of the Approvals sheet
 * covers (read at each maturity) is sent under it, for the connection's environment and account; a read-only key sends none.
 */
function standingInstructions({ workbench, controller, now }: WorkspaceDependencies) {
  return instructionCover({
    sheet: workbench.workbook,
    place: () => {
      const state = controller.current;
      return state.status === "connected" ? { environment: state.environment, account: state.account.account_address ?? null } : null;
    },
    refusal: () => (controller.current.status === "connected" && controller.current.access === "read_only" ? READ_ONLY_ROLL : null),
    now: now && (() => new Date(now())),
  });
}

/** The desk's options for a connection: its account, the pane's workbook and journal, and where its errors and progress go. */
function deskOptions(
  workbench: Workbench,
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
    workbook: workbench.workbook,
    intentStore: workbench.intentStore,
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
