// Month end's check of the Hedge Log's hash chain: the rows read (year sheets oldest first, then the log) as chain rows, checkChain against this computer's head, each finding named by its sheet and row.
import { checkChain, type ChainFindingKind, type ChainRow } from "../trading/log/log-chain";
import { LOG_FINAL_STATUSES } from "../trading/types";
import type { PlacedLogRow } from "../trading/workbook";

/** One finding as the recon sheet lists it. */
export interface ChainLine {
  kind: ChainFindingKind;
  /** The sheet and 1-based row it is about (null for a cut-off empty log). */
  sheet: string | null;
  rowNumber: number | null;
  /** checkChain's words, every row it names given with its own sheet row (and its sheet when another). */
  message: string;
}

/** What month end found about the chain. */
export interface ChainReport {
  /** Rows read, every sheet. */
  rows: number;
  /** Rows from the first row that carries a link (the ones judged). */
  chained: number;
  /** Whether this computer's journal knew the newest link it wrote (else a log cut at its end cannot be seen). */
  headKnown: boolean;
  /** In chain order: "before the chain" first, then row by row, then a cut-off end. */
  lines: ChainLine[];
}

/** How each kind reads on the sheet, in plain words. */
export const CHAIN_KIND_LABELS: Readonly<Record<ChainFindingKind, string>> = {
  before_chain: "Before the chain: not judged",
  edited: "Edited after it was written",
  edited_after_final: "Outcome edited after it was final",
  not_sealed: "Final status not written by the add-in",
  inserted: "Row inserted",
  deleted_before: "Row deleted before it",
  moved: "Row moved",
  forked: "Chain forks",
  cut_off: "Rows cut off the end",
};

/** Findings that say something was changed (rows before the chain are only not judged). */
export const flaggedLines = (report: ChainReport | null): ChainLine[] => (report?.lines ?? []).filter((l) => l.kind !== "before_chain");

const FINAL = new Set<string>(LOG_FINAL_STATUSES);

/**
 * The rows as the chain sees them: in the order given (chain order), numbered 1, 2, … across sheets (checkChain's row
 * numbers; the place of each is kept aside). A row is final when its status is, or when it carries a seal: a row sealed
 * once and set back to an unfinished status is judged against its seal, so that an edited final status is seen.
 */
export function chainRows(rows: readonly PlacedLogRow[]): ChainRow[] {
  return rows.map(({ record }, i) => ({
    rowNumber: i + 1,
    record,
    chain: { prevHash: record.prevHash ?? null, rowHash: record.rowHash ?? null, finalHash: record.finalHash ?? null },
    final: FINAL.has(String(record.status ?? "").trim()) || !!record.finalHash,
  }));
}

/** Checks the chain of every row month end read, against `head` (chainHeadOf: this computer's newest link, null when unknown). */
export function verifyLogChain(rows: readonly PlacedLogRow[], head: string | null): ChainReport {
  const chain = chainRows(rows);
  const findings = checkChain(chain, head);
  const first = chain.findIndex((r) => r.chain.rowHash);
  const placeOf = (n: number | null) => (n === null ? null : (rows[n - 1] ?? null));
  const lines = findings.map((f) => {
    const place = placeOf(f.rowNumber);
    return {
      kind: f.kind,
      sheet: place?.sheet ?? null,
      rowNumber: place?.rowNumber ?? null,
      message: f.message.replace(/\b([Rr])ow (\d+)\b/g, (text, r: string, n: string) => {
        const named = placeOf(Number(n));
        if (!named) return text;
        return `${r}ow ${named.rowNumber}${named.sheet === place?.sheet ? "" : ` of ${named.sheet}`}`;
      }),
    };
  });
  return { rows: rows.length, chained: first < 0 ? 0 : rows.length - first, headKnown: head !== null, lines };
}
