// A proposal traded as one batch against the sandbox: Propose's sheet from a model and live positions, read with its Action column, previewed, sent exactly once in its order, and re-proposing then proposes nothing.
import { defaultAccounts } from "../../src/sandbox/accounts";
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { MemorySheetWriter } from "../../src/excel/recon-sheet";
import type { RunningSandbox } from "../../src/sandbox/server";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import { proposalContent, PROPOSAL_SHEET } from "../../src/policy/proposal";
import { start } from "../sandbox/helpers";
import { sandboxWorld } from "../support/sandbox-world";

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start({ accounts: defaultAccounts(), fillMs: 100 });
});
afterAll(() => sb.close());

const MODEL = [
  ["Market", "Side", "Amount (USD)", "Note"],
  ["USDTNGN", "buy", 600_000, "Q1 imports"],
  ["USDTNGN", "buy", 400_000, "Q2 imports"],
  ["USDTNGN", "sell", 100_000, "exports"],
];
const POLICY = [
  ["Market", "Hedge ratio (%)", "Tenor (days)", "Round to (USD)", "Min trade (USD)", "Max trade (USD)", "Net sides"],
  ["*", 75, 7, 1_000, 10_000, 300_000, "yes"],
];

test("model → Propose → trade the proposal as one batch → re-proposing proposes nothing", async () => {
  const workbook = new MemoryWorkbook({
    sheets: {
      Model: MODEL,
      Policy: POLICY,
      Seed: [
        ["Market", "Side", "Notional", "Tenor", "Client reference"],
        ["USDTNGN", "sell", 50_000, 7, "SEED-1"],
      ],
    },
  });
  const writer = new MemorySheetWriter(workbook);
  const { client, desk: deskOf } = sandboxWorld(sb, DEMO_API_KEY, { workbook, intentStore: null, pollIntervalMs: 200 });
  /** Rows in the order the service first accepted them (one entry per idempotency key). */
  const accepted = new Map<string, string>();
  const desk = await deskOf({
    onProgress: (p) => {
      if (p.row.status !== "submitting" && !accepted.has(p.row.idempotencyKey))
        accepted.set(p.row.idempotencyKey, `${p.row.action} ${p.row.side}`);
    },
  });

  // Something already open on the side the net exposure no longer needs.
  workbook.select("Seed", "A2:E2");
  const seed = await desk.readRows("open");
  await desk.send(await desk.preview(seed.action, seed.rows));
  await desk.settled(20_000);

  const proposeNow = async () => {
    const exposures = await workbook.select("Model", "A2:D4").readSelection();
    const policy = await workbook.select("Policy", "A2:G2").readSelection();
    return proposalContent(exposures, policy, (await client.positions()).data, new Date());
  };
  const first = await proposeNow();
  // Net 900,000 buy × 75% = 675,000 buy, in rows of at most 300,000; the sell hedge goes first.
  expect(first.rows.map((r) => `${r.action} ${r.side} ${r.amountUsd ?? ""}`.trim())).toEqual([
    "close sell",
    "open buy 300000",
    "add buy 300000",
    "add buy 75000",
  ]);
  const written = await writer.writeSheet(first.content);
  expect(written.name).toBe(PROPOSAL_SHEET);

  workbook.select(PROPOSAL_SHEET, "A2:I5");
  const read = await desk.readRows("open"); // the batch's choice is overridden by the Action column
  expect(read.action).toBe("column");
  expect(read.problems).toEqual([]);
  const account = (await client.account()).data;
  const preview = await desk.preview(read.action, read.rows);
  expect(preview.blockers).toEqual([]);
  expect(preview.lines.map((l) => l.blockers)).toEqual([[], [], [], []]);
  expect(preview.lines[0].position?.size_usd).toBe(50_000); // the close's position and margin back
  expect(preview.lines.slice(1).every((l) => l.quote !== null)).toBe(true); // the open and the adds quoted
  // The checks count what the close frees first: its notional as headroom and capacity, its margin back as balance.
  expect(preview.checks.find((c) => c.label.startsWith("Exposure"))).toMatchObject({
    needed: 675_000,
    available: account.available_exposure_usd + 50_000,
  });
  expect(preview.checks.find((c) => c.label.startsWith("Balance"))?.available).toBeCloseTo(
    account.balance_usdc + preview.lines[0].marginBackUsdc,
    6,
  );

  const result = await desk.send(preview);
  await desk.settled(30_000);
  expect(result.skipped).toEqual([]);
  // Each row once; per side in the proposal's order (the adds wait for the open of their side).
  expect([...accepted.values()].slice(1).filter((r) => r.endsWith("buy"))).toEqual(["open buy", "add buy", "add buy"]);
  expect(accepted.size).toBe(5);
  const log = await workbook.readLog();
  expect(log.slice(1).map((r) => `${r.action} ${r.side} ${r.status}`)).toEqual([
    "close sell closed",
    "open buy filled",
    "add buy filled",
    "add buy filled",
  ]);
  const positions = (await client.positions()).data;
  expect(positions.map((p) => [p.side, p.size_usd])).toEqual([["buy", 675_000]]);

  expect((await proposeNow()).rows).toEqual([]);
  desk.stop();
}, 90_000);

