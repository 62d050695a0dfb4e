// Propose: from the selected exposures and policy and the live positions, the "Hedge Proposal" sheet's content (plain values, the HEDGE.TARGET spill) and what the pane says about it.
import type { Position } from "../api/schemas";
import { FORMATS, type SheetContent } from "../monthend/sheet-content";
import { originOf, readExposures, readPolicy, serviceHoldings, type InputRange } from "../policy/inputs";
import { PROPOSAL_HEADERS, proposalSpill, propose, utcDay, type ProposalRow } from "../policy/target";
import type { SelectedRows } from "../trading/workbook";
import { plural } from "./format";

export const PROPOSAL_SHEET = "Hedge Proposal";

/** A selection as one of HEDGE.TARGET's ranges: its header row and rows, with their sheet rows and columns for messages. */
export function rangeOfSelection(selection: SelectedRows): InputRange {
  const at = originOf(selection.address);
  return {
    values: [selection.headers, ...selection.rows.map((r) => r.values)],
    origin: {
      row: selection.headerRowNumber,
      column: at?.column ?? 1,
      sheet: selection.sheetName,
      rowNumbers: [selection.headerRowNumber, ...selection.rows.map((r) => r.rowNumber)],
    },
  };
}

const WIDTHS: Record<(typeof PROPOSAL_HEADERS)[number], number> = {
  Action: 60,
  Market: 70,
  Side: 40,
  "Amount (USD)": 95,
  "Tenor (days)": 70,
  "Client reference": 210,
  "Current (USD)": 95,
  "Target (USD)": 95,
  Reason: 420,
};
const USD_COLUMNS = new Set<string>(["Amount (USD)", "Current (USD)", "Target (USD)"]);

/** The proposal from two selections and the live positions: its rows and the sheet to write (plain values, never formulas). */
export function proposalContent(
  exposures: SelectedRows,
  policy: SelectedRows,
  positions: readonly Position[],
  now: Date,
): { rows: ProposalRow[]; content: SheetContent } {
  const rows = propose({
    exposures: readExposures(rangeOfSelection(exposures)),
    policy: readPolicy(rangeOfSelection(policy)),
    holdings: serviceHoldings(positions),
    day: utcDay(now),
    asOfMs: now.getTime(),
  });
  const values = proposalSpill(rows);
  const formats = values.map((row, r) =>
    row.map((_, c) => (r > 0 && USD_COLUMNS.has(PROPOSAL_HEADERS[c]) ? FORMATS.usd : r > 0 && c === 4 ? FORMATS.count : FORMATS.text)),
  );
  return {
    rows,
    content: { name: PROPOSAL_SHEET, values, formats, columnWidths: PROPOSAL_HEADERS.map((h) => WIDTHS[h]), boldRows: [0], sections: [] },
  };
}

/** What the pane says once the proposal is written. */
export function proposalSummary(rows: readonly ProposalRow[], sheet: string): string {
  if (rows.length === 0) return `Nothing to do: every hedge is within Min trade of its target (${sheet} shows the header only).`;
  const counts = (["close", "reduce", "open", "add"] as const)
    .map((a) => [a, rows.filter((r) => r.action === a).length] as const)
    .filter(([, n]) => n > 0)
    .map(([a, n]) => `${n} ${a[0].toUpperCase()}${a.slice(1)}`);
  return `${plural(rows.length, "row")} proposed on ${sheet} (${counts.join(", ")}). Review them, then select them and press Read selection to trade them as one batch.`;
}
