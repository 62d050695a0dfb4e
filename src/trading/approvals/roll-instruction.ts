// A standing roll instruction (pure): "keep <market, side> hedged to the model's target until <date>, at most <USD> per hedge, tenors by the rule": its terms checked, its hash, its block on the Approvals sheet as written and read back.
import type { Environment } from "../../api/environment";
import { roundToCent } from "../../api/cents";
import { MAX_AMOUNT_USD } from "../../api/schemas";
import { utcMs } from "../../api/time";
import type { CellValue } from "../cells";
import { hashOf } from "../log/digest";
import type { SheetRow } from "../workbook";
import {
  APPROVAL_WIDTH,
  COL,
  INSTRUCTION_ID_TITLE,
  INSTRUCTION_TERMS_TITLE,
  BATCH_TITLES,
  isBlockStart,
  isTitles,
  orNull,
  text,
} from "./block";

export const INSTRUCTION_STATUSES = ["pending", "approved", "rejected", "revoked"] as const;
export type InstructionStatus = (typeof INSTRUCTION_STATUSES)[number];
/** The tenors the rule may pick from (days): an instruction allows the rule's choice up to one of them. */
export const RULE_TENORS = [1, 3, 7] as const;

/** What the instruction allows: one market side, until a time, at most an amount per hedge, the tenor the rule picks up to a most. */
export interface InstructionTerms {
  /** Upper case, no spaces or slashes ("USDTNGN"). */
  market: string;
  side: "buy" | "sell";
  /** The instruction ends at this instant (ISO 8601 UTC, whole seconds): no roll is sent under it from then on. */
  until: string;
  /** The most one hedge (one Open) under it may be, USD to the cent. */
  maxPerHedgeUsd: number;
  /** Tenors by the rule (src/policy/tenor.ts's tenorFor), at most this many days (1, 3 or 7). */
  maxTenor: number;
}

/** Where and when it was prepared: in its hash, as a batch's binding. */
export interface InstructionBinding {
  environment: Environment | null;
  account: string | null;
  preparedAt: string;
}

/** A roll instruction as its block on the Approvals sheet says now. */
export interface RollInstruction extends InstructionTerms, InstructionBinding {
  /** "RI-20261128-1a2b3c4d5e6f": the UTC day of preparation and 12 random hex digits. */
  id: string;
  /** As the Status cell reads; an unreadable one reads `pending` (and its problem refuses approval). */
  status: InstructionStatus;
  /** The instruction hash written at preparation. */
  hash: string;
  preparedBy: string;
  /** Who approved, rejected or revoked it, and when (the last decision). */
  decidedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
  /** Cells that do not read as the add-in wrote them. */
  problems: string[];
}

/** The header's titles: a batch's columns (so a decision writes the same four cells), its first and fourth named for an instruction. */
export const INSTRUCTION_TITLES = BATCH_TITLES.map((t, i) =>
  i === COL.id
    ? INSTRUCTION_ID_TITLE
    : i === COL.hash
      ? "Instruction hash"
      : i === COL.rows
        ? "Kind"
        : i === COL.decidedBy
          ? "Approved/revoked by"
          : t,
);
/** The terms line's titles. */
export const TERMS_TITLES = [INSTRUCTION_TERMS_TITLE, "Side", "Until (UTC)", "Max per hedge (USD)", "Tenors"] as const;
/** What the Kind cell says. */
export const INSTRUCTION_KIND = "standing roll";

const tenorsText = (maxTenor: number) => `by the rule, at most ${maxTenor} days`;

/** The terms as typed in the pane, checked: each bad field named with its fix; the market normalised, the amount to the cent, Until in UTC. */
export function instructionTerms(
  input: { market: string; side: string; until: string; maxPerHedgeUsd: number | string; maxTenor: number | string },
  nowMs: number,
): { ok: true; terms: InstructionTerms } | { ok: false; error: string } {
  const market = input.market.toUpperCase().replace(/[\s/]/g, "");
  if (!/^[A-Z0-9]+$/.test(market)) return { ok: false, error: "Market: type the market the instruction keeps hedged, e.g. USDTNGN." };
  const side = input.side.trim().toLowerCase();
  if (side !== "buy" && side !== "sell") return { ok: false, error: `Side "${input.side}": use buy or sell.` };
  const untilMs = utcMs(input.until); // the one parser of times: ISO 8601 only, and a time without a zone is UTC
  if (!Number.isFinite(untilMs) || untilMs <= nowMs)
    return {
      ok: false,
      error: `Until "${input.until}": type a date and time in the future (ISO 8601, UTC), e.g. 2026-12-31T00:00:00Z or 2026-12-31 17:00.`,
    };
  const max = typeof input.maxPerHedgeUsd === "number" ? input.maxPerHedgeUsd : Number(input.maxPerHedgeUsd.replace(/,/g, ""));
  const cents = roundToCent(max);
  if (!(cents > 0) || cents > MAX_AMOUNT_USD)
    // NaN is not above 0, Infinity is above the most
    return {
      ok: false,
      error: `Max per hedge (USD) "${input.maxPerHedgeUsd}": type an amount above 0 and at most ${MAX_AMOUNT_USD.toLocaleString("en-US")}.`,
    };
  const maxTenor = Number(
    String(input.maxTenor)
      .trim()
      .replace(/\s*(d|days?)$/i, ""),
  );
  if (!(RULE_TENORS as readonly number[]).includes(maxTenor))
    return { ok: false, error: `Tenors: "${input.maxTenor}" is not one of the rule's tenors — type the most days, 1, 3 or 7.` };
  const until = new Date(Math.floor(untilMs / 1000) * 1000).toISOString();
  return { ok: true, terms: { market, side, until, maxPerHedgeUsd: cents, maxTenor } };
}

