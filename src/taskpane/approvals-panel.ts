// The Approvals panel: the workbook's "LIVE trades need approval" box, pending and recently decided batches, a batch checked in place (refusal, changed rows), Approve (LIVE asked once more) with the batch's rows' progress, and Reject with a required reason.
import type { Environment } from "../api/environment";
import type { DocumentRules } from "../excel/document-settings";
import { SETTING_KEYS, type SettingsStore } from "../feeds/settings-store";
import { approvalHours, storedApprovalHours } from "../trading/approvals/validity";
import { ApprovalRefusedError, Approvals, type ApprovalBatch, type ApprovalCheck } from "../trading/approvals/approval-desk";
import type { ApprovalJournal, ApprovalsWorkbook } from "../trading/approvals/port";
import type { Preview, Progress, RowStatus } from "../trading/types";
import type { TradingDesk } from "../trading/desk/contract";
import { mirrorCheckedState } from "./aria-mirror";
import {
  approvalLiveQuestion,
  approvalsList,
  checkView,
  liveApprovalChange,
  rejectionReason,
  submittedText,
  type BatchItem,
} from "./approvals-model";
import type { KeyAccess } from "./key-access";
import { errorView, type ErrorView } from "./connection-controller";
import { renderError } from "./connection-panel";
import { byId, focusWhenReady, h } from "./dom";
import { plural } from "./format";
import { mountInstructionsPanel } from "./instructions-panel";
import { progressModel, rowStatusText, statusTone } from "./trade-model";

type CheckboxElement = HTMLElement & { checked: boolean };
type TextFieldElement = HTMLElement & { value: string };
type ProgressElement = HTMLElement & { value: number | null; max: number | null };

/** The connection as the panel needs it: who is asking (the key's public fingerprint) and what the key may do. */
export interface ApprovalsContext {
  desk: TradingDesk | null;
  fingerprint: string;
  access: KeyAccess;
  environment: Environment;
  /** The key's account address (GET /account; null: not known): a batch is approved only in its preparer's account. */
  account: string | null;
}

export interface ApprovalsPanelDependencies {
  /** The workbook holding the Approvals sheet (and the Hedge Log the approval is checked against). */
  workbook: ApprovalsWorkbook;
  /** This computer's journal of decisions (beside the key, never in the workbook); in memory when not given. */
  journal?: ApprovalJournal;
  /** This user's settings ("Approval valid for (hours)"); the default hours when absent. */
  store?: SettingsStore;
  /** Epoch ms now (the batch's times); Date.now by default. */
  now?: () => number;
  rules: DocumentRules;
  /** The pane's LIVE confirmation (the modal dialog); resolves true only on its explicit Send. */
  askLive: (text: string) => Promise<boolean>;
  /** Hears the workbook's rule when read and when changed (the trade panel refuses direct LIVE sends while it is on). */
  onRuleChange: (liveNeedsApproval: boolean) => void;
}

export interface ApprovalsPanel {
  /** The connection (null: not connected, the section hides). Re-reads the list. */
  setContext(context: ApprovalsContext | null): void;
  /** Submit for approval of a preview, by the key in use: writes the pending batch and says so. */
  submit(preview: Preview): Promise<string>;
  /** The desk's progress: the rows of the batch being approved fill in under it. */
  onProgress(progress: Progress): void;
}

/** An approval refused (ApprovalRefusedError) carries the code approval_refused, so the pane does not call it unexpected. */
function refusalNamed(e: unknown): unknown {
  return e instanceof ApprovalRefusedError ? Object.assign(new Error(e.message), { code: "approval_refused" }) : e;
}

function approvalErrorView(e: unknown) {
  return errorView(refusalNamed(e));
}

function approvalsElements() {
  return {
    section: byId("approvals-section"),
    ruleBox: byId<CheckboxElement>("live-needs-approval"),
    hoursField: byId<TextFieldElement>("approval-hours"),
    hoursNote: byId("approval-hours-note"),
    refreshButton: byId("approvals-refresh"),
    busy: byId("approvals-busy"),
    busyText: byId("approvals-busy-text"),
    status: byId("approvals-status"),
    error: byId("approvals-error"),
    pendingList: byId("approvals-pending"),
    decidedHeading: byId("approvals-decided-heading"),
    decidedList: byId("approvals-decided"),
  };
}
type Elements = ReturnType<typeof approvalsElements>;

