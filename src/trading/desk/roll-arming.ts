// The desk's armed rolls (issue 39 item 2): each open hedge of a side the model covers is watched; once the service shows it settled at its maturity, the rule (rule.ts's rollStep) says what follows — the next Open sent through the desk's own send path with keys derived from its client reference, nothing when another computer rolled it, a proposal, or nothing to roll — and the pane is told each side's state. It changes no row's status: a roll is one more batch the desk journals and runs.
import type { HedgingClient } from "../../api/client";
import type { Hedge, Side } from "../../api/schemas";
import { utcMinute, utcMs } from "../../api/time";
import { rollKey, rollReference, settledAtMaturity } from "../rolls";
import { recordsOf } from "../verdict";
import type { TradeRow } from "../types";
import type { RollCover, RollInstructions, TradingDesk } from "./contract";

export type { RollCover, RollInstructions } from "./contract";
import { when } from "./context";
import { rollStep, type RollFacts, type RollStep } from "./rule";

/** How often an armed side past its maturity is asked about: the positions' poll interval, so a side is unhedged one poll at most. */
export const ARM_POLL_MS = 2_000;
/** How often the open hedges are listed again to arm new ones (and at once after each roll). */
export const ARM_REFRESH_MS = 60_000;
/** Newest hedges read to see whether another hedge holds a settled side. */
const SIDE_LOOKUP_LIMIT = 50;

export interface RollSide {
  market: string;
  side: Side;
}

/** No standing instruction: none covers a roll. */
export const NO_ROLL_INSTRUCTIONS: RollInstructions = {
  coversRoll: async () => ({ ok: false, reason: "no standing roll instruction covers it" }),
};

export interface RollArmingOptions {
  client: Pick<HedgingClient, "get" | "list" | "history">;
  desk: Pick<TradingDesk, "preview" | "send">;
  /** The model's sides (the last proposal's exposures and policy): only these are armed. */
  covers(side: RollSide): boolean;
  /**
   * The rows the policy gives the side settled at `maturityMs` with nothing open, at `asOfMs` (references
   * rollReference(maturityMs, …, n)); null while no model is known (no proposal yet): a settled side is then proposed.
   */
  plan: ((side: RollSide, maturityMs: number, asOfMs: number) => Promise<TradeRow[]>) | null;
  /** Whether a row may leave without a person's click now; false under four-eyes (the workbook's LIVE rule, a read-only key). */
  direct(): boolean;
  instructions?: RollInstructions;
  now?: () => Date;
  /** Each side's state, whenever one changes. */
  onChange?(sides: readonly ArmedView[]): void;
  /** A side whose roll is proposed rather than sent (the pane proposes it at once). */
  onPropose?(side: RollSide, maturityMs: number): void;
  onError?(e: unknown): void;
  pollMs?: number;
}

export type ArmedState = "armed" | "rolling" | "rolled" | "rolled_elsewhere" | "proposed" | "not_rolled" | "disarmed";

/** One side as the pane shows it. */
export interface ArmedView extends RollSide {
  state: ArmedState;
  /** The maturity watched (armed) or passed (after). */
  maturityMs: number;
  /** When the roll opened (rolled, rolled elsewhere); null otherwise. */
  atMs: number | null;
  /** One line: "USDTNGN buy armed: matures 2026-11-30 17:00 UTC, the next Open is sent then". */
  text: string;
}

interface Armed extends ArmedView {
  /** The maturing hedge (null: found settled already, from the history). */
  hedgeId: string | null;
  armedBefore: boolean;
}

const sideKey = (s: RollSide) => `${s.market}|${s.side}`;
/** "2026-11-30 17:00:02 UTC" (the desk's own way of saying when). */
const clock = (ms: number) => when(new Date(ms).toISOString());
const isOpen = (h: Hedge) => h.status === "filled" || h.status === "submitted" || h.status === "submitting";

/** The words of each state after a maturity. */
const PROPOSED: Record<Extract<RollStep, { kind: "propose" }>["why"], string> = {
  no_model: "no proposal yet, so no target: press Propose (exposures, then policy) to roll it; later maturities are then rolled at once",
  opened_after: "settled while the workbook was closed: the roll's Open is proposed (send it from the Hedge Proposal sheet)",
  four_eyes: "the roll's Open is proposed for approval (Submit for approval from the Hedge Proposal sheet)",
};
const DISARMED: Record<Extract<RollStep, { kind: "disarm" }>["why"], string> = {
  closed_early: "closed before its maturity: not rolled",
  side_taken: "another hedge is open on the side: not rolled",
  target_zero: "its target is 0 now: not rolled",
};

