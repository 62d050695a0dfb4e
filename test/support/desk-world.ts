// The desk tests' world: the fake service (fake-service.ts), a workbook, this computer's journal and desks over them with the tests' defaults (each desk's options override them), under fake timers from START; rows, previews and journalled rows built from data.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../src/excel/intent-store";
import { createDesk } from "../../src/trading/desk";
import { Journal } from "../../src/trading/journal";
import { intentFromRow, type Intent } from "../../src/trading/intent";
import { intentScope } from "../../src/trading/intent-store";
import type { LogRecord } from "../../src/trading/log/hedge-log";
import type { Preview, TradeRow } from "../../src/trading/types";
import type { DeskOptions, TradingDesk } from "../../src/trading/desk/contract";
import { ACCOUNT, FakeService, KEY_ID } from "./fake-service";

export const START = Date.parse("2025-03-04T05:06:07.000Z");
export const iso = (ms: number) => new Date(ms).toISOString();

export const row = (over: Partial<TradeRow> = {}): TradeRow => ({
  rowNumber: 2,
  action: "open",
  market: "USDTNGN",
  side: "buy",
  notional: 10_000,
  tenor: 7,
  clientReference: "D-1",
  ...over,
});
export const addRow = (amount: number, over: Partial<TradeRow> = {}) =>
  row({ action: "add", notional: amount, tenor: null, clientReference: null, ...over });

/** The preview the pane would pass back to send(): every row sendable. */
export function previewOf(rows: TradeRow[]): Preview {
  return {
    action: rows[0].action,
    environment: "sandbox",
    createdAt: iso(Date.now()),
    lines: rows.map((r) => ({
      row: r,
      quote: null,
      position: null,
      collateralUsdc: 0,
      carryUsdc: 0,
      marginBackUsdc: 0,
      duplicateOf: null,
      blockers: [],
      warnings: [],
    })),
    totals: { rows: rows.length, priced: rows.length, notionalUsd: 0, collateralUsdc: 0, carryUsdc: 0, marginBackUsdc: 0 },
    checks: [],
    blockers: [],
    duplicates: 0,
    account: null,
    markets: [],
    cancelled: false,
    quoteRequests: 0,
    rolls: [],
  };
}

/** Desks built by world() in the running test, stopped after it. */
const afterEachDesk: Array<() => void> = [];

export interface World {
  service: FakeService;
  workbook: MemoryWorkbook;
  store: MemoryIntentStore;
  errors: Error[];
  desk(options?: Partial<DeskOptions>): Promise<TradingDesk>;
  /** A row as this computer journalled it (its key id known), with `patch` applied (e.g. sentAt: it was sent). */
  journalled(
    r: TradeRow,
    patch?: Parameters<Journal["update"]>[1],
    options?: { key?: string; keyId?: string | null; loggedAt?: string },
  ): Promise<Intent>;
  log(): Promise<LogRecord[]>;
  /** The service takes requests but answers none until the returned release() is called. */
  holdAnswers(): () => void;
}

/** What a world is built over, each part defaulted; the rest are every desk's options in it (a desk's own override them). */
export interface WorldSetup extends Omit<Partial<DeskOptions>, "workbook" | "intentStore"> {
  /** Default: an empty MemoryWorkbook. */
  workbook?: MemoryWorkbook;
  /** This computer's journal. Default: a new MemoryIntentStore; null: desks without one (the world's `store` stays theirs to fill). */
  intentStore?: MemoryIntentStore | null;
}

/**
 * A fresh world over the fake service (or `setup.client`: a sandbox's, a scripted one), a workbook and this computer's
 * journal; its desks get the tests' defaults (a 1 s poll, errors kept in `errors`, keys new-key-1, new-key-2… unless `setup.client`).
 */
export function world(setup: WorldSetup = {}): World {
  const { workbook: givenWorkbook, intentStore: givenStore, ...defaults } = setup;
  const service = new FakeService();
  const workbook = givenWorkbook ?? new MemoryWorkbook();
  const store = givenStore ?? new MemoryIntentStore();
  const errors: Error[] = [];
  let n = 0;
  const desks: TradingDesk[] = [];
  afterEachDesk.push(() => desks.forEach((d) => d.stop()));
  return {
    service,
    workbook,
    store,
    errors,
    desk: async (options = {}) => {
      const d = await createDesk({
        client: service.client(),
        workbook,
        intentStore: givenStore === null ? undefined : store,
        pollIntervalMs: 1_000,
        onError: (e) => errors.push(e),
        // Counted keys in a world over the fake service; a world set up over another client (a sandbox's) gets random ones.
        ...(defaults.client ? {} : { newKey: () => `new-key-${++n}` }),
        ...defaults,
        ...options,
      });
      desks.push(d);
      return d;
    },
    journalled: async (r, patch = {}, options = {}) => {
      const loggedAt = options.loggedAt ?? iso(Date.now());
      const intent = intentFromRow(r, options.key ?? `key-${++n}`, "sandbox", loggedAt, ACCOUNT);
      intent.keyId = options.keyId === undefined ? KEY_ID : options.keyId;
      const journal = new Journal(workbook, { store, scope: intentScope("sandbox", ACCOUNT) });
      await journal.load();
      await journal.append([intent]);
      journal.update(intent, patch);
      await journal.flush();
      return intent;
    },
    log: () => workbook.readLog(),
    holdAnswers: () => {
      let release!: () => void;
      const answer = new Promise<void>((r) => (release = r));
      service.onPost = () => answer;
      return () => release();
    },
  };
}

export const byKey = async (w: World, key: string) => (await w.log()).find((r) => r.idempotencyKey === key)!;
export const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

/** Registers the hooks of a desk test file: fake timers from START for each test, then every world's desks stopped. */
export function useDeskClock(): void {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate"], now: START }));
  afterEach(() => jest.useRealTimers());
  useDeskWorlds();
}

/** Registers the hook of a test file that builds worlds on its own clock: every world's desks stopped after each test. */
export function useDeskWorlds(): void {
  afterEach(() => afterEachDesk.splice(0).forEach((f) => f()));
}
