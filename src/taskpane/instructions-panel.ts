// The Approvals section's standing roll instructions: the form a preparer submits one with (market, side, until, at most USD per hedge, tenors by the rule up to N days), and the list with Approve (a second key, once) and Revoke.
import { RollInstructions, type RollInstruction } from "../trading/approvals/roll-instructions";
import type { ApprovalsWorkbook } from "../trading/approvals/port";
import type { Environment } from "../api/environment";
import type { TradingDesk } from "../trading/desk/contract";
import type { KeyAccess } from "./key-access";
import { errorView } from "./connection-controller";
import { renderError } from "./connection-panel";
import { byId, h } from "./dom";

type TextFieldElement = HTMLElement & { value: string };

/** The connection as the Approvals section has it (ApprovalsContext). */
interface ApprovalsContext {
  desk: TradingDesk | null;
  fingerprint: string;
  access: KeyAccess;
  environment: Environment;
  account: string | null;
}

export interface InstructionsDependencies {
  workbook: ApprovalsWorkbook;
  now?: () => number;
  /** "Approval valid for (hours)": this user's setting, read at each approval. */
  validHours: () => Promise<number>;
}

/** The instructions part of the Approvals section: follows the connection the section follows. */
export interface InstructionsPanel {
  setContext(context: ApprovalsContext | null): void;
}

function instructionElements() {
  const field = (id: string) => byId<TextFieldElement>(id);
  return {
    market: field("instruction-market"),
    side: field("instruction-side"),
    until: field("instruction-until"),
    max: field("instruction-max"),
    tenor: field("instruction-tenor"),
    submit: byId("instruction-submit"),
    status: byId("instructions-status"),
    error: byId("instructions-error"),
    list: byId("instructions-list"),
  };
}

/** The instruction in one line: its terms and who decided. */
export function instructionText(i: RollInstruction): string {
  const amount = i.maxPerHedgeUsd.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const decided = i.decidedBy ? `, ${i.status} by ${i.decidedBy} at ${i.decidedAt ?? ""}` : "";
  return `${i.market} ${i.side} until ${i.until}, at most ${amount} USD per hedge, tenors by the rule up to ${i.maxTenor} days: ${i.status}${decided} (hash ${i.hash.slice(0, 12)}…, prepared by ${i.preparedBy})`;
}

export function mountInstructionsPanel(deps: InstructionsDependencies): InstructionsPanel {
  const els = instructionElements();
  const now = deps.now;
  let context: ApprovalsContext | null = null;
  const flow = () =>
    new RollInstructions({
      sheet: deps.workbook,
      recordControl: (change) => {
        if (!context?.desk)
          throw new Error("Connect first: a roll instruction's approval is recorded in the Hedge Log under the key in use.");
        return context.desk.recordControl(change);
      },
      now: now ? () => new Date(now()) : undefined,
      validHours: deps.validHours,
    });
  const place = (c: ApprovalsContext) => ({ environment: c.environment, account: c.account });

  /** Runs an action, shows its error (nothing else changed), and lists the instructions again. */
  const act = async (work: (c: ApprovalsContext) => Promise<string>) => {
    els.error.hidden = true;
    if (!context) return;
    try {
      els.status.textContent = await work(context);
    } catch (e) {
      renderError(els.error, errorView(e));
    }
    await render();
  };

  const render = async () => {
    if (!context) return;
    try {
      const all = await flow().list();
      els.list.replaceChildren(...all.map((i) => instructionItem(i, context, act, flow, place)));
    } catch (e) {
      renderError(els.error, errorView(e));
    }
  };

  els.submit.addEventListener(
    "click",
    () =>
      void act(async (c) => {
        const i = await flow().submit(
          {
            market: els.market.value,
            side: els.side.value,
            until: els.until.value,
            maxPerHedgeUsd: els.max.value,
            maxTenor: els.tenor.value,
          },
          c.fingerprint,
          place(c),
        );
        return `Roll instruction ${i.id} submitted: a second person's trading key approves it under Approvals.`;
      }),
  );

  return {
    setContext(next) {
      const before = context;
      context = next;
      // The account's figures refresh often: only a new key, scope, environment, account or desk is news here.
      const same =
        before && next && (["desk", "fingerprint", "access", "environment", "account"] as const).every((k) => before[k] === next[k]);
      if (next && !same) void render();
    },
  };
}

/** One instruction in the list: its terms, Approve for a second trading key while pending, Revoke while it may still cover rolls. */
function instructionItem(
  i: RollInstruction,
  context: ApprovalsContext | null,
  act: (work: (c: ApprovalsContext) => Promise<string>) => Promise<void>,
  flow: () => RollInstructions,
  place: (c: ApprovalsContext) => { environment: Environment; account: string | null },
): HTMLElement {
  const li = h("li", { "data-instruction": i.id, "data-status": i.status }, h("span", { class: "terms" }, instructionText(i)));
  const button = (cls: string, label: string, run: (c: ApprovalsContext) => Promise<string>) => {
    const b = h("fluent-button", { class: cls, type: "button" }, label);
    b.addEventListener("click", () => void act(run));
    li.append(b);
  };
  if (i.status === "pending" && context && context.fingerprint !== i.preparedBy && context.access !== "read_only")
    button("approve", "Approve", async (c) => {
      await flow().approve(i.id, c.fingerprint, place(c));
      return `Roll instruction ${i.id} approved: rolls within it are sent without asking again, until ${i.until} or a revocation.`;
    });
  if (i.status === "pending" || i.status === "approved")
    button("revoke", "Revoke", async (c) => {
      await flow().revoke(i.id, c.fingerprint);
      return `Roll instruction ${i.id} revoked: no roll is sent under it any more.`;
    });
  return li;
}
