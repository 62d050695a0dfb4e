// The trade panel's Propose button: exposures, then policy, read from the selection; the proposal from the live positions written to a new sheet as plain values. Nothing is traded.
import type { HedgingClient } from "../api/client";
import type { SheetWriter } from "../trading/sheet-content";
import type { SelectedRows, Workbook } from "../trading/workbook";
import type { Position, Side } from "../api/schemas";
import { proposalContent } from "../policy/proposal";
import type { ProposalRow } from "../policy/target";
import type { PlanInputs } from "./maturity-plan";
import { errorView, type ErrorView } from "./connection-controller";
import { plural } from "./format";
import type { Elements } from "./trade-elements";

/** What Propose needs: the selection (exposures, then policy), the live positions, and where the proposal is written. */
export interface ProposeDependencies {
  workbook: Pick<Workbook, "readSelection">;
  /** The safe sheet writer (plain values, never formulas): the recon writer. */
  writer: SheetWriter;
  /** The connected client, or null. */
  client: () => HedgingClient | null;
  /** Epoch ms (the references carry its UTC day). */
  now?: () => number;
  /** Told of each proposal made, with the positions it was made from and the side it was for, if one (the overview's maturities remember what it wanted). */
  onProposal?: (
    rows: readonly ProposalRow[],
    positions: readonly Position[],
    only?: { market: string; side: Side },
    inputs?: PlanInputs,
  ) => void;
  /** Told of the exposures and policy each proposal was made from (the pane's armed rolls follow the last one). */
  onModel?: (model: Inputs) => void;
}

/** What the pane says once the proposal is written. */
export function proposalSummary(rows: readonly ProposalRow[], sheet: string): string {
  if (rows.length === 0) return `Nothing to do: every hedge is within Min trade of its target (${sheet} shows the header only).`;
  const counts = (["close", "reduce", "open", "add"] as const)
    .map((a) => [a, rows.filter((r) => r.action === a).length] as const)
    .filter(([, n]) => n > 0)
    .map(([a, n]) => `${n} ${a[0].toUpperCase()}${a.slice(1)}`);
  return `${plural(rows.length, "row")} proposed on ${sheet} (${counts.join(", ")}). Review them, then select them and press Read selection to trade them as one batch.`;
}

type Inputs = { exposures: SelectedRows; policy: SelectedRows };

/**
 * The proposal from the live positions and the newest closed hedges (a side settled at its maturity is a roll's next
 * Open, named by that maturity), of one side when `only` names it, written to a new sheet; returns what the pane says.
 */
async function writeProposal(client: HedgingClient, deps: ProposeDependencies, from: Inputs, only?: { market: string; side: Side }) {
  const [positions, history] = await Promise.all([client.positions(), client.history()]);
  const now = new Date((deps.now ?? Date.now)());
  const { rows, content, inputs } = proposalContent(from.exposures, from.policy, positions.data, now, { history: history.data, only });
  const written = await deps.writer.writeSheet(content);
  deps.onProposal?.(rows, positions.data, only, inputs);
  return `${only ? `${only.market} ${only.side} only: ` : ""}${proposalSummary(rows, written.name)}`;
}

/**
 * Propose: the first press reads the selection as the exposures, the second as the policy; then the proposal from the live
 * positions is written to a new "Hedge Proposal" sheet as plain values. Nothing is traded.
 */
export function mountPropose(
  els: Elements,
  deps: ProposeDependencies,
  ui: { setBusy(text: string | null): void; showError(e: ErrorView | null): void },
) {
  const { proposeButton, proposeNote } = els;
  let exposures: Awaited<ReturnType<Workbook["readSelection"]>> | null = null;
  // The exposures and policy of the last proposal: Propose beside a maturing side proposes from them again.
  let last: Inputs | null = null;
  const reset = () => {
    exposures = null;
    proposeButton.textContent = "Propose";
  };
  const proposeFrom = async (client: HedgingClient, from: Inputs, only?: { market: string; side: Side }) => {
    // The note names the proposal just made: from the press on, the previous one's sheet is no longer it.
    proposeNote.textContent = "Proposing from the live positions…";
    ui.setBusy("Reading the live positions…");
    proposeNote.textContent = await writeProposal(client, deps, from, only);
    if (last !== from) deps.onModel?.(from);
    last = from;
  };
  const failed = (e: unknown) => {
    // Start over: the exposures are read again with the next press (the model may be what needs fixing).
    ui.showError(errorView(e));
    reset();
    proposeNote.textContent = "Select the exposures and press Propose to start again.";
  };
  proposeButton.addEventListener("click", async () => {
    const client = deps.client();
    if (!client) return;
    ui.showError(null);
    try {
      if (!exposures) {
        ui.setBusy("Reading the exposures…");
        exposures = await deps.workbook.readSelection();
        proposeButton.textContent = "Propose with this policy";
        proposeNote.textContent = `Exposures: ${exposures.address}, ${plural(exposures.rows.length, "row")}. Now select the policy and press Propose with this policy.`;
        return;
      }
      ui.setBusy("Reading the policy and the live positions…");
      const policy = await deps.workbook.readSelection();
      await proposeFrom(client, { exposures, policy });
      reset();
    } catch (e) {
      failed(e);
    } finally {
      ui.setBusy(null);
    }
  });
  return {
    reset() {
      reset();
      proposeNote.textContent = "";
    },
    /**
     * Propose again from the last proposal's exposures and policy (as read then) and the positions now, of one side only
     * when `only` names it (Propose beside that side); without a proposal yet, says how to start.
     */
    async again(only?: { market: string; side: Side }): Promise<void> {
      const client = deps.client();
      if (!client) return;
      ui.showError(null);
      if (!last) {
        reset();
        proposeNote.textContent = "No proposal yet: select the exposures and press Propose, then the policy and Propose with this policy.";
        proposeButton.focus();
        return;
      }
      try {
        await proposeFrom(client, last, only);
      } catch (e) {
        failed(e);
      } finally {
        ui.setBusy(null);
        proposeNote.scrollIntoView?.({ block: "nearest" });
      }
    },
  };
}
