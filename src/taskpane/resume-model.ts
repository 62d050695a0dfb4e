// View models of the Unfinished rows list: what each row is, what the service shows, what Resume will do, the two decisions and their confirmations, and which market side waits on which row.
import type { Environment } from "../api/environment";
import type { Decision, LaneWait, ResumeItem, ResumePlan, ResumeStep, RowStatus } from "../trading/types";
import { ACTION_LABELS, STATUS_LABELS } from "./trade-model";
import { formatUsd, formatUtc, plural } from "./format";

/** What Resume does with a row, in the list's words. */
const STEP_LABELS: Record<ResumeStep, string> = {
  record: "Resume records what the service shows",
  follow: "Resume follows it to its fill",
  send: "Resume sends it (it was never sent)",
  resend: "Resume sends it again with the same idempotency key",
  decide: "Needs your decision",
  ask: "Resume asks the service first, then records, follows, sends or asks you",
};

export interface UnfinishedRowView {
  key: string;
  /** "Add buy USDTNGN 50,000.00 USD" */
  title: string;
  /** "Logged 2026-11-22 10:15:03 UTC · Submitting" */
  meta: string;
  serviceSays: string;
  /** What Resume will do, or why it needs a decision. */
  next: string;
  /** Rows of an older log without an account: only resumed once the user ticks that they are this account's. */
  claimable: boolean;
  claimed: boolean;
  /** The two decisions are offered. */
  decide: boolean;
}

export interface UnfinishedView {
  /** Nothing to show (no unfinished rows, nothing missing, nothing unusable). */
  empty: boolean;
  headline: string;
  rows: UnfinishedRowView[];
  /** Rows Resume will take up now (this account's, and the claimed ones), not counting those waiting for a decision. */
  resumeCount: number;
  resumeLabel: string;
  /** Rows of this computer's journal the Hedge Log lacks. */
  missing: { text: string; keys: string[] } | null;
  /** Unfinished rows of other workbooks on this computer: never written here; Dismiss stops listing them here. */
  otherWorkbooks: { text: string; keys: string[] } | null;
  /** Rows of this workbook id under another file name (a copy): the question naming both files; Add or "Not this file's". */
  copied: { text: string; keys: string[] } | null;
  /** Rows the add-in will never send, with why. */
  unusable: string[];
  /** "USDTNGN buy waits on: Add 50,000.00 USD logged … (needs your decision; 1 more row queued)". */
  waits: string[];
  /**
   * The same sides, each with its line and, when the row it waits on truly needs your decision, that row with the two
   * decisions, offered in place: "Close sell USDTNGN whole position waits for your decision on Add …".
   */
  waitLines: WaitLineView[];
}

export interface WaitLineView {
  text: string;
  /** The row needing a decision, with "It was done" / "It was not done"; null when the side only waits its turn. */
  decide: UnfinishedRowView | null;
}

function rowTitle(row: Pick<RowStatus, "action" | "side" | "market" | "notional">): string {
  const amount = row.notional === null ? "whole position" : formatUsd(row.notional);
  return `${ACTION_LABELS[row.action]} ${row.side} ${row.market} ${amount}`;
}

/**
 * The list as it stands: before Resume, every unfinished row of the plan (with what Resume would do); after it, the rows
 * still waiting for the user (`decisions`: rows the desk has in needs_decision), plus the market sides that wait.
 */
