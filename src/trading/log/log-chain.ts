// The Hedge Log's hash chain: a row's canonical body and final state (in the versioned form it was written in), its link (SHA-256 over the previous link and its body), its seal once final, and the check month end runs over the log in sheet order.
import { utcMs } from "../../api/time";
import { hashOf } from "./digest";
import { LOG_COLUMNS, type LogColumn, type LogRecord } from "./log-columns";

/** The link before the first row of a chain. */
export const CHAIN_START = "0".repeat(64);

/** What the add-in writes beside a row's cells: the link it follows, its own link, and its seal once final. */
interface ChainCells {
  /** The link of the row written before it (CHAIN_START for the first). */
  prevHash: string | null;
  /** SHA-256 of prevHash and the row's canonical body. */
  rowHash: string | null;
  /** Once the row is final: SHA-256 of rowHash and its canonical final state. */
  finalHash: string | null;
}

/**
 * One version of the chain's canonical form: the fields its body and its seal cover, in that order. A row is linked and
 * sealed in the newest form (chainVersion()), and judged ever after in the form it was written in, so that a column added
 * later never changes an old row's link or seal. A form is made from the log's columns (LOG_COLUMNS): version v covers
 * the body and outcome columns whose `chain` is v or less, in column order. So a new column the chain should cover takes
 * the next version, which appends a form; an old form never changes as long as no column of it is edited, moved or
 * re-versioned (src/README.md, "A new Hedge Log column"; test/trading/log/log-chain.test.ts pins every released form).
 * From version 2 on, the canonical text starts with its version number (`[2,…]`); version 1, the form of the logs written
 * before forms had versions, has none.
 */
export interface ChainForm {
  version: number;
  /** What was sent and the approval it was sent under: never changes after the row is appended. */
  body: readonly string[];
  /** The row's outcome (what the service answered and the user decided): sealed when the row becomes final. */
  final: readonly string[];
}

/** The forms the columns make, oldest first (versions 1, 2, … up to the highest column's `chain`). */
function formsOf(columns: readonly LogColumn[]): ChainForm[] {
  const covered = columns.flatMap((c) => (c.part === "link" ? [] : [c]));
  const newest = Math.max(1, ...covered.map((c) => c.chain));
  const fieldsOf = (part: "body" | "outcome", version: number) =>
    covered.filter((c) => c.part === part && c.chain <= version).map((c) => c.field);
  return Array.from({ length: newest }, (_, i) => ({ version: i + 1, body: fieldsOf("body", i + 1), final: fieldsOf("outcome", i + 1) }));
}

/** The chain's forms, oldest first (versions 1, 2, …). */
export const CHAIN_FORMS: readonly ChainForm[] = formsOf(LOG_COLUMNS);

/** The form rows are written in now: the newest. */
const newestForm = (): ChainForm => CHAIN_FORMS[CHAIN_FORMS.length - 1];
/** The version rows are written in now. */
export const chainVersion = (): number => newestForm().version;

const AMOUNTS = new Set<string>(["notional", "notionalBefore"]);
const TIMES = new Set<string>(["loggedAt", "filledAt", "sentAt", "decidedAt"]);

/**
 * One field as the chain sees it, so that what Excel gives back hashes as what was written: amounts to the cent, times to
 * the whole second in UTC (a time kept as an Excel serial comes back within a millisecond), empty cells as null.
 */
function canonicalValue(field: string, value: unknown): string | number | null {
  if (value === null || value === undefined || value === "") return null;
  if (AMOUNTS.has(field)) return typeof value === "number" ? value.toFixed(2) : String(value);
  if (TIMES.has(field)) return canonicalTime(String(value));
  return typeof value === "number" ? value : String(value);
}

