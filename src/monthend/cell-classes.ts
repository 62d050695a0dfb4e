// The class of each cell of a Hedge Log row at month end (checked against the service, sealed: held only by the hash chain, or in the workbook only) and their counts for the recon sheet.
import { LOG_COLUMNS, type LogRecord } from "../trading/log/hedge-log";
import { CHAIN_FORMS, versionOf } from "../trading/log/log-chain";
import type { PlacedLogRow } from "../trading/workbook";
import type { HedgeFacts } from "./hedge-story";
import { EFFECTIVE, NEVER_HAPPENED, type CellCounts } from "./recon-model";

/**
 * Cells the service answers for on any row whose hedge it shows: the hedge is this account's in this environment, on the
 * row's market and side, and the row was logged and sent while it could act on it (log-vs-service.ts's rowLines).
 */
const ANY_ROW = ["environment", "account", "hedgeId", "market", "side", "loggedAt", "sentAt"];
/** An Add's, Reduce's or Close's fill cells: empty, or its hedge's own fill. */
const FILL = ["fillTxHash", "filledAt", "struckRate"];

/**
 * The cells of row `p` checked against the service: none when the service showed no hedge for it (`f` undefined);
 * otherwise the table in src/monthend/README.md ("Which cells month end checks"), which log-vs-service.ts and
 * hedge-story.ts apply.
 */
export function checkedFields(p: PlacedLogRow, f: HedgeFacts | undefined): Set<string> {
  if (!f) return new Set();
  const r = p.record;
  const out = [...ANY_ROW];
  const held = f.hedge.status === "filled" || f.hedge.status === "closed";
  if (r.action === "open") {
    out.push("tenor");
    if (f.hedge.client_reference) out.push("clientReference");
    if (EFFECTIVE.has(r.status) || NEVER_HAPPENED.has(r.status)) out.push("status");
    if (EFFECTIVE.has(r.status) && held) {
      out.push("orderTxHash", "fillTxHash", "filledAt");
      if (f.adds.length === 0 || f.amountsChecked) out.push("struckRate");
    }
    if (f.amountsChecked && f.open === p) out.push("notional");
  } else {
    out.push(...FILL);
    const single = r.action === "add" && f.adds.length === 1 && f.adds[0] === p;
    const reduced = r.action === "reduce" && !!f.records && f.reduces.includes(p);
    if (f.amountsChecked && (single || reduced)) out.push("notional");
  }
  return new Set(out);
}

/** The fields the chain holds for a row: its body and links once linked, its outcome and seal once sealed, in the form it was written in. */
function sealedFields(r: LogRecord): Set<string> {
  if (!r.rowHash) return new Set();
  const version = versionOf(r.rowHash, r);
  const form = CHAIN_FORMS.find((c) => c.version === version) ?? CHAIN_FORMS[CHAIN_FORMS.length - 1];
  const out = [...form.body, "prevHash", "rowHash"];
  if (r.finalHash) out.push(...form.final, "finalHash");
  return new Set(out);
}

/** Each cell of every row read, in its class: checked (by `checkedOf`), else sealed, else in the workbook only. */
export function countCells(rows: readonly PlacedLogRow[], checkedOf: (p: PlacedLogRow) => ReadonlySet<string>): CellCounts {
  const counts: CellCounts = { checked: 0, sealed: 0, workbookOnly: 0 };
  for (const p of rows) {
    const checked = checkedOf(p);
    const sealed = sealedFields(p.record);
    for (const { field } of LOG_COLUMNS) {
      if (checked.has(field)) counts.checked++;
      else if (sealed.has(field)) counts.sealed++;
      else counts.workbookOnly++;
    }
  }
  return counts;
}
