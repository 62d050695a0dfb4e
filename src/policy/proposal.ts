// The proposal, built once for HEDGE.TARGET and the pane's Propose: the rule's rows at an instant with their spill, and the Hedge Proposal sheet made of them (plain values, never formulas).
import type { ClosedHedge, Position, Side } from "../api/schemas";
import { PROPOSAL_HEADERS } from "../trading/rows";
import { FORMATS, type SheetContent } from "../trading/sheet-content";
import type { TradeRow } from "../trading/types";
import type { SelectedRows } from "../trading/workbook";
import {
  originOf,
  readExposures,
  readPolicy,
  serviceHoldings,
  serviceMatured,
  type Exposure,
  type Holding,
  type InputRange,
  type Matured,
  type PolicyRow,
} from "./inputs";
import { proposalSpill, propose, utcDay, type ProposalRow } from "./target";

export const PROPOSAL_SHEET = "Hedge Proposal";

/** What a proposal is made of, read and checked. */
export interface ProposalInputs {
  exposures: readonly Exposure[];
  policy: readonly PolicyRow[];
  holdings: readonly Holding[];
  /** Sides settled at their maturity with nothing open since (serviceMatured): a roll's next Open is named by it. */
  matured?: readonly Matured[];
}

/** A proposal: its rows in trading order and its spill (the header row, then one row per row). */
export interface Proposal {
  rows: ProposalRow[];
  values: Array<Array<string | number>>;
}

/**
 * The proposal at `asOfMs` (epoch ms): value dates and maturities are judged at it, the client references carry its UTC
 * day. `only`: one market side's rows (Propose beside that side).
 */
export function proposalAt(inputs: ProposalInputs, asOfMs: number, only?: { market: string; side: Side }): Proposal {
  const rows = propose({ ...inputs, day: utcDay(new Date(asOfMs)), asOfMs, only });
  return { rows, values: proposalSpill(rows) };
}

/**
 * An armed roll's rows (the desk's RollArming asks them once the service shows the side settled): what the proposal gives
 * `side` settled at `maturityMs` with nothing open on it, at `asOfMs` — the same rule as HEDGE.TARGET at maturity, so the
 * same target, tenor and Max trade pieces, named rollReference(maturityMs, …, n) — as trade rows.
 */
export function rollRowsAt(
  model: Pick<ProposalInputs, "exposures" | "policy">,
  holdings: readonly Holding[],
  side: { market: string; side: Side },
  maturityMs: number,
  asOfMs: number,
): TradeRow[] {
  const others = holdings.filter((h) => h.market !== side.market || h.side !== side.side);
  const { rows } = proposalAt({ ...model, holdings: others, matured: [{ ...side, maturedAtMs: maturityMs }] }, asOfMs, side);
  return tradeRowsOf(rows);
}

/** A proposal's rows as the desk's trade rows, in order, numbered from `firstRow` (2 where they stand under a header row). */
export function tradeRowsOf(rows: readonly ProposalRow[], firstRow = 1): TradeRow[] {
  return rows.map((r, i) => ({
    rowNumber: firstRow + i,
    action: r.action,
    market: r.market,
    side: r.side,
    notional: r.amountUsd,
    tenor: r.tenor,
    clientReference: r.clientReference,
  }));
}

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

/**
 * The proposal from two selections, the live positions and the service's newest closed hedges (a side settled at its
 * maturity is a roll's next Open): its rows and the sheet to write (plain values, never formulas). `only`: one side.
 */
export function proposalContent(
  exposures: SelectedRows,
  policy: SelectedRows,
  positions: readonly Position[],
  now: Date,
  service: { history?: readonly ClosedHedge[]; only?: { market: string; side: Side } } = {},
): { rows: ProposalRow[]; content: SheetContent; inputs: { exposures: Exposure[]; policy: PolicyRow[] } } {
  const inputs = {
    exposures: readExposures(rangeOfSelection(exposures)),
    policy: readPolicy(rangeOfSelection(policy)),
    holdings: serviceHoldings(positions),
    matured: serviceMatured(service.history ?? []),
  };
  const { rows, values } = proposalAt(inputs, now.getTime(), service.only);
  const formats = values.map((row, r) =>
    row.map((_, c) => (r > 0 && USD_COLUMNS.has(PROPOSAL_HEADERS[c]) ? FORMATS.usd : r > 0 && c === 4 ? FORMATS.count : FORMATS.text)),
  );
  return {
    rows,
    inputs: { exposures: inputs.exposures, policy: inputs.policy },
    content: { name: PROPOSAL_SHEET, values, formats, columnWidths: PROPOSAL_HEADERS.map((h) => WIDTHS[h]), boldRows: [0], sections: [] },
  };
}
