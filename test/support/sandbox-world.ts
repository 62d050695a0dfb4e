// The sandbox desk tests' world: over a running sandbox and an API key, the client (deskClient), a workbook, this computer's journal and desks over them with the tests' defaults (each desk's options override them); every desk it built stopped after its test.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../src/excel/intent-store";
import { createDesk } from "../../src/trading/desk";
import type { ClientOptions, HedgingClient } from "../../src/api/client";
import type { RunningSandbox } from "../../src/sandbox/server";
import type { Workbook } from "../../src/trading/workbook";
import type { DeskOptions, TradingDesk } from "../../src/trading/desk/contract";
import { deskClient } from "../sandbox/helpers";

/** The fill poll of a sandbox world's desks unless told: fast enough for the sandbox's short fills. */
export const SANDBOX_POLL_MS = 250;

export interface SandboxWorld<W extends Workbook = MemoryWorkbook> {
  client: HedgingClient;
  workbook: W;
  /** This computer's journal, shared by the world's desks (unless the world was set up with `intentStore: null`). */
  store: MemoryIntentStore;
  /** A desk over the world's client, workbook and journal; `options` override the world's. Stopped after the test. */
  desk(options?: Partial<DeskOptions>): Promise<TradingDesk>;
}

/** What a sandbox world is built over, each part defaulted; the rest are every desk's options in it (a desk's own override them). */
export interface SandboxWorldSetup<W extends Workbook = MemoryWorkbook> extends Omit<
  Partial<DeskOptions>,
  "client" | "workbook" | "intentStore"
> {
  /** Options of the world's client (deskClient's): a transport, onAttempt, a retry policy. */
  clientOptions?: Partial<ClientOptions>;
  /** Default: an empty MemoryWorkbook. */
  workbook?: W;
  /** This computer's journal. Default: a new MemoryIntentStore; null: desks without one, as a computer that keeps none. */
  intentStore?: MemoryIntentStore | null;
}

/** Desks built in the running test (stopped after it) and outside any test, in a beforeAll (stopped after all). */
const testDesks: TradingDesk[] = [];
const fileDesks: TradingDesk[] = [];
let inTest = false;
// Registered on import, in the importing test file's root: no file can forget them. (Guarded: a bench run by tsx has no hooks.)
if (typeof afterEach === "function") {
  beforeEach(() => (inTest = true));
  afterEach(() => {
    inTest = false;
    testDesks.splice(0).forEach((d) => d.stop());
  });
  afterAll(() => fileDesks.splice(0).forEach((d) => d.stop()));
}

/**
 * A fresh world over `sb` for `apiKey`: the client the trading tests use (deskClient, with `setup.clientOptions`), a
 * workbook and this computer's journal; its desks poll fills every SANDBOX_POLL_MS unless `setup` or the desk's options say.
 */
export function sandboxWorld<W extends Workbook = MemoryWorkbook>(
  sb: RunningSandbox,
  apiKey: string,
  setup: SandboxWorldSetup<W> = {},
): SandboxWorld<W> {
  const { clientOptions, workbook: givenWorkbook, intentStore: givenStore, ...defaults } = setup;
  const client = deskClient(sb, apiKey, clientOptions);
  const workbook = givenWorkbook ?? (new MemoryWorkbook() as Workbook as W);
  const store = givenStore ?? new MemoryIntentStore();
  return {
    client,
    workbook,
    store,
    desk: async (options = {}) => {
      const desk = await createDesk({
        client,
        workbook,
        intentStore: givenStore === null ? undefined : store,
        pollIntervalMs: SANDBOX_POLL_MS,
        ...defaults,
        ...options,
      });
      (inTest ? testDesks : fileDesks).push(desk);
      return desk;
    },
  };
}
