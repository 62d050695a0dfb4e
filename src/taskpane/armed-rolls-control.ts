// The pane's armed rolls: once a proposal's model (exposures and policy) is known and a desk is connected, every side the model covers is armed (the desk's RollArming, the policy's rows at maturity), and the list under the maturities says each side's state: armed until its maturity, then rolled, proposed or unhedged since.
import type { HedgingClient } from "../api/client";
import type { Side } from "../api/schemas";
import type { TradingDesk } from "../trading/desk/contract";
import { RollArming, type ArmedView, type RollInstructions } from "../trading/desk/roll-arming";
import type { SelectedRows } from "../trading/workbook";
import { readExposures, readPolicy, serviceHoldings } from "../policy/inputs";
import { rangeOfSelection, rollRowsAt } from "../policy/proposal";
import { byId, h } from "./dom";

/** The exposures and policy a proposal was made from (Propose's two selections). */
export interface RollModel {
  exposures: SelectedRows;
  policy: SelectedRows;
}

export interface ArmedRollsDependencies {
  /** Whether a row may leave without a person's click now (false: a read-only key, or LIVE under "LIVE trades need approval"). */
  direct(): boolean;
  /** A roll proposed rather than sent: the pane proposes that side at once (its Hedge Proposal sheet). */
  propose(side: { market: string; side: Side }): void;
  /** Standing roll instructions (issue 39 item 3): under four-eyes a roll they cover is sent. Default: none (every such roll proposed). */
  instructions?: RollInstructions;
  onError?(e: unknown): void;
  now?: () => number;
}

export interface ArmedRolls {
  /** The last proposal's model: the sides it names are armed from now on (it replaces the one before). */
  setModel(model: RollModel): void;
  /** The connection's desk and client (null: disconnected; the rolls stop). */
  setDesk(desk: TradingDesk | null, client: HedgingClient | null): void;
  /** A row went final: a new hedge is armed at the next poll. */
  rearm(): void;
}

/** The list's lines, each with its state as a class (armed, rolled, proposed, …), or one hint while nothing is armed. */
function render(list: HTMLElement, views: readonly ArmedView[], modelKnown: boolean): void {
  if (views.length === 0) {
    const hint = modelKnown
      ? "No open hedge of the proposal's sides to arm yet."
      : "No open hedge to watch. Propose once (exposures, then policy): from then on every side it covers is rolled at maturity while this pane is open.";
    list.replaceChildren(h("li", { class: "hint" }, hint));
    return;
  }
  list.replaceChildren(
    ...views.map((v) => h("li", { class: `armed-roll ${v.state}`, "data-state": v.state, "data-side": `${v.market}|${v.side}` }, v.text)),
  );
}

export function mountArmedRolls(deps: ArmedRollsDependencies): ArmedRolls {
  const list = byId("armed-rolls-list");
  let model: { exposures: ReturnType<typeof readExposures>; policy: ReturnType<typeof readPolicy> } | null = null;
  let desk: TradingDesk | null = null;
  let client: HedgingClient | null = null;
  let arming: RollArming | null = null;
  const now = () => new Date((deps.now ?? Date.now)());

  const restart = () => {
    arming?.stop();
    arming = null;
    render(list, [], model !== null);
    if (!desk || !client) return;
    const m = model;
    const c = client;
    // Without a model every side is watched, and a settled one is proposed (no target to send); with one, its markets.
    const markets = m && new Set([...m.exposures.map((e) => e.market), ...m.policy.map((p) => p.market).filter((x) => x !== "*")]);
    arming = new RollArming({
      client: c,
      desk,
      now,
      covers: (s) => !markets || markets.has(s.market),
      plan: m && (async (side, maturityMs, asOfMs) => rollRowsAt(m, serviceHoldings((await c.positions()).data), side, maturityMs, asOfMs)),
      direct: deps.direct,
      instructions: deps.instructions,
      onChange: (views) => render(list, views, m !== null),
      onPropose: (side) => deps.propose(side),
      onError: deps.onError,
    });
    arming.start();
  };

  return {
    setModel(next) {
      model = { exposures: readExposures(rangeOfSelection(next.exposures)), policy: readPolicy(rangeOfSelection(next.policy)) };
      restart();
    },
    setDesk(nextDesk, nextClient) {
      desk = nextDesk;
      client = nextClient;
      restart();
    },
    rearm: () => arming?.rearm(),
  };
}
