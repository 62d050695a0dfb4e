// The desk's armed rolls against the sandbox on its clock, over real HTTP (issue 39 item 2): two computers (two desks, two trading keys of one account, each its own workbook and journal) arm the same side; at each maturity the next Open is sent at once, opens once on the service, each desk's Hedge Log records it, and a 30-day program costs at most ROLLCOST × 1.005 with no more hedges than it counts. Under four-eyes the roll is proposed, not sent, unless a standing roll instruction approved on the Approvals sheet covers it (then sent, its log row carrying the instruction's hash; revoked, proposed); a side found settled is proposed.
import { rollcostCell } from "../../functions/rollcost-cell";
import { HedgingClient } from "../../../src/api/client";
import type { Hedge } from "../../../src/api/schemas";
import { serviceHoldings } from "../../../src/policy/inputs";
import { proposalAt, rollRowsAt, tradeRowsOf } from "../../../src/policy/proposal";
import { RollArming, ARM_POLL_MS, type ArmedView, type RollInstructions } from "../../../src/trading/desk/roll-arming";
import type { TradingDesk } from "../../../src/trading/desk/contract";
import type { TradeRow } from "../../../src/trading/types";
import { rollKey, rollReference } from "../../../src/trading/rolls";
import { sandboxWorld } from "../../support/sandbox-world";
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { publicKeyFingerprint } from "../../../src/api/environment";
import { RollInstructions as InstructionFlow } from "../../../src/trading/approvals/roll-instructions";
import { instructionCover } from "../../../src/trading/approvals/roll-cover";
import { DAY, FILL_MS, programAccount, programModel, programSandbox, realized, toNextHour } from "../../support/program";

jest.setTimeout(180_000);

const KEY = "svc_test_armed_key_0001";
const SECOND = "svc_test_armed_key_0002";
const ADDRESS = "0x00000000000000000000000000000000000000c3";
const program = programSandbox(7, [programAccount(KEY, ADDRESS, { keys: [{ api_key: SECOND, scopes: ["read", "trade"] }] })]);
const PREPARER = publicKeyFingerprint("svc_test_armed_preparer");
const APPROVER = publicKeyFingerprint(SECOND);

const now = () => new Date(program.sandbox.clock.now());

/** One dated buy exposure and an `at maturity` policy at tenor 7. */
const model = (notional: number, valueDate: number) => programModel(notional, valueDate, { roll: "at maturity", rollWithinHours: 24 });

/** A computer: its own client (key), workbook and journal, desk and armed rolls over the model. */
async function computer(
  apiKey: string,
  m: ReturnType<typeof model>,
  options: { direct?: boolean; instructions?: RollInstructions; previewed?: () => Promise<void>; workbook?: MemoryWorkbook } = {},
) {
  const world = sandboxWorld(program.sandbox as never, apiKey, { now, workbook: options.workbook });
  const client = new HedgingClient({ apiKey, baseUrl: program.sandbox.baseUrl, ratePerSecond: 1_000, burst: 1_000 });
  // The arming's desk: a previewed roll leaves only once `previewed` lets it go (two computers in step).
  const armingDesk: Pick<TradingDesk, "preview" | "send"> = {
    preview: (...args) => desk.preview(...args),
    send: async (...args) => {
      await options.previewed?.();
      return desk.send(...args);
    },
  };
  const desk = await world.desk();
  const seen: ArmedView[][] = [];
  const proposed: string[] = [];
  const arming = new RollArming({
    client,
    desk: armingDesk,
    now,
    covers: (s) => s.market === "USDTNGN" && s.side === "buy",
    plan: async (side, maturityMs, asOfMs) => rollRowsAt(m, serviceHoldings((await client.positions()).data), side, maturityMs, asOfMs),
    direct: () => options.direct ?? true,
    instructions: options.instructions,
    onChange: (v) => seen.push([...v]),
    onPropose: (s, at) => proposed.push(`${s.market} ${s.side} ${new Date(at).toISOString()}`),
  });
  return { world, desk, arming, seen, proposed };
}

/** The first Open the policy gives at the start, sent through `desk` as the pane would, filled. */
async function openFirst(desk: TradingDesk, m: ReturnType<typeof model>) {
  const { rows } = proposalAt({ ...m, holdings: [] }, program.sandbox.clock.now());
  await desk.send(await desk.preview("open", tradeRowsOf(rows, 2)));
  program.sandbox.clock.advance(FILL_MS);
  await desk.settled(20_000);
}