/** The rows of the batch being sent, as they fill: one list and bar kept across redraws (a redraw moves them, never clears them). */
class SendingView {
  batchId: string | null = null;
  readonly bar = h("fluent-progress-bar", { min: "0", max: "100", "aria-label": "Approved batch progress" }) as ProgressElement;
  readonly text = h("p", { role: "status", class: "hint" });
  readonly list = h("ol", { class: "batch-status", "aria-label": "Approved batch's rows" });
  private readonly keys = new Set<string>();
  private readonly items = new Map<string, HTMLElement>();

  start(batchId: string): void {
    this.batchId = batchId;
    this.keys.clear();
    this.items.clear();
    this.list.replaceChildren();
    this.bar.value = 0;
    this.bar.hidden = false;
    this.text.textContent = "Sending the approved batch…";
  }

  /** While sending, every row the desk reports is this batch's; afterwards only the rows its send returned. False: not this batch's. */
  upsert(row: RowStatus, sending: boolean): boolean {
    if (!sending && !this.keys.has(row.idempotencyKey)) return false;
    this.keys.add(row.idempotencyKey);
    let li = this.items.get(row.idempotencyKey);
    if (!li) {
      li = h("li", { "data-key": row.idempotencyKey });
      this.items.set(row.idempotencyKey, li);
      this.list.append(li);
    }
    li.className = `tone-${statusTone(row.status)}`;
    li.dataset.status = row.status;
    li.textContent = rowStatusText(row);
    return true;
  }

  progress(p: Progress): void {
    const m = progressModel(p);
    this.bar.max = 100;
    this.bar.value = m.percent;
    this.bar.setAttribute("aria-valuetext", m.text);
    this.text.textContent = m.text;
  }
}

export function mountApprovalsPanel(deps: ApprovalsPanelDependencies): ApprovalsPanel {
  const now = deps.now;
  const approvals = new Approvals({
    sheet: deps.workbook,
    now: now ? () => new Date(now()) : undefined,
    journal: deps.journal,
    validHours: async () => storedApprovalHours((await deps.store?.get(SETTING_KEYS.approvalHours)) ?? null),
  });
  const panel = new ApprovalsList(approvalsElements(), deps, approvals);
  panel.wire();
  const instructions = mountInstructionsPanel({
    workbook: deps.workbook,
    now,
    validHours: async () => storedApprovalHours((await deps.store?.get(SETTING_KEYS.approvalHours)) ?? null),
  });
  return {
    setContext: (context) => {
      panel.setContext(context);
      instructions.setContext(context);
    },
    submit: (preview) => panel.submit(preview),
    onProgress: (progress) => panel.onProgress(progress),
  };
}

class ApprovalsList {
  private context: ApprovalsContext | null = null;
  private batches: ApprovalBatch[] = [];
  /** The batch selected and its check (null while it runs). */
  private selected: { id: string; check: ApprovalCheck | null; rejecting: boolean; rejectError: string | null } | null = null;
  private sending = false;
  private readonly sent = new SendingView();

  constructor(
    private readonly els: Elements,
    private readonly deps: ApprovalsPanelDependencies,
    private readonly approvals: Approvals,
  ) {}

  wire(): void {
    const { ruleBox, refreshButton, hoursField } = this.els;
    mirrorCheckedState(ruleBox, "checkbox");
    ruleBox.addEventListener("change", () => void this.changeRule(ruleBox.checked));
    hoursField.addEventListener("change", () => void this.changeHours(hoursField.value ?? ""));
    void this.readHours();
    refreshButton.addEventListener("click", () => void this.reload());
  }