export function unfinishedView(
  plan: ResumePlan | null,
  options: { resumed: boolean; claimed: ReadonlySet<string>; decisions: readonly RowStatus[]; waits: readonly LaneWait[] },
): UnfinishedView {
  const rows: UnfinishedRowView[] = [];
  const seen = new Set<string>();
  const decided = new Map(options.decisions.map((r) => [r.idempotencyKey, r]));
  if (plan && !options.resumed) {
    for (const item of plan.items) {
      seen.add(item.row.idempotencyKey);
      rows.push(itemView(item, options.claimed, decided.get(item.row.idempotencyKey)));
    }
  }
  for (const row of options.decisions) {
    if (seen.has(row.idempotencyKey)) continue;
    rows.push({
      key: row.idempotencyKey,
      title: rowTitle(row),
      meta: `Logged ${formatUtc(row.loggedAt)} · ${statusLabel(row.status)}`,
      // Why it was parked; a row parked elsewhere (another computer, an older version) says it in its Message alone.
      serviceSays: row.parkedFor ?? row.message ?? "",
      next: STEP_LABELS.decide,
      claimable: false,
      claimed: true,
      decide: true,
    });
  }
  const resumeCount =
    plan && !options.resumed
      ? plan.items.filter(
          (i) =>
            i.step !== "decide" && i.row.status !== "needs_decision" && (i.owner === "mine" || options.claimed.has(i.row.idempotencyKey)),
        ).length
      : 0;
  const deciding = rows.filter((r) => r.decide).length;
  const { missing, otherWorkbooks, copied } = journalNotes(plan, options.resumed);
  const unusable = plan
    ? plan.unusable.map((u) => `${u.action || "?"} ${u.side} ${u.market || "(no market)"}, logged ${formatUtc(u.loggedAt)}: ${u.reason}`)
    : [];
  const waits = options.waits.map(
    (w) =>
      `${w.market} ${w.side} waits on: ${rowTitle(w.row)} logged ${formatUtc(w.row.loggedAt)} (${w.reason === "needs_decision" ? "needs your decision" : STATUS_LABELS[w.row.status].toLowerCase()}${w.queued ? `; ${plural(w.queued, "more row")} queued` : ""}).`,
  );
  const waitLines = options.waits.map((w, i) => waitLine(w, waits[i], rows));
  const others =
    plan && plan.otherAccounts > 0 && !options.resumed
      ? ` ${plural(plan.otherAccounts, "unfinished row")} of another account or environment are left alone.`
      : "";
  let headline: string;
  if (!options.resumed && rows.length > 0)
    headline = `${plural(rows.length, "unfinished row")} from an earlier session, with what the service shows. Nothing is sent until you press Resume.${others}`;
  else if (deciding > 0)
    headline = `${plural(deciding, "row needs", "rows need")} your decision: the service cannot tell whether ${deciding === 1 ? "it" : "they"} took effect.`;
  else headline = others.trim();
  return {
    empty: rows.length === 0 && !missing && !otherWorkbooks && !copied && unusable.length === 0 && waits.length === 0 && headline === "",
    headline,
    rows,
    resumeCount,
    resumeLabel: `Resume ${plural(resumeCount, "row")}`,
    missing,
    otherWorkbooks,
    copied,
    unusable,
    waits,
    waitLines,
  };
}

/** A side's line; when it waits on a row that needs a decision, that row, and the row queued next named first. */
function waitLine(w: LaneWait, text: string, rows: readonly UnfinishedRowView[]): WaitLineView {
  const waiting = w.reason === "needs_decision" ? (rows.find((r) => r.key === w.row.idempotencyKey && r.decide) ?? null) : null;
  if (!waiting || !w.next) return { text, decide: waiting };
  return {
    text: `${rowTitle(w.next)} waits for your decision on ${rowTitle(w.row)} logged ${formatUtc(w.row.loggedAt)}${w.queued > 1 ? ` (${plural(w.queued - 1, "more row")} queued behind it)` : ""}: decide it here.`,
    decide: waiting,
  };
}

/** An unfinished row's state in the list: `submitting` left by an earlier session is not being sent, it is unconfirmed. */
function statusLabel(status: RowStatus["status"]): string {
  return status === "submitting" ? "Not confirmed" : STATUS_LABELS[status];
}

function itemView(item: ResumeItem, claimed: ReadonlySet<string>, live: RowStatus | undefined): UnfinishedRowView {
  const row = live ?? item.row;
  const deciding = row.status === "needs_decision" || item.step === "decide";
  const mine = item.owner === "mine" || claimed.has(row.idempotencyKey);
  return {
    key: row.idempotencyKey,
    title: rowTitle(row),
    meta: `Logged ${formatUtc(row.loggedAt)} · ${statusLabel(row.status)}${item.owner === "unclaimed" ? " · no account in the log" : ""}`,
    serviceSays: item.serviceSays,
    next: deciding
      ? `${STEP_LABELS.decide}: ${item.detail}`
      : mine
        ? `${STEP_LABELS[item.step]}.`
        : "Not resumed unless you tick that it is this account's.",
    claimable: item.owner === "unclaimed",
    claimed: mine,
    decide: deciding && mine,
  };
}

