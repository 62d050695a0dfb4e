// View models of the trade panel: read problems, the preview table, the confirmation wording and per-row progress.
import type { Environment } from "../api/environment";
import {
  type Action,
  type BatchAction,
  type IntentStatus,
  type Preview,
  type PreviewLine,
  type Progress,
  type ReadResult,
  type RowStatus,
  type TradeRequest,
} from "../trading/types";
import { batchNotional } from "../trading/preview-rolls";
import { formatRate, formatSignedUsd, formatUsd, formatUsdc, plural } from "./format";

export const ACTION_LABELS: Record<Action, string> = { open: "Open", add: "Add", reduce: "Reduce", close: "Close" };
/** The batch's action as the Action choice shows it: "From the Action column" when the rows carry their own. */
export const BATCH_LABELS: Record<BatchAction, string> = { ...ACTION_LABELS, column: "From the Action column" };

export const ACTION_HELP: Record<Action, string> = {
  open: "Open needs Market, Side, Notional, Tenor (1, 3 or 7) and a Client reference on every row.",
  add: "Add needs Market, Side and Amount (the notional to add).",
  reduce: "Reduce needs Market, Side and Amount (the notional to remove).",
  close: "Close needs Market and Side.",
};

/** Shown when the selection has an Action column: the batch's choice gives way to each row's own action. */
export const COLUMN_HELP =
  "From the Action column: each row's Open, Add, Reduce or Close comes from its Action cell (a proposal from Propose or =HEDGE.TARGET); closes and reduces go first, one row at a time per market side.";

/** How many rows of each action a mixed batch holds, in trading order: "1 Close, 1 Open, 2 Add". */
export function actionMix(actions: readonly Action[]): string {
  return (["close", "reduce", "open", "add"] as const)
    .map((a) => [a, actions.filter((x) => x === a).length] as const)
    .filter(([, n]) => n > 0)
    .map(([a, n]) => `${n} ${ACTION_LABELS[a]}`)
    .join(", ");
}

/** The preview's heading: "Open 3 rows", or "From the Action column: 4 rows (1 Close, 1 Open, 2 Add)". */
export function batchTitle(preview: Pick<Preview, "action" | "lines">): string {
  const rows = plural(preview.lines.length, "row");
  if (preview.action !== "column") return `${ACTION_LABELS[preview.action]} ${rows}`;
  return `${BATCH_LABELS.column}: ${rows} (${actionMix(preview.lines.map((l) => l.row.action))})`;
}

const quoted = (a: Action) => a === "open" || a === "add";

interface ProblemItem {
  rowNumber: number;
  text: string;
}

/** The read summary and the problems listed by sheet row, in row order. */
export function readSummary(read: ReadResult): { headline: string; problems: ProblemItem[] } {
  const where = read.tableName ? `table ${read.tableName}` : read.address;
  const blanks = read.blankRows.length ? `, ${plural(read.blankRows.length, "blank row")} skipped` : "";
  const hidden = read.hiddenRowsSkipped ? `, ${plural(read.hiddenRowsSkipped, "hidden row")} skipped (not sent)` : "";
  const bad = read.problems.length
    ? `, ${plural(new Set(read.problems.map((p) => p.rowNumber)).size, "row")} with problems (not sent)`
    : "";
  const problems = [...read.problems].sort((a, b) => a.rowNumber - b.rowNumber).map((p) => ({ rowNumber: p.rowNumber, text: p.message }));
  return { headline: `${plural(read.rows.length, "row")} ready from ${where}${blanks}${hidden}${bad}.`, problems };
}

interface PreviewCell {
  label: string;
  value: string;
}

interface PreviewRowModel {
  rowNumber: number;
  title: string;
  cells: PreviewCell[];
  duplicate: string | null;
  blockers: string[];
  warnings: string[];
  sendable: boolean;
}

/** A row in a few words: "Open buy USDTNGN 250,000.00 USD, 7d" (the preview's lines and the Approvals list's rows). */
export function rowTitle(r: TradeRequest): string {
  const amount = r.notional === null ? "whole position" : formatUsd(r.notional);
  return `${ACTION_LABELS[r.action]} ${r.side} ${r.market} ${amount}${r.tenor ? `, ${r.tenor}d` : ""}`;
}

function lineTitle(line: PreviewLine): string {
  return rowTitle(line.row);
}