export class RollArming {
  private readonly sides = new Map<string, Armed>();
  private readonly now: () => Date;
  private timer: ReturnType<typeof setInterval> | null = null;
  private busy: Promise<void> | null = null;
  private refreshedAt = -Infinity;

  constructor(private readonly o: RollArmingOptions) {
    this.now = o.now ?? (() => new Date());
  }

  /** Each side's state, the sides in the order armed. */
  views(): ArmedView[] {
    return [...this.sides.values()].map(({ market, side, state, maturityMs, atMs, text }) => ({
      market,
      side,
      state,
      maturityMs,
      atMs,
      text,
    }));
  }

  /** Polls every pollMs (ARM_POLL_MS) until stop(); the first poll lists the open hedges and arms them. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll().catch((e) => this.o.onError?.(e)), Math.max(250, this.o.pollMs ?? ARM_POLL_MS));
    void this.poll().catch((e) => this.o.onError?.(e));
  }

  /** A trade went final: the open hedges are listed again at the next poll (a new hedge is armed without waiting ARM_REFRESH_MS). */
  rearm(): void {
    this.refreshedAt = -Infinity;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One poll (never two at once): the open hedges listed again when due, then every armed side past its maturity judged. */
  poll(): Promise<void> {
    this.busy ??= this.pollOnce().finally(() => (this.busy = null));
    return this.busy;
  }

  private async pollOnce(): Promise<void> {
    const nowMs = this.now().getTime();
    if (nowMs - this.refreshedAt >= ARM_REFRESH_MS) await this.refresh(nowMs).catch((e) => this.o.onError?.(e)); // asked again next poll
    let rolled = false;
    for (const armed of [...this.sides.values()]) {
      if (armed.state !== "armed" || armed.maturityMs > nowMs) continue;
      rolled = (await this.judge(armed)) || rolled;
    }
    // A roll opened a hedge: armed again for its own maturity.
    if (rolled) await this.refresh(this.now().getTime()).catch((e) => this.o.onError?.(e));
  }

  /**
   * Arms each open hedge of a covered side (a side rolled, proposed or disarmed is armed again by its next hedge), and
   * each covered side the history shows settled at its maturity with nothing open (the workbook was closed then).
   */
  private async refresh(nowMs: number): Promise<void> {
    const [open, history] = await Promise.all([this.o.client.list({ limit: 500 }), this.o.client.history({ limit: 100 })]);
    this.refreshedAt = nowMs;
    const held = new Set<string>();
    let changed = false;
    for (const h of open.data) {
      if (!isOpen(h) || (h.side !== "buy" && h.side !== "sell") || !this.o.covers({ market: h.market, side: h.side })) continue;
      const maturityMs = utcMs(h.maturity_at ?? "");
      held.add(sideKey({ market: h.market, side: h.side }));
      if (Number.isNaN(maturityMs)) continue;
      const known = this.sides.get(sideKey({ market: h.market, side: h.side }));
      if (known?.hedgeId === h.id) continue;
      // The side's roll found by the listing before its own poll saw the settlement (another computer rolled it): rolled then.
      const rolledTo = known && known.maturityMs <= nowMs && h.client_reference === rollReference(known.maturityMs, h.market, h.side, 1);
      const lastMs = rolledTo ? utcMs(h.opened_at ?? "") || nowMs : (known?.atMs ?? null);
      const last = lastMs !== null ? `; last rolled at ${utcMinute(lastMs)}` : "";
      this.sides.set(sideKey({ market: h.market, side: h.side }), {
        market: h.market,
        side: h.side,
        hedgeId: h.id,
        maturityMs,
        armedBefore: true,
        state: "armed",
        atMs: lastMs,
        text: `${h.market} ${h.side} armed: matures ${utcMinute(maturityMs)}; the next Open is sent once the service shows it settled${last}.`,
      });
      changed = true;
    }
    for (const s of settledAtMaturity(history.data)) {
      const k = sideKey(s);
      if (held.has(k) || !this.o.covers(s)) continue;
      const known = this.sides.get(k);
      if (known && known.maturityMs >= s.maturedAtMs) continue;
      this.sides.set(k, {
        ...s,
        hedgeId: null,
        maturityMs: s.maturedAtMs,
        armedBefore: false,
        state: "armed",
        atMs: null,
        text: `${s.market} ${s.side} unhedged since ${utcMinute(s.maturedAtMs)}.`,
      });
      changed = true;
    }
    if (changed) this.changed();
    // A side just rolled whose new hedge shows no maturity yet (accepted, not filled): listed again at the next poll.
    if ([...this.sides.values()].some((a) => a.state === "rolled" || a.state === "rolled_elsewhere")) this.refreshedAt = -Infinity;
  }

  /** The facts of an armed side past its maturity, the rule's step, and the step taken; true when a roll opened. */
  private async judge(armed: Armed): Promise<boolean> {
    const facts = await this.factsOf(armed);
    return this.judged(armed, rollStep(facts.facts), facts);
  }

  /** The rule's step taken. */
  private async judged(armed: Armed, step: RollStep, facts: Awaited<ReturnType<RollArming["factsOf"]>>): Promise<boolean> {
    switch (step.kind) {
      case "wait":
        return false;
      case "send":
        return this.send(armed, facts.rows, facts.attempt, facts.cover);
      case "rolled_elsewhere":
        this.set(
          armed,
          "rolled_elsewhere",
          facts.openedAtMs,
          `rolled at ${clock(facts.openedAtMs ?? this.now().getTime())} by another computer or copy (found by its client reference): nothing sent from here.`,
        );
        return true;
      case "propose": {
        // Under four-eyes, why no instruction covers it (coversRoll's reason) before what is done.
        const why =
          step.why === "four_eyes" && facts.cover?.ok === false ? `four-eyes is on and ${facts.cover.reason.replace(/\.$/, "")}; ` : "";
        this.set(armed, "proposed", null, `unhedged since ${utcMinute(armed.maturityMs)}: ${why}${PROPOSED[step.why]}.`);
        this.o.onPropose?.({ market: armed.market, side: armed.side }, armed.maturityMs);
        return false;
      }
      case "disarm":
        this.set(armed, "disarmed", null, `${DISARMED[step.why]} (matured ${utcMinute(armed.maturityMs)}).`);
        return false;
    }
  }

  /** What the service shows of the maturing hedge, of the roll's reference and of the side, and what the policy gives it. */
  private async factsOf(
    armed: Armed,
  ): Promise<{ facts: RollFacts; rows: TradeRow[]; attempt: number; openedAtMs: number | null; cover?: RollCover }> {
    const facts: RollFacts = {
      hedge: "settled",
      armedBefore: armed.armedBefore,
      rolledOnService: false,
      sideTaken: false,
      rows: 0,
      approval: "direct",
    };
    const none = { rows: [], attempt: 0, openedAtMs: null };
    try {
      if (armed.hedgeId) {
        const hedge = (await this.o.client.get(armed.hedgeId)).data;
        if (hedge.status !== "closed") return { facts: { ...facts, hedge: hedge.status === "failed" ? "closed_early" : "open" }, ...none };
        // Closed: its settlement, unless its history record says it closed before its maturity (README "Service assumptions").
        if (await this.closedBefore(hedge, armed.maturityMs)) return { facts: { ...facts, hedge: "closed_early" }, ...none };
      }
      const reference = rollReference(armed.maturityMs, armed.market, armed.side, 1);
      const [byReference, newest] = await Promise.all([
        this.o.client.list({ client_reference: reference, limit: 500 }),
        this.o.client.list({ limit: SIDE_LOOKUP_LIMIT }),
      ]);
      const mine = byReference.data.filter((h) => h.market === armed.market && h.side === armed.side);
      const rolled = mine.find((h) => h.status !== "failed");
      const attempt = mine.length - (rolled ? 1 : 0);
      facts.rolledOnService = rolled !== undefined;
      facts.sideTaken = newest.data.some((h) => h.market === armed.market && h.side === armed.side && isOpen(h));
      const openedAtMs = rolled?.opened_at ? utcMs(rolled.opened_at) : null;
      if (facts.rolledOnService || facts.sideTaken) return { facts, ...none, openedAtMs };
      if (!this.o.plan) return { facts: { ...facts, rows: null }, ...none, openedAtMs };
      const rows = await this.o.plan({ market: armed.market, side: armed.side }, armed.maturityMs, this.now().getTime());
      facts.rows = rows.length;
      const roll = { market: armed.market, side: armed.side, maturityMs: armed.maturityMs, rows };
      // Under four-eyes the instructions are read now, at the maturity (an approval or revocation counts at once).
      const cover = this.o.direct() ? undefined : await (this.o.instructions ?? NO_ROLL_INSTRUCTIONS).coversRoll(roll);
      facts.approval = cover === undefined ? "direct" : cover.ok ? "covered" : "needed";
      return { facts, rows, attempt, openedAtMs, cover };
    } catch (e) {
      this.o.onError?.(e);
      return { facts: { ...facts, hedge: "unreachable" }, ...none };
    }
  }

  /**
   * Whether the history shows `hedge` closed before `maturityMs` (a close, not its settlement): its records (verdict.ts's
   * recordsOf: by hedge id where the service gives one, else by market, side and opening time), of which the newest is its
   * close (a Reduce before it leaves a record too). No record found: not before (taken as settled).
   */
  private async closedBefore(hedge: Hedge, maturityMs: number): Promise<boolean> {
    const history = await this.o.client.history({ limit: 100 });
    const closes = recordsOf(hedge, history.data, -Infinity).map((r) => utcMs(r.closed_at));
    return closes.length > 0 && Math.max(...closes) < maturityMs;
  }

  /**
   * The roll's rows, previewed and sent by the desk as any batch (journal first, the Hedge Log's chain), keys from their
   * references; under a standing instruction (`cover`) as approved by it: its hash, preparer and approver in every row.
   */
  private async send(armed: Armed, rows: TradeRow[], attempt: number, cover: RollCover | undefined): Promise<boolean> {
    this.set(armed, "rolling", null, `matured ${utcMinute(armed.maturityMs)}: sending the next Open…`);
    try {
      const preview = await this.o.desk.preview(rows.length === 1 ? rows[0].action : "column", rows);
      const idempotencyKeys = rows.map((r) => rollKey(r.clientReference ?? "", attempt));
      const under = cover?.ok ? cover : null;
      const sent = await this.o.desk.send(preview, under ? { approval: { ...under.approval, idempotencyKeys } } : { idempotencyKeys });
      const open = sent.rows[0];
      if (open && (open.status === "submitted" || open.status === "filled")) {
        const atMs = this.now().getTime();
        const by = under ? ` under standing roll instruction ${under.instruction}` : "";
        this.set(
          armed,
          "rolled",
          atMs,
          `rolled at ${clock(atMs)}: ${rows[0].clientReference} sent${by} (matured ${utcMinute(armed.maturityMs)}).`,
        );
        return true;
      }
      return this.notSent(armed, open ? (open.message ?? open.status) : (sent.skipped[0]?.reason ?? "nothing was sent"));
    } catch (e) {
      this.o.onError?.(e);
      return this.notSent(armed, e instanceof Error ? e.message : String(e));
    }
  }

  /**
   * A roll this pane did not get through (its preview refused it, the service refused it): the service is asked again,
   * for another computer may have rolled the side meanwhile (its Open is why this one was refused); else it says why.
   */
  private async notSent(armed: Armed, why: string): Promise<boolean> {
    const again = await this.factsOf(armed);
    if (rollStep(again.facts).kind === "rolled_elsewhere") return this.judged(armed, { kind: "rolled_elsewhere" }, again);
    this.set(armed, "not_rolled", null, `unhedged since ${utcMinute(armed.maturityMs)}: the roll was not sent — ${why}`);
    return false;
  }

  private set(armed: Armed, state: ArmedState, atMs: number | null, says: string): void {
    Object.assign(armed, { state, atMs, text: `${armed.market} ${armed.side} ${says}` });
    this.changed();
  }

  private changed(): void {
    try {
      this.o.onChange?.(this.views());
    } catch {
      // a failing listener must not stop the rolls
    }
  }
}