/** Every hedge of the account, newest first. */
async function hedges(client: HedgingClient): Promise<Hedge[]> {
  return (await client.list({ limit: 500 })).data;
}

test.each([30, 90])(
  "two computers armed on one account, 1,000,000 USD for %d days at 7: each maturity's roll opens once, at once, for what ROLLCOST quotes",
  async (days) => {
    const start = toNextHour(program.sandbox.clock);
    const valueDate = start + days * DAY;
    const m = model(1_000_000, valueDate);
    const cost = await rollcostCell({ apiKey: KEY, baseUrl: program.sandbox.baseUrl }, 1_000_000, days, "at maturity", 24);
    const a = await computer(KEY, m);
    const b = await computer(SECOND, m);
    await openFirst(a.desk, m);
    await Promise.all([a.arming.poll(), b.arming.poll()]);
    expect(a.arming.views().map((v) => v.state)).toEqual(["armed"]);
    expect(b.arming.views()[0].text).toMatch(/^USDTNGN buy armed: matures \d{4}-\d\d-\d\d \d\d:\d\d UTC/);

    const gaps: number[] = [];
    const client = a.world.client;
    for (let round = 0; round < 40; round++) {
      const open = (await hedges(client)).find((h) => h.status === "filled");
      if (!open) break;
      const maturity = Date.parse(open.maturity_at as string);
      // One poll interval after the maturity (the sandbox settles the hedge at it on the way), both computers poll at once.
      program.sandbox.clock.advance(maturity + ARM_POLL_MS - program.sandbox.clock.now());
      await Promise.all([a.arming.poll(), b.arming.poll()]);
      program.sandbox.clock.advance(FILL_MS);
      await Promise.all([a.desk.settled(20_000), b.desk.settled(20_000)]);
      const next = (await hedges(client)).find((h) => h.status === "filled" && h.id !== open.id);
      if (next) gaps.push(Date.parse(next.opened_at as string) - maturity);
    }

    const all = await hedges(client);
    const history = (await client.history({ limit: 500 })).data;
    const rolls = all.filter((h) => h.client_reference?.startsWith("ROLL-"));
    // Each maturity's roll opened once on the service, though both computers armed it.
    expect(new Set(rolls.map((h) => h.client_reference)).size).toBe(rolls.length);
    expect(all.filter((h) => h.status !== "failed")).toHaveLength(cost.hedges as number);
    expect(all.length).toBeLessThanOrEqual(cost.hedges as number);
    // Never closed early; nothing left open past the value date; each gap at most one poll interval.
    expect(history.map((r) => r.exit_type).filter((t) => t !== "maturity")).toEqual([]);
    expect((await client.positions()).data.filter((p) => p.size_usd > 0)).toEqual([]);
    expect(gaps).toHaveLength(rolls.length);
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(ARM_POLL_MS);
    const { feesUsd: fees, carryUsd: carry } = realized(history);
    const quoted = (cost.fees_usdc as number) + (cost.carry_usdc as number);
    expect(fees + carry).toBeLessThanOrEqual(quoted * 1.005);
    // Each computer's Hedge Log holds every roll it sent (journal and chain, as any row); between them, every roll.
    const logged = async (desk: TradingDesk) => (await desk.log()).filter((r) => r.clientReference?.startsWith("ROLL-"));
    const [la, lb] = [await logged(a.desk), await logged(b.desk)];
    expect(new Set([...la, ...lb].map((r) => r.clientReference))).toEqual(new Set(rolls.map((h) => h.client_reference)));
    for (const r of [...la, ...lb]) expect(rolls.find((h) => h.client_reference === r.clientReference)?.id).toBe(r.hedgeId);
    // What each pane says after: the last maturity was not rolled (its target is 0), the ones before were rolled (here or there).
    const said = [...a.seen, ...b.seen].flat().map((v) => v.state);
    expect(said).toContain("rolled");
    expect(a.arming.views()[0].text).toMatch(/its target is 0 now: not rolled/);
    console.log(
      `armed rolls, ${days} days at 7, two computers: ${all.length} hedges (ROLLCOST ${cost.hedges}), fees ${fees} + carry ${carry} = ${(fees + carry).toFixed(2)} vs ROLLCOST ${quoted.toFixed(2)}; gaps ${gaps.map((g) => `${g / 1000} s`).join(", ")}; rolls sent from A ${la.length}, from B ${lb.length}`,
    );
  },
);