function lineCells(line: PreviewLine): PreviewCell[] {
  if (line.quote) {
    return [
      { label: "Execution price", value: formatRate(line.quote.pricing.execution_price) },
      { label: "Carry over tenor", value: formatUsdc(line.carryUsdc) },
      { label: "Collateral", value: formatUsdc(line.collateralUsdc) },
      ...(line.row.clientReference ? [{ label: "Client reference", value: line.row.clientReference }] : []),
    ];
  }
  if (line.position) {
    return [
      { label: "Position", value: `${formatUsd(line.position.size_usd)} at ${formatRate(line.position.entry_price)}` },
      { label: "Net P&L", value: formatSignedUsd(line.position.net_pnl_usd) },
      { label: "Margin back", value: formatUsdc(line.marginBackUsdc) },
    ];
  }
  return [];
}

export function previewRows(preview: Preview): PreviewRowModel[] {
  return preview.lines.map((line) => ({
    rowNumber: line.row.rowNumber,
    title: lineTitle(line),
    cells: lineCells(line),
    duplicate: line.duplicateOf ? duplicateText(line.duplicateOf) : null,
    blockers: line.blockers,
    warnings: line.warnings,
    sendable: line.blockers.length === 0,
  }));
}

/** Which earlier log row a duplicate matched, and why it counts (the same UTC day, or the same hedge). */
export function duplicateText(d: NonNullable<PreviewLine["duplicateOf"]>): string {
  const why = d.reason === "same_hedge" ? "on the same hedge" : "the same day";
  const key = d.idempotencyKey.length > 13 ? `${d.idempotencyKey.slice(0, 8)}…` : d.idempotencyKey;
  return `Already in the log ${why}: the row logged ${d.loggedAt.slice(0, 19).replace("T", " ")} UTC (${d.status}, key ${key}${d.hedgeId ? `, hedge ${d.hedgeId}` : ""}).`;
}

export function previewTotals(preview: Preview): PreviewCell[] {
  const t = preview.totals;
  const actions = preview.lines.length ? preview.lines.map((l) => l.row.action) : preview.action === "column" ? [] : [preview.action];
  const opening = actions.some(quoted);
  const closing = actions.some((a) => !quoted(a));
  return [
    { label: "Rows", value: t.priced === t.rows ? String(t.rows) : `${t.priced} of ${t.rows} priced (totals cover these)` },
    ...(actions.every((a) => a === "close") ? [] : [{ label: "Total notional", value: formatUsd(t.notionalUsd) }]),
    ...(opening
      ? [
          { label: "Collateral to lock", value: formatUsdc(t.collateralUsdc) },
          { label: "Carry over tenors", value: formatUsdc(t.carryUsdc) },
        ]
      : []),
    ...(closing ? [{ label: "Margin expected back", value: formatUsdc(t.marginBackUsdc) }] : []),
  ];
}

/**
 * Each roll of the preview in lines of its own: what it is, the Close's exit impact, the fee pair, and one line "This
 * roll costs X" (the three added, to the cent; "not known yet" while a quote is missing).
 */
export function rollNotes(preview: Preview): Array<{ title: string; lines: string[]; cost: string }> {
  return preview.rolls.map((r) => ({
    title: `Roll ${r.market} ${r.side}: Close (row ${r.closeRow}), then Open (row ${r.openRow})`,
    lines: [
      `Exit impact of the Close: ${formatUsd(r.exitImpactUsd)}`,
      `Fees: ${formatUsd(r.closeFeeUsd)} (Close) + ${formatUsdc(r.openFeeUsdc)} (Open)`,
    ],
    cost: r.costUsd === null ? "This roll's cost is not known yet." : `This roll costs ${formatUsd(r.costUsd)}.`,
  }));
}

/** The rows that would be sent with the chosen "send again" boxes, and whether the batch can go at all. */
export function sendPlan(
  preview: Preview,
  sendAgainRows: ReadonlySet<number>,
): { lines: PreviewLine[]; count: number; notional: number; blockedReason: string | null } {
  const lines = preview.lines.filter((l) => l.blockers.length === 0 && (!l.duplicateOf || sendAgainRows.has(l.row.rowNumber)));
  const notional = batchNotional(lines); // a roll once
  let blockedReason: string | null = null;
  if (preview.blockers.length) blockedReason = preview.blockers.join(" ");
  else if (lines.length === 0) blockedReason = "Nothing to send: every row is blocked or already done (tick “Send again” to repeat one).";
  return { lines, count: lines.length, notional, blockedReason };
}