  setContext(context: ApprovalsContext | null): void {
    const before = this.context;
    // The account's figures refresh often: only a new key, scope, environment or desk is news here.
    if (before && context && (["desk", "fingerprint", "access", "environment", "account"] as const).every((k) => before[k] === context[k]))
      return;
    const keyChanged = context?.fingerprint !== before?.fingerprint;
    this.context = context;
    this.els.section.hidden = context === null;
    if (!context) return;
    if (keyChanged) this.selected = null;
    void this.readRule();
    void this.reload();
  }

  private async readRule(): Promise<void> {
    try {
      const on = await this.deps.rules.liveNeedsApproval();
      this.els.ruleBox.checked = on;
      this.deps.onRuleChange(on);
    } catch (e) {
      renderError(this.els.error, errorView(e));
    }
  }

  /**
   * Changes "LIVE trades need approval" and records the change as a control row of the Hedge Log (issue 40): the setting
   * is saved, then the row written; a row that cannot be written puts the setting back, so no change goes unrecorded.
   */
  private async changeRule(on: boolean): Promise<void> {
    try {
      const context = this.context;
      if (!context?.desk) throw new Error("Connect first: a change of this setting is recorded in the Hedge Log under the key in use.");
      const desk = context.desk;
      await this.deps.rules.setLiveNeedsApproval(on);
      try {
        await desk.recordControl(liveApprovalChange(on, context.fingerprint));
      } catch (e) {
        await this.deps.rules.setLiveNeedsApproval(!on).catch(() => undefined);
        throw e;
      }
      this.deps.onRuleChange(on);
      this.els.status.textContent = on
        ? "LIVE trades need approval in this workbook: the pane sends LIVE trades only as approved batches."
        : "LIVE trades may be sent directly from this workbook again (keys with the trade scope).";
    } catch (e) {
      this.els.ruleBox.checked = !on;
      renderError(this.els.error, errorView(e));
    }
  }

  /** Shows this user's "Approval valid for (hours)". */
  private async readHours(): Promise<void> {
    const stored = (await this.deps.store?.get(SETTING_KEYS.approvalHours).catch(() => null)) ?? null;
    this.els.hoursField.value = String(storedApprovalHours(stored));
  }

  /** Keeps a valid "Approval valid for (hours)" for this user (the next check uses it); a bad one is named and not kept. */
  private async changeHours(text: string): Promise<void> {
    const read = approvalHours(text);
    const { hoursNote } = this.els;
    if (!read.ok) {
      hoursNote.textContent = read.error;
      hoursNote.classList.add("refusal");
      return;
    }
    try {
      await this.deps.store?.set(SETTING_KEYS.approvalHours, String(read.hours));
      hoursNote.classList.remove("refusal");
      hoursNote.textContent = `A batch may be approved, and its rows sent, within ${read.hours} hours of its preparation (this computer's setting).`;
      if (this.selected) await this.reload();
    } catch (e) {
      renderError(this.els.error, errorView(e));
    }
  }

  async submit(preview: Preview): Promise<string> {
    const context = this.context;
    if (!context) throw new Error("Connect first: a batch is submitted under the key in use.");
    let batch: ApprovalBatch;
    try {
      batch = await this.approvals.submit(preview, context.fingerprint);
    } catch (e) {
      throw refusalNamed(e);
    }
    await this.reload();
    return submittedText(batch);
  }

  onProgress(progress: Progress): void {
    if (this.sent.batchId && this.sent.upsert(progress.row, this.sending)) this.sent.progress(progress);
  }

  /** Re-reads the sheet (and the selected batch's check). */
  private async reload(): Promise<void> {
    await this.busy("Reading the Approvals sheet…", async () => {
      this.batches = await this.approvals.list();
      const { pending } = approvalsList(this.batches);
      this.els.status.textContent = `${pending.length === 0 ? "No batch" : plural(pending.length, "batch", "batches")} pending approval.`;
      const open = (b: ApprovalBatch) => b.status === "pending" || b.status === "approved";
      const selected = this.selected;
      if (selected && !this.batches.some((b) => b.id === selected.id && open(b))) this.selected = null;
      // The batch checked stays checked: its check is made again on what the sheet holds now (an edit made or undone).
      else if (selected && this.context) selected.check = await this.approvals.check(selected.id, this.context.fingerprint, this.place());
    });
    this.render();
  }