test("a roll (Close, then Open and its Add on the same side) is one ordinary batch: previewed without a blocker, the Add quoted at the Open's tenor, each row sent once in order", async () => {
  sb.reset();
  const workbook = new MemoryWorkbook({
    sheets: {
      Model: [
        ["Market", "Side", "Amount (USD)"],
        ["USDTNGN", "buy", 400_000],
      ],
      Policy: [
        ["Market", "Hedge ratio (%)", "Tenor (days)", "Round to (USD)", "Min trade (USD)", "Max trade (USD)", "Net sides", "Roll"],
        ["*", 100, 3, 1_000, 10_000, 300_000, "no", "early"], // Roll early: the Close then Open inside the window
      ],
      Seed: [
        ["Market", "Side", "Notional", "Tenor", "Client reference"],
        ["USDTNGN", "buy", 400_000, 1, "SEED-ROLL"],
      ],
    },
  });
  const writer = new MemorySheetWriter(workbook);
  const { client, desk: deskOf } = sandboxWorld(sb, DEMO_API_KEY, { workbook, intentStore: null, pollIntervalMs: 200 });
  const desk = await deskOf();
  workbook.select("Seed", "A2:E2");
  const seed = await desk.readRows("open");
  await desk.send(await desk.preview(seed.action, seed.rows));
  await desk.settled(20_000);
  const held = (await client.positions()).data;
  expect(held.map((p) => p.size_usd)).toEqual([400_000]);

  // The 1-day hedge matures within the default 24 hours: Propose rolls it (Roll early).
  const proposal = proposalContent(
    await workbook.select("Model", "A2:C2").readSelection(),
    await workbook.select("Policy", "A2:H2").readSelection(),
    held,
    new Date(sb.clock.now()),
  );
  expect(proposal.rows.map((r) => `${r.action} ${r.amountUsd ?? ""} ${r.tenor ?? ""}`.trim())).toEqual([
    "close",
    "open 300000 3",
    "add 100000",
  ]);
  const written = await writer.writeSheet(proposal.content);
  workbook.select(written.name, "A2:I4");
  const read = await desk.readRows("open");
  expect(read.problems).toEqual([]);
  const preview = await desk.preview(read.action, read.rows);
  expect(preview.lines.map((l) => l.blockers)).toEqual([[], [], []]);
  expect(preview.blockers).toEqual([]);
  expect(preview.lines[2].quote?.tenor_days).toBe(3); // the Add grows the roll's new 3-day hedge, not the 1-day one closed

  await desk.send(preview);
  await desk.settled(30_000);
  const log = await workbook.readLog();
  expect(log.slice(1).map((r) => `${r.action} ${r.status}`)).toEqual(["close closed", "open filled", "add filled"]);
  const after = (await client.positions()).data;
  expect(after.map((p) => p.size_usd)).toEqual([400_000]);
  const hedge = (await client.list({ status: "filled" })).data[0];
  expect(hedge.tenor_days).toBe(3);
  expect(hedge.client_reference).toMatch(/^ROLL-.*-USDTNGN-BUY-1$/);
  desk.stop();
}, 90_000);

test("at maturity (the default): the maturing side is left to settle; once settled, the roll's Open named by its maturity goes through the desk as any row", async () => {
  sb.reset();
  const workbook = new MemoryWorkbook({
    sheets: {
      Model: [
        ["Market", "Side", "Amount (USD)"],
        ["USDTNGN", "buy", 400_000],
      ],
      Policy: [
        ["Market", "Hedge ratio (%)", "Tenor (days)", "Round to (USD)", "Min trade (USD)", "Max trade (USD)", "Net sides"],
        ["*", 100, 3, 1_000, 10_000, 300_000, "no"],
      ],
      Seed: [
        ["Market", "Side", "Notional", "Tenor", "Client reference"],
        ["USDTNGN", "buy", 400_000, 1, "SEED-MATURITY"],
      ],
    },
  });
  const writer = new MemorySheetWriter(workbook);
  const { client, desk: deskOf } = sandboxWorld(sb, DEMO_API_KEY, { workbook, intentStore: null, pollIntervalMs: 200 });
  const desk = await deskOf();
  workbook.select("Seed", "A2:E2");
  const seed = await desk.readRows("open");
  await desk.send(await desk.preview(seed.action, seed.rows));
  await desk.settled(20_000);
  const propose = async () =>
    proposalContent(
      await workbook.select("Model", "A2:C2").readSelection(),
      await workbook.select("Policy", "A2:G2").readSelection(),
      (await client.positions()).data,
      new Date(sb.clock.now()),
      { history: (await client.history()).data },
    );
  // Inside the 24-hour window from its opening: never closed early.
  expect((await propose()).rows).toEqual([]);
  const [held] = (await client.positions()).data;
  sb.clock.advance(Date.parse(held.maturity_at) - sb.clock.now() + 1_000); // the sandbox settles it at its maturity
  expect((await client.positions()).data).toEqual([]);
  const proposal = await propose();
  const at = `${new Date(Date.parse(held.maturity_at)).toISOString().slice(0, 16)}Z`;
  expect(proposal.rows.map((r) => `${r.action} ${r.amountUsd} ${r.clientReference}`)).toEqual([
    `open 300000 ROLL-${at}-USDTNGN-BUY-1`,
    `add 100000 ROLL-${at}-USDTNGN-BUY-2`,
  ]);
  expect(proposal.rows[0].reason).toMatch(/^Roll: matured \d{4}-\d\d-\d\d \d\d:\d\d UTC\./);
  const written = await writer.writeSheet(proposal.content);
  workbook.select(written.name, "A2:I3");
  const read = await desk.readRows("open");
  await desk.send(await desk.preview(read.action, read.rows));
  await desk.settled(30_000);
  expect((await client.positions()).data.map((p) => p.size_usd)).toEqual([400_000]);
  expect((await client.history()).data.map((r) => r.exit_type)).toEqual(["maturity"]); // the seed settled, nothing closed
  expect((await propose()).rows).toEqual([]); // proposing again gives nothing
  desk.stop();
}, 90_000);