/** The wording of the confirmation. A live key needs a second, deliberate confirmation naming the environment, count and total. */
export function confirmation(
  environment: Environment,
  action: BatchAction,
  count: number,
  notional: number,
  hiddenRowsSkipped = 0,
  /** The actions of the rows to send, for a batch from the Action column ("1 Close, 1 Open, 2 Add" in the LIVE question). */
  actions: readonly Action[] = [],
): { steps: 1 | 2; button: string; dialog: string | null } {
  const label =
    action === "column"
      ? `${plural(count, "row")} from the Action column (${actionMix(actions)})`
      : `${ACTION_LABELS[action]} ${plural(count, "row")}`;
  const what = `${label}, total notional ${formatUsd(notional)}`;
  if (environment === "production") {
    return {
      steps: 2,
      button: `Confirm ${plural(count, "row")} (LIVE)`,
      dialog: `LIVE environment — production money. ${what}.${hiddenNote(hiddenRowsSkipped)} Send these orders?`,
    };
  }
  return { steps: 1, button: `Confirm and send ${plural(count, "row")}`, dialog: null };
}

/** " 3 hidden rows were skipped (…)": the rows Excel hides inside the selection are never sent. */
export function hiddenNote(hidden: number): string {
  if (!hidden) return "";
  return ` ${hidden === 1 ? "1 hidden row was" : `${hidden} hidden rows were`} skipped (filtered out or hidden in Excel) and will not be sent.`;
}

export const STATUS_LABELS: Record<IntentStatus | "skipped", string> = {
  submitting: "Sending",
  submitted: "Submitted, waiting for fill",
  needs_decision: "Needs your decision",
  not_sent: "Not sent",
  filled: "Filled",
  failed: "Failed",
  closed: "Closed",
  rejected: "Rejected",
  skipped: "Skipped",
};

/** Tone of a status for its colour: good, bad or in progress. */
export function statusTone(status: string): "good" | "bad" | "busy" {
  if (status === "filled" || status === "closed") return "good";
  if (status === "failed" || status === "rejected" || status === "needs_decision" || status === "not_sent") return "bad";
  return "busy";
}

/** The pricing progress line: "Priced 120 of 1,000 rows (3 of 20 distinct quotes)…". */
export function pricingText(preview: Preview, finished: boolean): string {
  const t = preview.totals;
  if (!preview.lines.some((l) => quoted(l.row.action)) && preview.action !== "open" && preview.action !== "add")
    return "Looking up the positions…";
  const rows = `${t.priced.toLocaleString("en-US")} of ${plural(t.rows, "row").replace(/^\d+/, t.rows.toLocaleString("en-US"))}`;
  if (finished) return preview.cancelled ? `Cancelled: priced ${rows}.` : `Priced ${rows}.`;
  return `Pricing: ${rows} priced (${preview.quoteRequests} quote${preview.quoteRequests === 1 ? "" : "s"} asked)…`;
}

interface ProgressModel {
  done: number;
  total: number;
  /** 0..100 */
  percent: number;
  text: string;
}

export function progressModel(progress: Pick<Progress, "done" | "total" | "counts">): ProgressModel {
  const percent = progress.total > 0 ? Math.round((progress.done / progress.total) * 100) : 0;
  const parts = (["filled", "closed", "submitted", "submitting", "needs_decision", "failed", "rejected", "not_sent"] as const)
    .filter((s) => progress.counts[s] > 0)
    .map((s) => `${progress.counts[s]} ${STATUS_LABELS[s].toLowerCase()}`);
  return {
    done: progress.done,
    total: progress.total,
    percent,
    text: `${progress.done} of ${progress.total} final${parts.length ? ` — ${parts.join(", ")}` : ""}`,
  };
}

/** One status line for a row, e.g. "Row 5 · Open buy USDTNGN · Filled · Filled at 1502.3500". */
export function rowStatusText(row: RowStatus): string {
  const what = `${ACTION_LABELS[row.action]} ${row.side} ${row.market}`;
  const where = row.rowNumber !== null ? `Row ${row.rowNumber} · ${what}` : `Resumed · ${what}`;
  const code = row.errorCode ? ` (${row.errorCode})` : "";
  const label = STATUS_LABELS[row.status];
  const sameAsLabel = row.message !== null && row.message.replace(/[.\s]+$/, "").toLowerCase() === label.toLowerCase();
  return `${where} · ${label}${code}${row.message && !sameAsLabel ? ` · ${row.message}` : ""}`;
}
