// The invariants, kept apart from workload and faults: checked as things happen (a request leaving, an execution), after every step of simulated time (the log against the service), and once the world ends.
import { cellsToLogRecord, LOG_COLUMNS, LOG_SHEET_NAME, type LogRecord } from "../../../src/trading/log/hedge-log";
import type { Mutation } from "./faults";
import { KEY_COLUMN, type Files } from "./files";
import { API_KEY, type Service, type ServiceEvents, type Truth } from "./service";
import { FINAL, judgeChain, type CrashWindow, type Effect } from "./explained";
import { checkChain } from "../../../src/trading/log/log-chain";
import { chainRows } from "../../support/chain";

/**
 * The chain switch. Off: a crash window may end with rows parked for the user's decision (counted: `chain:decisions`, and
 * `chain:tookEffectParked` for rows the service shows took effect). On: in a crash window the service fully explains
 * (every unfinished row's effect readable from the hedge's notional and the rows' Notional before and amounts, see
 * explained.ts), no row the chain shows as having taken effect may need a decision: the desk adopts what the service
 * shows. (A row sent that did not take effect, or never sent, known only from the log, may still wait for the user's
 * word on a re-send: the chain does not change that rule.) On since the desk judges a side as a chain (issue 22).
 * Held to the rows this computer journalled: an Add or Reduce only the log knows that looks done only against its Notional
 * before is the user's word (issue 31: that cell may have been typed), counted as `chain:logOnlyAsked`.
 */
export const CHAIN_RESOLVES_WITHOUT_DECISION = true;

const STATUS_COLUMN = LOG_COLUMNS.findIndex((c) => c.field === "status");
const HEDGE_COLUMN = LOG_COLUMNS.findIndex((c) => c.field === "hedgeId");
const ACTION_COLUMN = LOG_COLUMNS.findIndex((c) => c.field === "action");
const MESSAGE_COLUMN = LOG_COLUMNS.findIndex((c) => c.field === "message");
const ROW_KEY = /^k\d+-(\d+)$/;

/** What each (action, what its order did) allows the log to say, once the row is final. */
const ALLOWED: Record<string, string[]> = {
  "open:filled": ["filled"],
  "open:failed": ["failed"],
  "add:filled": ["filled"],
  "add:dropped": ["failed", "not_sent"],
  "add:failed": ["failed", "not_sent"],
  "reduce:filled": ["filled", "closed"],
  "reduce:dropped": ["failed", "not_sent"],
  "close:filled": ["closed"],
  "close:dropped": ["closed", "not_sent"],
};

/** What the checker needs of the world's end. */
export interface EndState {
  finalLog: LogRecord[];
  keysMade: string[];
  editedKeys: ReadonlySet<string>;
  /** This computer's chain head for the workbook (chainHeadOf) at the end. */
  head: string | null;
}

export class Checker implements ServiceEvents {
  readonly violations: string[] = [];
  private readonly seen = new Set<string>();
  /** Per market side, the highest row number (n of k<seed>-<n>) whose request has left. */
  private readonly lastLeft = new Map<string, number>();
  /** Keys of changes no row of this log made (another workbook or person): allowed to execute, never a row's. */
  readonly outside = new Set<string>();
  private serviceChanged = false;
  private logSeen = -1;
  /** The log version whose hash chain was last checked. */
  private chainSeen = -1;
  /** Each final row as last judged (status, hedge, action): unchanged and with the service unchanged, it is not judged again. */
  private readonly judged = new Map<string, string>();
  private window: (CrashWindow & { effects: Map<string, Effect> | null }) | null = null;

  constructor(
    private readonly service: () => Service,
    private readonly files: Files,
    private readonly stats: Record<string, number>,
  ) {}

  fail(text: string): void {
    if (this.seen.has(text)) return;
    this.seen.add(text);
    this.violations.push(`${new Date(Date.now()).toISOString()} ${text}`);
  }

  // ---- as it happens ----

  /** A state-changing request leaves a pane: it carries a key, it is this pane's or the user pressed Resume, and its side's rows leave in order. */
  leaving(m: Mutation): void {
    if (typeof m.key !== "string" || m.key.trim() === "") {
      this.fail(`POST ${m.path} left without an Idempotency-Key`);
      return;
    }
    if (!m.life.createdKeys.has(m.key) && m.life.resumedAt === null)
      this.fail(`pane ${m.life.id} sent ${m.key} (${m.path}) before the user pressed Resume`);
    const n = ROW_KEY.exec(m.key)?.[1];
    const side = this.sideOf(m);
    if (n === undefined || side === null) return;
    const last = this.lastLeft.get(side) ?? 0;
    if (Number(n) >= last) this.lastLeft.set(side, Number(n));
    // Known and counted, not failed (today's desk): a row the log lost, written back from the journal at the log's end,
    // goes after the rows of its side that stood below it (the desk takes rows up in log order).
    else if (this.writtenBack(m.key)) this.stats["order:writtenBackLate"] = (this.stats["order:writtenBackLate"] ?? 0) + 1;
    else this.fail(`${m.key} (${m.path}) left after a later row of ${side}, k…-${last}: a side's rows leave in order`);
  }