  private async select(id: string): Promise<void> {
    const context = this.context;
    if (!context || this.sending) return;
    this.selected = { id, check: null, rejecting: false, rejectError: null };
    this.render();
    await this.busy("Re-reading the batch and its hash…", async () => {
      const check = await this.approvals.check(id, context.fingerprint, this.place());
      if (this.selected?.id === id) this.selected.check = check;
    });
    // A check that could not be made leaves the batch unselected: its Check button is back.
    if (this.selected?.id === id && this.selected.check === null) this.selected = null;
    this.render();
    const approve = this.els.pendingList.querySelector<HTMLElement>(`li[data-batch="${id}"] .approve`);
    if (approve)
      focusWhenReady(
        approve.hasAttribute("disabled") ? this.els.pendingList.querySelector<HTMLElement>(`li[data-batch="${id}"] .reject`)! : approve,
      );
  }

  private async approve(id: string): Promise<void> {
    const context = this.context;
    const check = this.selected?.check;
    if (!context?.desk || !check || this.sending) return;
    // The LIVE question names the hash the check showed: what is confirmed is what was checked.
    const askLive = (preview: Preview) => this.deps.askLive(approvalLiveQuestion(preview, check.batch.hash));
    this.sending = true;
    this.sent.start(id);
    this.render();
    const failed = await this.busy("Sending the approved batch…", async () => {
      try {
        const result = await this.approvals.approve(
          id,
          context.fingerprint,
          context.desk!,
          context.environment === "production" ? askLive : undefined,
          check, // what the approver was shown: a block rewritten since is refused, nothing sent
        );
        for (const row of result.rows) this.sent.upsert(row, true);
        for (const s of result.skipped)
          this.sent.list.append(h("li", { class: "tone-busy" }, `Row ${s.rowNumber} · Skipped · ${s.reason}`));
        if (result.rows.length === 0 && result.skipped.length === 0) this.sent.text.textContent = "Not sent.";
      } finally {
        this.sending = false;
      }
    });
    this.selected = null;
    await this.reloadAfter(failed);
  }

  private async reject(id: string, text: string): Promise<void> {
    const context = this.context;
    if (!context || !this.selected) return;
    const reason = rejectionReason(text);
    if (!reason.ok) {
      this.selected.rejectError = reason.error;
      this.render();
      return;
    }
    const failed = await this.busy("Rejecting the batch…", async () => {
      await this.approvals.reject(id, context.fingerprint, reason.reason);
      this.selected = null;
    });
    await this.reloadAfter(failed);
  }

  /** Runs one step with the busy line and the buttons held; its error is shown in the panel's alert and returned. */
  private async busy(text: string, step: () => Promise<void>): Promise<ErrorView | null> {
    const { busy, busyText, refreshButton, error } = this.els;
    busy.hidden = false;
    busyText.textContent = text;
    refreshButton.toggleAttribute("disabled", true);
    renderError(error, null);
    try {
      await step();
      return null;
    } catch (e) {
      const view = approvalErrorView(e);
      renderError(error, view);
      return view;
    } finally {
      busy.hidden = true;
      refreshButton.toggleAttribute("disabled", false);
    }
  }

  /** Re-reads the list after a decision, keeping the decision's error (if any) in the alert. */
  private async reloadAfter(failed: ErrorView | null): Promise<void> {
    await this.reload();
    if (failed) renderError(this.els.error, failed);
  }

  private render(): void {
    // The batch checked is shown as the check read it (its rows and hash), not as listed: what is approved is what is shown.
    const checked = this.selected?.check?.batch;
    const batches = checked ? this.batches.map((b) => (b.id === checked.id ? checked : b)) : this.batches;
    const { pending, decided } = approvalsList(batches);
    this.els.pendingList.replaceChildren(...pending.map((item) => this.batchNode(item)));
    this.els.decidedHeading.hidden = decided.length === 0;
    this.els.decidedList.replaceChildren(...decided.map((item) => this.batchNode(item)));
  }

