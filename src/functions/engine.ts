// The work of the HEDGE.* functions, an entry of its own evaluated after functions.ts registered them: cell streams over the shared hub, Excel error objects and the ribbon's pause toggle, handed over through handoff.ts.
import { buildPolicy, BUILD_BASE_URL } from "../feeds/build-policy";
import { connection } from "../feeds/connection";
import { noteSavedStart, startSavedConnection } from "../feeds/saved-start";
import { provideWork } from "./handoff";
import * as handlers from "./handlers";
import { history } from "./history";
import { rollcost } from "./rollcost";
import { cellStreams, excelErrorFactory, listenForPauseToggle, useErrorFactory } from "./runtime";
import type { Sink } from "./stream";
import { target } from "./target";
import type { Spill } from "./cells";

useErrorFactory(excelErrorFactory(CustomFunctions));
listenForPauseToggle();
startSaved();

/** What each function of functions.ts does with its cell (its invocation) and arguments, on the shared hub's streams. */
const work = {
  price: (cell: Sink<number>, market: unknown) => handlers.price(cellStreams(), cell, market),
  quote: (cell: Sink<Spill>, market: unknown, side: unknown, notional: unknown, tenor: unknown, field: unknown) =>
    handlers.quote(cellStreams(), cell, market, side, notional, tenor, field),
  positions: (cell: Sink<Spill>, market: unknown, side: unknown) => handlers.positions(cellStreams(), cell, market, side),
  account: (cell: Sink<Spill>, field: unknown) => handlers.account(cellStreams(), cell, field),
  markets: (cell: Sink<Spill>) => handlers.markets(cellStreams(), cell),
  capacity: (cell: Sink<number>, market: unknown, side: unknown) => handlers.capacity(cellStreams(), cell, market, side),
  carry: (cell: Sink<number>, market: unknown, side: unknown) => handlers.carry(cellStreams(), cell, market, side),
  hedges: (cell: Sink<Spill>, status: unknown, reference: unknown, limit: unknown) =>
    handlers.hedges(cellStreams(), cell, status, reference, limit),
  hedge: (cell: Sink<Spill>, hedgeId: unknown, field: unknown) => handlers.hedge(cellStreams(), cell, hedgeId, field),
  status: (cell: Sink<Spill>) => handlers.status(cellStreams(), cell),
  history: (cell: Sink<Spill>, from: unknown, to: unknown) => history(cellStreams(), cell, from, to),
  target: (cell: Sink<Spill>, exposures: unknown, policy: unknown, positions: unknown, addresses: readonly unknown[], asOf: unknown) =>
    target(cellStreams(), cell, exposures, policy, positions, addresses, undefined, asOf),
  rollcost: (cell: Sink<Spill>, market: unknown, side: unknown, notional: unknown, days: unknown, tenor: unknown, ...roll: unknown[]) =>
    rollcost(cellStreams(), cell, market, side, notional, days, tenor, roll[0], roll[1], roll[2]),
};

export type Work = typeof work;

provideWork(work);

/**
 * In Excel, the saved connection starts now rather than when the pane has run: the cells' first requests and the key's
 * check go out while the pane's code loads (src/functions/README.md "When the page starts").
 */
function startSaved(): void {
  if (typeof Office === "undefined" || typeof OfficeRuntime === "undefined" || typeof Office.onReady !== "function") return;
  const store = { get: async (key: string) => (await OfficeRuntime.storage.getItem(key)) ?? null };
  // Only in Excel, as the pane restores it (outside Office the page's stand-in, if any, connects).
  // Noted at once (Office may get ready after the pane's entry has run): the pane waits for its first answers.
  noteSavedStart(
    Office.onReady().then((info) =>
      String(info?.host) === "Excel" ? startSavedConnection(store, connection, buildPolicy(), BUILD_BASE_URL) : undefined,
    ),
  );
}