/**
 * The instruction hash (hex, "hedge-roll-instruction-v1"), hashed like a batch's: the preparer's environment, account
 * address and Prepared at, then every term (market, side, Until, the amount to the cent, the most tenor). Any cell
 * edited after preparation changes it.
 */
export function instructionHash(i: InstructionTerms & InstructionBinding): string {
  const amount = i.maxPerHedgeUsd.toFixed(2); // a cell typed over that reads as no number hashes as "NaN"
  return hashOf(
    "hedge-roll-instruction-v1",
    i.environment ?? "",
    i.account ?? "",
    i.preparedAt,
    i.market,
    i.side,
    i.until,
    amount,
    String(i.maxTenor),
  );
}

/** A new instruction id: the UTC day and 12 random hex digits ("RI-20261128-1a2b3c4d5e6f"). */
export function newInstructionId(now: Date, random: () => string): string {
  const day = now.toISOString().slice(0, 10).replace(/-/g, "");
  const hex = random()
    .replace(/[^0-9a-f]/gi, "")
    .slice(0, 12)
    .toLowerCase();
  return `RI-${day}-${hex}`;
}

/** The instruction's block: titles, values, the terms' titles and values, each APPROVAL_WIDTH wide. */
export function instructionLines(i: Omit<RollInstruction, "problems">): CellValue[][] {
  const pad = (cells: CellValue[]) => [...cells, ...Array<CellValue>(APPROVAL_WIDTH - cells.length).fill("")];
  // A batch's columns in COL's order (id, status, hash, rows → Kind, prepared by and at, decided by and at, reason,
  // environment, account); what is not known or not decided yet is a blank cell.
  const header: CellValue[] = [
    i.id,
    i.status,
    i.hash,
    INSTRUCTION_KIND,
    i.preparedBy,
    i.preparedAt,
    i.decidedBy ?? "",
    i.decidedAt ?? "",
    i.reason ?? "",
    i.environment ?? "",
    i.account ?? "",
  ];
  return [
    [...INSTRUCTION_TITLES],
    header,
    pad([...TERMS_TITLES]),
    pad([i.market, i.side, i.until, i.maxPerHedgeUsd, tenorsText(i.maxTenor)]),
  ];
}

/** Every instruction block of the sheet's lines (blank lines left out), in sheet order; cells typed over read as they stand. */
export function parseInstructions(lines: readonly SheetRow[]): RollInstruction[] {
  const out: RollInstruction[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!isTitles(lines[i].values, INSTRUCTION_ID_TITLE)) continue;
    let end = i + 1;
    while (end < lines.length && !isBlockStart(lines[end].values)) end++;
    out.push(parseInstruction(lines[i].rowNumber, lines.slice(i + 1, end)));
    i = end - 1;
  }
  return out;
}

function parseInstruction(titlesRow: number, body: readonly SheetRow[]): RollInstruction {
  const header = body[0]?.rowNumber === titlesRow + 1 ? body[0].values : [];
  const termsAt = body.findIndex((l) => isTitles(l.values, INSTRUCTION_TERMS_TITLE));
  const terms = termsAt >= 0 ? (body[termsAt + 1]?.values ?? []) : [];
  const problems: string[] = [];
  const statusText = text(header[COL.status]).toLowerCase();
  const known = (INSTRUCTION_STATUSES as readonly string[]).includes(statusText);
  if (!known)
    problems.push(`its Status cell reads "${text(header[COL.status])}", not one the add-in writes (${INSTRUCTION_STATUSES.join(", ")})`);
  const environmentText = text(header[COL.environment]).toLowerCase();
  const tenor = /^by the rule, at most (\d+) days$/.exec(text(terms[4]));
  return {
    id: text(header[COL.id]),
    status: known ? (statusText as InstructionStatus) : "pending",
    hash: text(header[COL.hash]).toLowerCase(),
    preparedBy: text(header[COL.preparedBy]),
    preparedAt: text(header[COL.preparedAt]),
    decidedBy: orNull(header[COL.decidedBy]),
    decidedAt: orNull(header[COL.decidedAt]),
    reason: orNull(header[COL.reason]),
    environment: environmentText === "production" || environmentText === "sandbox" ? environmentText : null,
    account: orNull(header[COL.account]),
    market: text(terms[0]),
    side: text(terms[1]) as "buy" | "sell",
    until: text(terms[2]),
    maxPerHedgeUsd: Number(text(terms[3]).replace(/,/g, "")), // a number cell's text reads back as that number
    maxTenor: tenor ? Number(tenor[1]) : NaN,
    problems,
  };
}
