// The chain writer: appends rows to the Hedge Log as the next links of its hash chain (Prev hash, Row hash, and a seal for a row appended final), one append at a time, and keeps this computer's head once the log holds them — over the small ports the journal passes in.
import { utcMs } from "../../api/time";
import type { LogRecord, RowChain } from "./hedge-log";
import { CHAIN_START, rowHashOf } from "./log-chain";

/** What the chain writer needs of the log and of this computer's journal (the journal passes them in). */
export interface ChainPorts {
  /** The log's last row (one row read, not the log); null for an empty log. */
  readLastRow(): Promise<LogRecord | null>;
  /** Appends the records at the log's end; resolves once the log holds them. */
  append(records: LogRecord[]): Promise<void>;
  /** This computer's newest link in this workbook's log, and when it appended that row; null: none kept. */
  loadHead(): Promise<{ rowHash: string; writtenAt: string } | null>;
  /** Keeps `rowHash` as this computer's newest link in this workbook's log (a failure is the port's to report). */
  keepHead(rowHash: string): Promise<void>;
}

/** Rows to link and append: their chain cells are set here, their records and seals are the caller's. */
interface ChainAppend<T> {
  rows: T[];
  /** The row's record as the log gets it (with the chain cells just set). */
  record(row: T): LogRecord;
  /** The row's seal in its state now (null while not final). */
  seal(row: T): string | null;
}

export class ChainWriter {
  /**
   * The link the next row appended follows (see nextLink): known once read or written in this session; undefined before,
   * and again after an append that failed (the log may or may not hold its rows).
   */
  private tail: string | undefined = undefined;
  /** Appends one at a time from taking their links to the log holding them. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly ports: ChainPorts) {}

  /**
   * Appends rows to the log as the next links of its chain: each row's Prev hash is the link before it, its Row hash
   * rowHashOf(Prev hash, its body), and a row appended final (written back) is sealed at once. One append at a time from
   * taking the links to the log holding the rows, so two rows never follow the same link. Once the log holds them, the
   * last one's link is this computer's head for this workbook (written after the log: a head the log never held would
   * read as a log cut off).
   */
  append<T extends RowChain>({ rows, record, seal }: ChainAppend<T>): Promise<void> {
    const run = this.turn
      .catch(() => undefined)
      .then(async () => {
        let link = await this.nextLink();
        for (const row of rows) {
          row.prevHash = link;
          row.rowHash = link = rowHashOf(link, record(row));
          row.finalHash = seal(row);
        }
        try {
          await this.ports.append(rows.map(record));
        } catch (e) {
          this.tail = undefined; // the log may hold them or not: read its last row again next time
          throw e;
        }
        this.tail = link;
        await this.ports.keepHead(link);
      });
    this.turn = run;
    return run;
  }

  /**
   * The link the next row follows: the one this session last wrote; else the newer of the log's last row's Row hash and
   * this computer's head for this workbook (a head written after that row was appended is newer: the rows after it were
   * cut off, and the next row, following the head, shows it); CHAIN_START when neither has one. One row read, not the log.
   */
  private async nextLink(): Promise<string> {
    if (this.tail !== undefined) return this.tail;
    const [last, head] = await Promise.all([this.ports.readLastRow(), this.ports.loadHead()]);
    const lastLink = last?.rowHash || null;
    // A Logged at that is no time (typed by hand) reads as NaN: the row is then not proven newer, and the head is followed.
    if (head && (!lastLink || !(utcMs(last!.loggedAt) > utcMs(head.writtenAt)))) return head.rowHash;
    return lastLink ?? CHAIN_START;
  }
}