  /** One batch: what it is, its hash and preparer; pending ones have Check (or, selected, the check in place). */
  private batchNode(item: BatchItem): HTMLElement {
    const selected = this.selected?.id === item.id ? this.selected : null;
    const marks = selected?.check ? checkView(selected.check, this.access(), this.canSend()).marks : new Map<number, string>();
    const li = h(
      "li",
      { "data-batch": item.id, "data-status": item.status, class: `status-${item.status}` },
      h("div", { class: "line-title" }, `${item.title} · ${item.statusLabel}`),
      h("div", { class: "hint" }, "Batch hash ", h("span", { class: "mono batch-hash", title: item.hash }, item.hashShort)),
      h("div", { class: "hint prepared" }, item.prepared),
      item.decided ? h("div", { class: "hint decided" }, item.decided) : null,
      h(
        "ol",
        { class: "batch-rows", "aria-label": "Rows of the batch" },
        ...item.rows.map((text, i) => {
          const mark = marks.get(i + 1);
          return h("li", { class: mark ? "changed" : "" }, text, mark ? ` — ${mark}` : "");
        }),
      ),
    );
    if (this.sent.batchId === item.id) li.append(this.sent.bar, this.sent.text, this.sent.list);
    if (item.status !== "pending" && item.status !== "approved") return li;
    if (!selected) {
      const check = h("fluent-button", { type: "button", class: "check" }, "Check");
      check.addEventListener("click", () => void this.select(item.id));
      li.append(h("div", { class: "actions" }, check));
      return li;
    }
    if (selected.check) li.append(...this.checkNodes(item.id, selected.check, selected));
    return li;
  }

  /** The check in place: the refusal (or that the rows match), the changes row by row, Approve and Reject. */
  private checkNodes(id: string, check: ApprovalCheck, selected: NonNullable<ApprovalsList["selected"]>): Node[] {
    const view = checkView(check, this.access(), this.canSend());
    const out: Node[] = [
      view.refusal
        ? h("p", { class: "refusal", role: "alert" }, `Cannot approve: ${view.refusal}`)
        : h("p", { class: "hint match" }, "The rows on the sheet match the batch hash: as prepared."),
    ];
    const approve = h("fluent-button", { type: "button", appearance: "primary", class: "approve" }, "Approve and send");
    approve.classList.toggle("live", this.context?.environment === "production");
    approve.toggleAttribute("disabled", view.refusal !== null || this.sending);
    if (view.refusal) approve.setAttribute("aria-description", view.refusal);
    approve.addEventListener("click", () => void this.approve(id));
    const reject = h("fluent-button", { type: "button", class: "reject" }, "Reject");
    reject.toggleAttribute("disabled", this.sending);
    reject.addEventListener("click", () => {
      selected.rejecting = true;
      this.render();
      const field = this.els.pendingList.querySelector<HTMLElement>(`li[data-batch="${id}"] .reject-reason`);
      if (field) focusWhenReady(field);
    });
    out.push(h("div", { class: "actions" }, approve, reject));
    if (selected.rejecting) out.push(this.rejectNodes(id, selected.rejectError));
    return out;
  }

  private rejectNodes(id: string, problem: string | null): HTMLElement {
    const field = h(
      "fluent-text-input",
      { class: "reject-reason field", "aria-label": "Reason for rejecting (required)" },
      "Reason (required)",
    ) as TextFieldElement;
    const confirm = h("fluent-button", { type: "button", class: "reject-confirm" }, "Reject batch");
    confirm.addEventListener("click", () => void this.reject(id, field.value ?? ""));
    return h(
      "div",
      { class: "reject-form" },
      field,
      problem ? h("p", { class: "refusal", role: "alert" }, problem) : null,
      h("div", { class: "actions" }, confirm),
    );
  }

  /** Where the key in use trades: a batch of another environment or account is refused at its check. */
  private place() {
    return this.context ? { environment: this.context.environment, account: this.context.account } : undefined;
  }

  private access(): KeyAccess {
    return this.context?.access ?? "unknown";
  }

  private canSend(): boolean {
    return this.context?.desk != null;
  }
}