  /** The key's row in the open log says the journal wrote it back. */
  private writtenBack(key: string): boolean {
    const wb = this.files.open;
    if (!wb.sheetNames().includes(LOG_SHEET_NAME)) return false;
    const row = wb.cells(LOG_SHEET_NAME).find((cells) => cells[KEY_COLUMN] === key);
    return String(row?.[MESSAGE_COLUMN] ?? "").startsWith("Restored from this computer's journal");
  }

  /** A key executed on the service: never twice, and only a row's (or a change from outside this log). */
  executed(key: string, t: Truth): void {
    if (t.executions > 1) this.fail(`${key} executed ${t.executions} times on the service`);
    if (!ROW_KEY.test(key) && !this.outside.has(key)) this.fail(`the service executed a key no row made: ${key}`);
    this.serviceChanged = true;
  }

  settled(): void {
    this.serviceChanged = true;
  }

  /**
   * After every step: no final row of the log says what the service contradicts. Looked at only when something moved: a
   * row whose final state changed since, or every final row when the service changed.
   */
  afterStep(): void {
    this.logChain();
    const logChanged = this.files.logVersion !== this.logSeen;
    if (!logChanged && !this.serviceChanged) return;
    const all = this.serviceChanged;
    this.logSeen = this.files.logVersion;
    this.serviceChanged = false;
    const wb = this.files.open;
    if (!wb.sheetNames().includes(LOG_SHEET_NAME)) return;
    for (const cells of wb.cells(LOG_SHEET_NAME).slice(1)) {
      const status = cells[STATUS_COLUMN];
      const key = String(cells[KEY_COLUMN]);
      // A row not final (again: the file reopened as saved) is judged afresh once it is final.
      if (typeof status !== "string" || !FINAL.has(status)) {
        this.judged.delete(key);
        continue;
      }
      const seen = `${status} ${String(cells[HEDGE_COLUMN])} ${String(cells[ACTION_COLUMN])}`;
      if (!all && this.judged.get(key) === seen) continue;
      this.judged.set(key, seen);
      const wrong = this.contradiction(cellsToLogRecord(cells), false);
      if (wrong) this.fail(wrong);
    }
  }

  /**
   * What the service says against a row's logged state, or null. Before the end, a row whose order the service has not
   * decided yet is left for later (its order's outcome marks the service changed, and the row is looked at again).
   */
  private contradiction(r: LogRecord, atEnd: boolean): string | null {
    const t = this.service().truth.get(r.idempotencyKey);
    const what = `${r.idempotencyKey} (${r.action} ${r.market} ${r.side} ${r.notional ?? ""})`;
    if (!t)
      return r.status === "filled" || (r.status === "closed" && r.action !== "close")
        ? `${what} logged ${r.status} but the service never executed it`
        : null;
    const outcome = this.service().outcomeOf(r.idempotencyKey);
    if (outcome === undefined && !atEnd) return null;
    const allowed = ALLOWED[`${r.action}:${outcome ?? "none"}`];
    if (!allowed) return `${what} executed but its order's outcome is ${outcome ?? "unknown"}`;
    if (!allowed.includes(r.status)) return `${what} logged ${r.status} but the service shows ${outcome}`;
    if (t.hedgeId && r.hedgeId && t.hedgeId !== r.hedgeId) return `${what} logged hedge ${r.hedgeId} but acted on ${t.hedgeId}`;
    return null;
  }

  private sideOf(m: Mutation): string | null {
    try {
      const body = JSON.parse(m.body ?? "{}") as { market?: string; side?: string };
      if (body.market && body.side) return `${body.market} ${body.side}`;
    } catch {
      // not JSON: the side comes from the hedge the path names
    }
    const id = /\/hedges\/(hdg_[0-9a-f]+)/.exec(m.path)?.[1];
    const h = id
      ? this.service()
          .hedges()
          .find((x) => x.id === id)
      : undefined;
    return h ? `${h.market} ${h.side}` : null;
  }

  // ---- the Hedge Log's hash chain ----

