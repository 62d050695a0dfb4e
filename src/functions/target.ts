// HEDGE.TARGET(exposures, policy, [positions], [as_of]): the proposal of the hedge-to-target rule as a spill, on the live positions' and closed hedges' shared polls or, with positions given, from the ranges alone; at as_of, or now.
import { ArgumentError } from "../feeds/feed-error";
import { historyTopic, positionsTopic } from "../feeds/topics";
import type { Snapshot, TopicSpec } from "../feeds/topic";
import {
  dateMs,
  originOf,
  readExposures,
  readHoldings,
  readPolicy,
  serviceHoldings,
  serviceMatured,
  TargetInputError,
  type Holding,
  type Matured,
  type InputRange,
} from "../policy/inputs";
import { proposalAt } from "../policy/proposal";
import { isOmitted } from "./args";
import type { Spill } from "./cells";
import { cellErrorOfThrown, outcomeOf, type CellStreams, type Sink } from "./stream";
import type { ClosedHedge, Position } from "../api/schemas";

/** Views of live-position proposals: each cell has its own (its ranges differ), all on the one positions topic. */
let nextView = 0;

function rangeArg(value: unknown, name: string, address: unknown): InputRange {
  if (!Array.isArray(value) || !value.every(Array.isArray))
    throw new ArgumentError(name, `${name} must be a range with a header row, e.g. A1:C20; got ${JSON.stringify(value)}.`);
  return { values: value as InputRange["values"], origin: originOf(address) };
}

/** Runs `read`; a bad cell becomes #VALUE! naming it. */
function checked<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof TargetInputError) throw new ArgumentError(name, e.message);
    throw e;
  }
}

/** as_of: an Excel date-time (UTC) or ISO 8601 text; null when left out (now, each time the spill is computed). */
function asOfArg(value: unknown): number | null {
  if (isOmitted(value)) return null;
  const ms = dateMs(value as string | number);
  if (Number.isNaN(ms))
    throw new ArgumentError(
      "as_of",
      `as_of must be an Excel date-time (UTC) such as NOW() or DATE(2026,11,30)+TIME(9,0,0), or ISO text such as "2026-11-30T09:00Z"; got ${JSON.stringify(value)}.`,
    );
  return ms;
}

export function target(
  streams: CellStreams,
  sink: Sink<Spill>,
  exposures: unknown,
  policy: unknown,
  positions: unknown,
  addresses: readonly unknown[] = [],
  now: () => Date = () => new Date(),
  asOf: unknown = undefined,
): void {
  try {
    const e = checked("exposures", () => readExposures(rangeArg(exposures, "exposures", addresses[0])));
    const p = checked("policy", () => readPolicy(rangeArg(policy, "policy", addresses[1])));
    const given = asOfArg(asOf);
    const compute = (holdings: Holding[], matured: Matured[] = []) => {
      const at = given ?? now().getTime();
      return checked("policy", () => proposalAt({ exposures: e, policy: p, holdings, matured }, at).values);
    };
    if (!isOmitted(positions)) {
      // A pure function of its three ranges: computed once, no request.
      const h = checked("positions", () => readHoldings(rangeArg(positions, "positions", addresses[2])));
      const spill = compute(h);
      sink.onCanceled = () => undefined;
      sink.setResult(spill);
      return;
    }
    compute([]); // a market without a policy row is #VALUE! now, before anything is asked
    // The live positions, and the newest closed hedges (GET /hedges/history's newest 100, every 60 s, one poll for every HEDGE.TARGET cell): a side settled at its
    // maturity is a roll's next Open, named by that maturity.
    const topics = [positionsTopic(), historyTopic()] as TopicSpec<unknown>[];
    streams.openAll(sink, `target#${++nextView}`, topics, ([positions, history]) =>
      outcomeOf(positions as Snapshot<Position[]>, (lines) =>
        compute(
          checked("positions", () => serviceHoldings(lines)),
          serviceMatured((history.value ?? []) as ClosedHedge[]),
        ),
      ),
    );
  } catch (e) {
    streams.fail(sink, cellErrorOfThrown(e));
  }
}