/** A time as written (`2026-11-25T17:03:12Z` or `.000Z`…`.499Z`, what toISOString and fromExcelDate give): already whole seconds. */
const WRITTEN_TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.[0-4]\d\d)?Z$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * A time to the whole second in UTC, as toISOString writes it; text that is no time stays as it is. The form the add-in
 * writes is read without Date (month end canonicalizes tens of thousands of them, and Date's parsing was most of the
 * chain check's time); any other form goes through utcMs, with the same result.
 */
function canonicalTime(text: string): string {
  const m = WRITTEN_TIME.exec(text);
  // Years before 100 are left to utcMs (its day count reads them as 19xx).
  if (m && +m[1] >= 100) {
    const year = +m[1];
    const month = +m[2];
    const day = +m[3];
    const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 1 : 0;
    // Month 0 or 13 has no entry: undefined + leap is NaN, and no day is at most NaN.
    if (day >= 1 && day <= DAYS_IN_MONTH[month - 1] + leap && +m[4] <= 23 && +m[5] <= 59 && +m[6] <= 59) return `${text.slice(0, 19)}.000Z`;
    return text; // out of range (month 13, 30 February, 24:00): not a time, as utcMs says
  }
  const ms = utcMs(text);
  return Number.isFinite(ms) ? new Date(Math.round(ms / 1000) * 1000).toISOString() : text;
}

/** The canonical text of some fields of a record: a JSON array in the fixed order given, its version first from version 2 on. */
function canonical(record: Partial<LogRecord>, fields: readonly string[], version: number): string {
  // JSON.stringify of the array, written out element by element (no array per row: month end builds 100,000 of these).
  const values = record as Record<string, unknown>;
  let text = version > 1 ? `[${version}` : "[";
  for (let i = 0; i < fields.length; i++)
    text += (i === 0 && version <= 1 ? "" : ",") + JSON.stringify(canonicalValue(fields[i], values[fields[i]]));
  return `${text}]`;
}

/** The form of a version; an unknown version is refused (a caller's error, never a row's). */
function formOf(version: number): ChainForm {
  const form = CHAIN_FORMS.find((f) => f.version === version);
  if (!form) throw new RangeError(`The Hedge Log's chain has no form version ${version} (versions 1 to ${chainVersion()}).`);
  return form;
}

export const canonicalBody = (record: Partial<LogRecord>, version = chainVersion()): string =>
  canonical(record, formOf(version).body, version);
export const canonicalFinal = (record: Partial<LogRecord>, version = chainVersion()): string =>
  canonical(record, formOf(version).final, version);

/** The link of a row appended after `prevHash`, in the newest form (or the version given). */
export const rowHashOf = (prevHash: string, record: Partial<LogRecord>, version = chainVersion()): string =>
  hashOf(prevHash, canonicalBody(record, version));

/**
 * The version a row was linked in: the newest form whose link, from the row's Prev hash and body, is `rowHash`; null
 * when none is (its body was edited, or it has no Prev hash). Newest first: a row written now costs one hash.
 */
export const versionOf = (rowHash: string, record: Partial<LogRecord>): number | null =>
  linkVersion(record.prevHash ?? null, rowHash, record);

/** versionOf with the Prev hash given apart from the record. */
function linkVersion(prev: string | null, rowHash: string, record: Partial<LogRecord>): number | null {
  if (!prev) return null;
  for (let i = CHAIN_FORMS.length - 1; i >= 0; i--) {
    const { version } = CHAIN_FORMS[i];
    if (rowHashOf(prev, record, version) === rowHash) return version;
  }
  return null;
}

/**
 * The seal of a row final in this state, in the form its link was made in (found from its Prev hash: a row linked before
 * a new form and sealed after is sealed in its own form); the newest form when that cannot be told.
 */
export const finalHashOf = (rowHash: string, record: Partial<LogRecord>, version = versionOf(rowHash, record) ?? chainVersion()): string =>
  hashOf(rowHash, canonicalFinal(record, version));

/** One row of the log in sheet order, as month end reads it. */
export interface ChainRow {
  /** The 1-based sheet row, for the finding. */
  rowNumber: number;
  record: Partial<LogRecord>;
  chain: ChainCells;
  /** The row's status is final (FINAL_STATUSES): its seal is due. */
  final: boolean;
}

export type ChainFindingKind =
  "before_chain" | "edited" | "edited_after_final" | "not_sealed" | "inserted" | "deleted_before" | "moved" | "forked" | "cut_off";

interface ChainFinding {
  kind: ChainFindingKind;
  /** The sheet row it is about (cut_off: the last row of the log, or null for an empty log). */
  rowNumber: number | null;
  message: string;
}

/**
 * Checks a log in sheet order. Rows before the first row with a link are "before the chain" (one finding for them all).
 * After it, each row must carry a link that is the hash of its stated previous link and its body (else a cell of its
 * body was edited, or, with no link, it was typed in); its stated previous link must be a row of the log (else the row
 * written before it was deleted); the rows must stand in the order of their links (the fewest rows that, moved back,
 * restore that order are flagged as moved); and a final row carries the seal of its final state. `head` is the newest
 * link this computer wrote into this log (from its journal): a log that does not hold it was cut off.
 */
export function checkChain(rows: readonly ChainRow[], head: string | null = null): ChainFinding[] {
  const start = rows.findIndex((r) => r.chain.rowHash);
  const unchained = start < 0 ? rows.length : start;
  const chained = rows.slice(unchained);
  const findings: ChainFinding[] = [];
  if (unchained > 0)
    findings.push({
      kind: "before_chain",
      rowNumber: rows[0].rowNumber,
      message: `${unchained} row(s) from row ${rows[0].rowNumber} were written before the log kept a hash chain: not judged.`,
    });
  const own = chained.map(ownFinding);
  const rowOf = new Map<string, ChainRow>();
  for (const r of chained) if (r.chain.rowHash && !rowOf.has(r.chain.rowHash)) rowOf.set(r.chain.rowHash, r);
  const moved = outOfOrder(chained, rowOf);
  const forks = forkedRows(chained, own);
  chained.forEach((r, i) => {
    const at = (kind: ChainFindingKind, message: string) =>
      findings.push({ kind, rowNumber: r.rowNumber, message: `Row ${r.rowNumber}: ${message}` });
    const prev = r.chain.prevHash;
    if (own[i]) at(own[i]!.kind, own[i]!.message);
    else if (rowOf.get(r.chain.rowHash!) !== r) at("inserted", `a copy of row ${rowOf.get(r.chain.rowHash!)!.rowNumber}, pasted by hand.`);
    else if (prev !== CHAIN_START && !rowOf.has(prev!)) at("deleted_before", "the row written just before it was deleted.");
    else if (forks.has(r)) at("forked", forkMessage(forks.get(r)!, prev!, rowOf));
    else if (moved.has(r))
      at(
        "moved",
        prev === CHAIN_START
          ? "moved: it was the first row of the chain."
          : `moved: it was written after row ${rowOf.get(prev!)!.rowNumber}.`,
      );
  });
  if (head !== null && !rowOf.has(head)) {
    const last = rows.length > 0 ? rows[rows.length - 1].rowNumber : null;
    findings.push({
      kind: "cut_off",
      rowNumber: last,
      message: `The newest row this computer wrote is not in the log: rows were cut off${last === null ? "" : ` after row ${last}`}.`,
    });
  }
  return findings;
}

/** What is wrong with a row on its own (its link against its cells, its seal); null where nothing is. */
function ownFinding(r: ChainRow): { kind: ChainFindingKind; message: string } | null {
  const { prevHash, rowHash, finalHash } = r.chain;
  if (!rowHash || !prevHash) return { kind: "inserted", message: "inserted by hand: it carries no link of the add-in's chain." };
  const version = linkVersion(prevHash, rowHash, r.record);
  if (version === null)
    return {
      kind: "edited",
      message:
        "a cell of what was sent (amount, market, side, tenor, reference, time, key, account or approval) was edited after it was written.",
    };
  if (!r.final) return null;
  if (!finalHash) return { kind: "not_sealed", message: "its final status was not written by the add-in (no seal)." };
  if (finalHashOf(rowHash, r.record, version) !== finalHash)
    return {
      kind: "edited_after_final",
      message: "a cell of its outcome (status, rate, hashes, message, decision) was edited after it was final.",
    };
  return null;
}

/**
 * The rows that follow the same link as a row before them in sheet order (two computers appended at once, or a row was
 * forged after a row that already had a follower), each with the first row that follows that link. An edited row does not
 * count; a pasted copy holds its original's link, so a second follower is a fork even when the original was edited.
 */
function forkedRows(rows: readonly ChainRow[], own: ReadonlyArray<{ kind: ChainFindingKind } | null>): Map<ChainRow, ChainRow> {
  const first = new Map<string, ChainRow>();
  const forks = new Map<ChainRow, ChainRow>();
  rows.forEach((r, i) => {
    if (own[i]) return;
    const earlier = first.get(r.chain.prevHash!);
    if (earlier) forks.set(r, earlier);
    else first.set(r.chain.prevHash!, r);
  });
  return forks;
}

/** What a forked row's finding says: the row that already follows the same link, and that link's row. */
function forkMessage(other: ChainRow, prev: string, rowOf: ReadonlyMap<string, ChainRow>): string {
  const after = prev === CHAIN_START ? "the start of the chain" : `row ${rowOf.get(prev)!.rowNumber}`;
  return (
    `the chain forks: it follows ${after}, as row ${other.rowNumber} does. Two computers wrote into the log at once, ` +
    "or this row was forged after the log was written."
  );
}

/**
 * The rows standing out of the order of their links: each row gets its place in the chain (following links from each
 * row whose previous link is the start or missing, taken in sheet order), and the rows outside a longest run of rising
 * places (in sheet order) are the fewest that moved.
 */
function outOfOrder(rows: readonly ChainRow[], rowOf: ReadonlyMap<string, ChainRow>): Set<ChainRow> {
  const next = new Map<string, ChainRow>();
  for (const r of rows)
    if (r.chain.prevHash && r.chain.rowHash && rowOf.get(r.chain.rowHash) === r && !next.has(r.chain.prevHash))
      next.set(r.chain.prevHash, r);
  const place = new Map<ChainRow, number>();
  for (const head of rows) {
    const prev = head.chain.prevHash;
    // A head follows the start or no row of the log (a row whose Prev hash was cleared too), so no walk has reached it.
    if (rowOf.get(head.chain.rowHash ?? "") !== head || (prev !== CHAIN_START && rowOf.has(prev ?? ""))) continue;
    for (let r: ChainRow | undefined = head; r && !place.has(r); r = next.get(r.chain.rowHash!)) place.set(r, place.size);
  }
  const placed = rows.filter((r) => place.has(r));
  const kept = longestRising(placed.map((r) => place.get(r)!));
  return new Set(placed.filter((_, i) => !kept.has(i)));
}

/** Indexes of one longest strictly rising subsequence of `values` (patience sorting, O(n log n)). */
function longestRising(values: readonly number[]): Set<number> {
  const tails: number[] = [];
  // The index before each one in its run (none for a run's first: undefined, which ends the walk back).
  const before: Array<number | undefined> = [];
  values.forEach((v, i) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[tails[mid]] < v) lo = mid + 1;
      else hi = mid;
    }
    before[i] = tails[lo - 1];
    tails[lo] = i;
  });
  const kept = new Set<number>();
  for (let i: number | undefined = tails[tails.length - 1]; i !== undefined; i = before[i]) kept.add(i);
  return kept;
}