  /**
   * Whenever the log changed and no fault edited its rows: the chain the journal writes checks clean (rows of a crash
   * window, written before the desk's, are "before the chain" and not judged), and at the end it still holds the head.
   */
  private logChain(head: string | null = null, atEnd = false): void {
    if (this.files.logTampered !== null || (!atEnd && this.files.logVersion === this.chainSeen)) return;
    this.chainSeen = this.files.logVersion;
    const wb = this.files.open;
    if (!wb.sheetNames().includes(LOG_SHEET_NAME)) return;
    const rows = wb
      .cells(LOG_SHEET_NAME)
      .slice(1)
      .filter((cells) => cells.some((v) => v !== "" && v !== null))
      .map(cellsToLogRecord);
    const findings = checkChain(chainRows(rows), head).filter((f) => f.kind !== "before_chain");
    this.count(atEnd ? "chain:untouchedWorlds" : "chain:logChecks");
    if (findings.length > 0)
      this.fail(`the log's hash chain, untouched by any fault, has findings: ${findings.map((f) => f.message).join(" ")}`);
  }

  // ---- the chain of a market side's rows ----

  /** A crash window was left in the file: what the service shows of each row is judged now, from the state alone. */
  crashWindow(window: CrashWindow): void {
    const effects = judgeChain(window, this.service());
    this.window = { ...window, effects };
    this.count("chain:worlds");
    if (effects) this.count("chain:explained");
    this.count("chain:tookEffect", [...(effects?.values() ?? [])].filter((e) => e === "took").length);
  }

  /** The first pane resumed the crash window and settled: its rows needing a decision are counted (and, with the switch on, refused). */
  chainRecovered(needsDecision: readonly string[]): string {
    const w = this.window;
    if (!w) return "";
    const parked = w.rows.filter((r) => needsDecision.includes(r.idempotencyKey));
    const took = parked.filter((r) => w.effects?.get(r.idempotencyKey) === "took");
    const logOnly = (r: LogRecord) => w.journal === false && (r.action === "add" || r.action === "reduce");
    const tookEffect = took.filter((r) => !logOnly(r)).map((r) => `${r.idempotencyKey} ${r.action}`);
    this.count("chain:logOnlyAsked", took.length - tookEffect.length);
    this.count("chain:decisions", parked.length);
    this.count("chain:tookEffectParked", tookEffect.length);
    if (CHAIN_RESOLVES_WITHOUT_DECISION && tookEffect.length > 0)
      this.fail(
        `the service shows ${tookEffect.join(", ")} of ${w.market} ${w.side} took effect (the chain explains it), yet it needed a decision`,
      );
    const read = w.effects ? [...w.effects].map(([k, e]) => `${k}:${e}`).join(" ") : "not explained";
    return `${read}; ${parked.length} needing a decision (${tookEffect.length} that took effect)`;
  }

  private count(name: string, by = 1): void {
    this.stats[name] = (this.stats[name] ?? 0) + by;
  }

  // ---- at the end ----

  /** The end invariants: no row lost, every row final, the log equals the service (rows and hedge sizes). */
  end({ finalLog, keysMade, editedKeys, head }: EndState): void {
    this.logChain(head, true);
    const byKey = new Map<string, LogRecord[]>();
    for (const r of finalLog) byKey.set(r.idempotencyKey, [...(byKey.get(r.idempotencyKey) ?? []), r]);
    const { truth } = this.service();
    for (const key of keysMade) {
      const rows = byKey.get(key) ?? [];
      if (rows.length === 0 && truth.has(key)) this.fail(`${key} acted on the service but is not in the log`);
      else if (rows.length === 0 && this.files.journalled.has(key)) this.fail(`${key} was journalled but is not in the log`);
      if (rows.length > 1) this.fail(`${key} is in the log ${rows.length} times`);
    }
    for (const r of finalLog) if (!FINAL.has(r.status)) this.fail(`${r.idempotencyKey} (${r.action}) ended ${r.status}`);
    for (const r of finalLog) {
      const wrong = this.contradiction(r, true);
      if (wrong) this.fail(wrong);
    }
    this.hedgeSizes(finalLog, editedKeys);
  }

  /** Each filled hedge holds its opening plus the filled adds minus the filled reductions the log holds (unless a row was edited, or changed from outside). */
  private hedgeSizes(log: LogRecord[], editedKeys: ReadonlySet<string>): void {
    const touched = new Set([...this.outside].map((k) => this.service().truth.get(k)?.hedgeId));
    const acct = this.service().engine.accountState(API_KEY)!;
    for (const h of acct.hedges) {
      if (h.status !== "filled" || touched.has(h.id)) continue;
      const rows = log.filter((r) => r.hedgeId === h.id && (r.status === "filled" || r.status === "closed"));
      const size = rows.reduce(
        (s, r) => s + (r.action === "open" || r.action === "add" ? (r.notional ?? 0) : r.action === "reduce" ? -(r.notional ?? 0) : 0),
        0,
      );
      const edited = rows.some((r) => editedKeys.has(r.idempotencyKey));
      if (!edited && Math.abs(size - h.notional / 1_000_000) > 0.01)
        this.fail(`hedge ${h.id} holds ${h.notional / 1_000_000} but its log rows add up to ${size.toFixed(2)}`);
    }
  }
}
