// Test set-up shared by the desk tests that start from one Open row journalled on this computer (the pane closed before or after it left): the fake service, the workbook, this computer's journal, and a desk over them.
import { Journal } from "../../../src/trading/journal";
import { intentFromRow } from "../../../src/trading/intent";
import { intentScope } from "../../../src/trading/intent-store";
import type { TradingDesk } from "../../../src/trading/desk/contract";
import type { LogRecord } from "../../../src/trading/log/hedge-log";
import { ACCOUNT, KEY_ID } from "../../support/fake-service";
import { world } from "../../support/desk-world";

export const OPEN_KEY = "key-open";

/** An Open buy of 10,000 (reference D-1) journalled at `loggedAt` and never sent: Sent at is empty. */
export async function journalledOpen(loggedAt: number) {
  const w = world();
  const { service, workbook, store } = w;
  const open = intentFromRow(
    { rowNumber: 2, action: "open", market: "USDTNGN", side: "buy", notional: 10_000, tenor: 7, clientReference: "D-1" },
    OPEN_KEY,
    "sandbox",
    new Date(loggedAt).toISOString(),
    ACCOUNT,
  );
  open.keyId = KEY_ID;
  const journal = new Journal(workbook, { store, scope: intentScope("sandbox", ACCOUNT) });
  await journal.load();
  await journal.append([open]);
  await journal.flush();
  /** The desk the pane would build over this workbook and journal (errors go to `errors`). */
  const desk = (pollIntervalMs: number, errors: string[] = []): Promise<TradingDesk> =>
    w.desk({ pollIntervalMs, onError: (e) => errors.push(e.message) });
  /** The Open's Hedge Log row as it stands. */
  const row = async (): Promise<LogRecord | undefined> => (await workbook.readLog()).find((r) => r.idempotencyKey === OPEN_KEY);
  return { service, workbook, desk, row };
}