/** The sentence a decision is confirmed with, and the button. */
export function decisionConfirmation(row: UnfinishedRowView, decision: Decision): { text: string; button: string } {
  return decision === "done"
    ? {
        text: `Record “${row.title}” as done? The Hedge Log takes what the service shows for it, with your decision and the time. Nothing is sent.`,
        button: "Confirm: it was done",
      }
    : {
        text: `Record “${row.title}” as not sent? The Hedge Log marks it not sent, with your decision and the time. Nothing is sent; trade it again as a new row if you still want it.`,
        button: "Confirm: it was not done",
      };
}

/** Resume with a LIVE key asks the same second confirmation as a new batch. */
export function resumeConfirmation(environment: Environment, count: number): { steps: 1 | 2; dialog: string | null } {
  if (environment !== "production") return { steps: 1, dialog: null };
  return {
    steps: 2,
    dialog: `LIVE environment — production money. Resume ${plural(count, "unfinished row")}: rows the service shows are recorded, rows never sent (or sent moments ago) are sent with their own idempotency key. Send what needs sending?`,
  };
}

/** Before Resume: this computer's rows the log lacks that may be this workbook's (offered back), and other workbooks' (listed). */
function journalNotes(plan: ResumePlan | null, resumed: boolean): Pick<UnfinishedView, "missing" | "otherWorkbooks" | "copied"> {
  const missing =
    plan && plan.missing.length > 0 && !resumed
      ? {
          text: `This computer's journal has ${plural(plan.missing.length, "recent row")} of this account that this workbook's Hedge Log does not (it may be this workbook's: journalled by an older version, or before this file's id was saved): ${plan.missing
            .map((r) => `${rowTitle(r)} (${STATUS_LABELS[r.status].toLowerCase()}, logged ${formatUtc(r.loggedAt)})`)
            .join("; ")}.`,
          keys: plan.missing.map((r) => r.idempotencyKey),
        }
      : null;
  const otherWorkbooks =
    plan && plan.otherWorkbooks.length > 0 && !resumed
      ? {
          text: `From another workbook: ${plural(plan.otherWorkbooks.length, "unfinished row")} this computer journalled in another workbook, which is not written here (open that workbook to resume ${plan.otherWorkbooks.length === 1 ? "it" : "them"}): ${plan.otherWorkbooks
            .map(
              (o) =>
                `${rowTitle(o.row)} (logged ${formatUtc(o.row.loggedAt)}, in ${o.workbookName ? `“${o.workbookName}”` : "a workbook never saved"})`,
            )
            .join("; ")}.`,
          keys: plan.otherWorkbooks.map((o) => o.row.idempotencyKey),
        }
      : null;
  return { missing, otherWorkbooks, copied: plan?.copied && !resumed ? copiedNote(plan.copied) : null };
}

/**
 * The question on a copy's rows, naming both files: the same workbook id under another file name, or under the same name
 * (or in a file never saved) whose Hedge Log holds none of the rows this computer wrote into that workbook (issue 40).
 */
function copiedNote(copied: NonNullable<ResumePlan["copied"]>): { text: string; keys: string[] } {
  const names = [...new Set(copied.rows.map((c) => (c.workbookName ? `“${c.workbookName}”` : "a workbook never saved")))].join(" and ");
  const rows = copied.rows
    .map((c) => `${rowTitle(c.row)} (${STATUS_LABELS[c.row.status].toLowerCase()}, logged ${formatUtc(c.row.loggedAt)})`)
    .join("; ");
  const here = copied.fileName ? `“${copied.fileName}”` : "this file";
  const sameName = copied.rows.every((c) => c.workbookName === copied.fileName);
  const which = sameName
    ? `This file, ${copied.fileName ? here : "never saved"}, carries the workbook id of ${names}, but its Hedge Log holds none of the rows this computer wrote into that workbook: it is a copy (saved before them, or kept elsewhere under the same name), another file given that id, or that workbook saved before its first row and then closed without saving.`
    : `This file${copied.fileName ? `, ${here},` : " (never saved)"} carries the same workbook id as ${names}: one is a copy of the other (Save As, or a copied file).`;
  return {
    text: `${which} This computer's journal has ${plural(copied.rows.length, "row")} of ${names} that this Hedge Log does not: ${rows}. Nothing of ${copied.rows.length === 1 ? "it" : "them"} is written into ${here} unless you say ${copied.rows.length === 1 ? "it belongs" : "they belong"} here.`,
    keys: copied.rows.map((c) => c.row.idempotencyKey),
  };
}