/** Opens the first hedge through `desk`, arms the computers, and moves the clock one poll past its maturity; returns the hedge. */
async function toFirstMaturity(desk: TradingDesk, m: ReturnType<typeof model>, armed: RollArming[]): Promise<Hedge> {
  await openFirst(desk, m);
  for (const arming of armed) await arming.poll();
  const first = (await hedges(program.client(KEY)))[0];
  program.sandbox.clock.advance(Date.parse(first.maturity_at as string) + ARM_POLL_MS - program.sandbox.clock.now());
  return first;
}

test("four-eyes without a standing roll instruction: the roll is proposed for approval, never sent; a computer whose instruction covers it sends it", async () => {
  const start = toNextHour(program.sandbox.clock);
  const m = model(500_000, start + 20 * DAY);
  const a = await computer(KEY, m, { direct: false });
  const covered: Array<{ maturityMs: number; rows: readonly TradeRow[] }> = [];
  const approval = { batchHash: "cd".repeat(32), preparedBy: PREPARER, approvedBy: APPROVER };
  const c = await computer(SECOND, m, {
    direct: false,
    instructions: { coversRoll: async (r) => (covered.push(r), { ok: true, instruction: "RI-20261102-cccccccccccc", approval }) },
  });
  const first = await toFirstMaturity(a.desk, m, [a.arming, c.arming]);
  await a.arming.poll();
  expect((await hedges(a.world.client)).filter((h) => h.status !== "closed")).toEqual([]);
  expect(a.arming.views()[0]).toMatchObject({ state: "proposed" });
  expect(a.arming.views()[0].text).toMatch(/^USDTNGN buy unhedged since .* four-eyes is on and no standing roll instruction covers it/);
  expect(a.proposed).toEqual([`USDTNGN buy ${new Date(Date.parse(first.maturity_at as string)).toISOString()}`]);

  await c.arming.poll();
  c.arming.stop();
  program.sandbox.clock.advance(FILL_MS);
  await c.desk.settled(20_000);
  expect(
    covered.map((r) => [r.maturityMs, r.rows.map((row) => `${row.action} ${row.notional} ${row.tenor} ${row.clientReference}`)]),
  ).toEqual([
    [
      Date.parse(first.maturity_at as string),
      [`open 500000 7 ${rollReference(Date.parse(first.maturity_at as string), "USDTNGN", "buy", 1)}`],
    ],
  ]);
  expect((await hedges(c.world.client)).filter((h) => h.status === "filled").map((h) => h.client_reference)).toEqual([
    expect.stringMatching(/^ROLL-\d{4}-\d\d-\d\dT\d\d:\d\dZ-USDTNGN-BUY-1$/),
  ]);
});

test("a side that settled while no pane watched it (the workbook closed): unhedged since its maturity, proposed at once, never sent without a click", async () => {
  const start = toNextHour(program.sandbox.clock);
  const m = model(500_000, start + 20 * DAY);
  const a = await computer(KEY, m);
  const first = await toFirstMaturity(a.desk, m, []);
  const opened = await computer(SECOND, m); // the workbook opened after the maturity, sends allowed
  await opened.arming.poll();
  const at = new Date(Date.parse(first.maturity_at as string)).toISOString();
  expect(opened.arming.views()).toEqual([
    expect.objectContaining({
      state: "proposed",
      maturityMs: Date.parse(at),
      text: expect.stringMatching(/^USDTNGN buy unhedged since .* UTC: settled while the workbook was closed/),
    }),
  ]);
  expect(opened.proposed).toEqual([`USDTNGN buy ${at}`]);
  expect((await hedges(a.world.client)).filter((h) => h.status !== "closed")).toEqual([]);
});

