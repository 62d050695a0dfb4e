// =HEDGE.ROLLCOST's spill by label, from a shared hub over a running sandbox: what a cell of it shows, for the program tests that compare it with what the service realized.
import { FakeInvocation } from "./fake-invocation";
import "../../src/functions/engine"; // the functions' work, as the page's engine entry hands it over (after the CustomFunctions global)
import * as fn from "../../src/functions/functions";
import { ManualClock } from "../../src/feeds/clock";
import { Connection } from "../../src/feeds/connection";
import { FeedHub } from "../../src/feeds/hub";
import { setSharedHub } from "../../src/feeds/shared";

/** ROLLCOST("USDTNGN", "buy", notional, days, 7, roll, roll_within_hours) as a cell over the sandbox at `baseUrl` shows it. */
export async function rollcostCell(
  sandbox: { apiKey: string; baseUrl: string },
  notional: number,
  days: number,
  roll?: string,
  rollWithinHours?: number,
): Promise<Record<string, number | string>> {
  const connection = new Connection();
  connection.configure(sandbox);
  const clock = new ManualClock(Date.now());
  const hub = setSharedHub(new FeedHub({ source: connection, clock }));
  const cell = new FakeInvocation<unknown[][]>();
  fn.rollcost("USDTNGN", "buy", notional, days, 7, roll as never, rollWithinHours as never, undefined as never, cell as never);
  await clock.advance(0, () => hub.settled());
  return Object.fromEntries(cell.value.map(([k, v]) => [k, v])) as Record<string, number | string>;
}