test("two computers past the question and the preview at once (neither sees the other's roll): both send, the derived key collapses them into one hedge on the service, both logs name it", async () => {
  const start = toNextHour(program.sandbox.clock);
  const m = model(500_000, start + 20 * DAY);
  // Each computer's roll, asked about and previewed, is held until both are: both send.
  let release!: () => void;
  const both = new Promise<void>((r) => (release = r));
  let waiting = 0;
  const previewed = async () => {
    if (++waiting === 2) release();
    await both;
  };
  const a = await computer(KEY, m, { previewed });
  const b = await computer(SECOND, m, { previewed });
  const first = await toFirstMaturity(a.desk, m, [a.arming, b.arming]);
  await Promise.all([a.arming.poll(), b.arming.poll()]);
  program.sandbox.clock.advance(FILL_MS);
  await Promise.all([a.desk.settled(20_000), b.desk.settled(20_000)]);
  const reference = rollReference(Date.parse(first.maturity_at as string), "USDTNGN", "buy", 1);
  const onService = (await hedges(a.world.client)).filter((h) => h.client_reference === reference);
  expect(onService).toHaveLength(1);
  const rows = [...(await a.desk.log()), ...(await b.desk.log())].filter((r) => r.clientReference === reference);
  expect(rows.map((r) => [r.status, r.hedgeId])).toEqual([
    ["filled", onService[0].id],
    ["filled", onService[0].id],
  ]);
  expect(rows[0].idempotencyKey).toBe(rows[1].idempotencyKey);
  expect([a, b].map((c) => c.arming.views()[0].state)).toEqual(["armed", "armed"]); // both armed again, for the new hedge's maturity
  expect([a, b].map((c) => c.arming.views()[0].text)).toEqual([
    expect.stringMatching(/last rolled at/),
    expect.stringMatching(/last rolled at/),
  ]);
});

/**
 * Four-eyes on, the pane's port over the Approvals sheet (instructionCover) and a standing instruction submitted and
 * approved through the real flow (control rows in the computer's Hedge Log); `revoke`: revoked before the maturity.
 */
async function underInstruction(revoke: boolean) {
  const start = toNextHour(program.sandbox.clock);
  const m = model(500_000, start + 20 * DAY);
  const workbook = new MemoryWorkbook();
  const place = { environment: "sandbox" as const, account: ADDRESS };
  const instructions = instructionCover({ sheet: workbook, place: () => place, now });
  const a = await computer(KEY, m, { direct: false, workbook, instructions });
  const flow = new InstructionFlow({ sheet: workbook, recordControl: (c) => a.desk.recordControl(c), now });
  const terms = { market: "USDTNGN", side: "buy", until: new Date(start + 30 * DAY).toISOString(), maxPerHedgeUsd: 500_000, maxTenor: 7 };
  const submitted = await flow.submit(terms, PREPARER, place);
  const instruction = await flow.approve(submitted.id, APPROVER, place);
  if (revoke) await flow.revoke(instruction.id, PREPARER, "the desk stops rolling");
  const first = await toFirstMaturity(a.desk, m, [a.arming]);
  await a.arming.poll();
  program.sandbox.clock.advance(FILL_MS);
  await a.desk.settled(20_000);
  const reference = rollReference(Date.parse(first.maturity_at as string), "USDTNGN", "buy", 1);
  return { a, instruction, reference };
}

test("four-eyes, an approved standing instruction covering the side: the roll is sent at maturity, its Hedge Log row carries the instruction's hash", async () => {
  const { a, instruction, reference } = await underInstruction(false);
  const rolled = (await hedges(a.world.client)).filter((h) => h.client_reference === reference);
  expect(rolled.map((h) => h.status)).toEqual(["filled"]);
  const rows = (await a.desk.log()).filter((r) => r.clientReference === reference);
  expect(rows.map((r) => [r.status, r.hedgeId, r.batchHash, r.preparedBy, r.approvedBy, r.idempotencyKey])).toEqual([
    ["filled", rolled[0].id, instruction.hash, PREPARER, APPROVER, rollKey(reference, 0)],
  ]);
  expect(a.seen.flat().map((v) => v.text)).toContainEqual(
    expect.stringMatching(new RegExp(`rolled at .*: ${reference} sent under standing roll instruction ${instruction.id}`)),
  );
  expect(a.proposed).toEqual([]);
});

test("four-eyes, the instruction revoked (logged) before the maturity: the roll is proposed, nothing sent, the pane says why", async () => {
  const { a, instruction, reference } = await underInstruction(true);
  expect((await hedges(a.world.client)).filter((h) => h.client_reference === reference || h.status !== "closed")).toEqual([]);
  expect((await a.desk.log()).filter((r) => r.clientReference === reference)).toEqual([]);
  expect(a.arming.views()[0]).toMatchObject({
    state: "proposed",
    text: expect.stringMatching(
      new RegExp(
        `four-eyes is on and Roll instruction ${instruction.id} was revoked by ${PREPARER} at .*: this roll needs a new approval; the roll's Open is proposed`,
      ),
    ),
  });
  expect(a.proposed).toHaveLength(1);
});
