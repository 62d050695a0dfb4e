// View models of the overview and the trade panel: what the user reads in the pane.
import { badgeModel } from "../../src/taskpane/environment-badge";
import { overviewModel } from "../../src/taskpane/overview-model";
import {
  confirmation,
  duplicateText,
  previewRows,
  previewTotals,
  pricingText,
  progressModel,
  readSummary,
  rowStatusText,
  sendPlan,
} from "../../src/taskpane/trade-model";
import { decisionConfirmation, resumeConfirmation, unfinishedView } from "../../src/taskpane/resume-model";
import type { ReadResult, ResumeItem, ResumePlan, RowStatus } from "../../src/trading/types";
import { account, market, openLine, position, preview, row } from "./fixtures";

describe("environment badge", () => {
  test("a live key is a red LIVE that says production money; a test key is SANDBOX", () => {
    expect(badgeModel("production")).toMatchObject({ label: "LIVE", tone: "danger" });
    expect(badgeModel("production").description).toMatch(/production money/);
    expect(badgeModel("sandbox")).toMatchObject({ label: "SANDBOX", tone: "neutral" });
  });
});

describe("overview", () => {
  test("shows the account figures with currencies and the signed P&L", () => {
    const m = overviewModel(account, [market]);
    expect(m.address).toBe("0xabc123");
    expect(m.figures).toEqual([
      { label: "Balance", value: "25,000.00 USDC" },
      { label: "Margin used", value: "1,250.50 USDC" },
      { label: "Unrealized P&L", value: "−37.25 USD", tone: "negative" },
      { label: "Open positions", value: "2" },
    ]);
    expect(m.exposure).toMatchObject({ used: 400_000, cap: 1_000_000, headroom: "600,000.00 USD" });
  });

  test("lists each market with price, and capacity and carry per side", () => {
    const [row] = overviewModel(account, [market]).markets;
    expect(row.price).toBe("1502.3500");
    expect(row.sides).toEqual([
      { side: "buy", capacity: "2M", capacityFull: "2,000,000.00 USD", carry: "+0.0120 %/day" },
      { side: "sell", capacity: "750k", capacityFull: "750,000.00 USD", carry: "−0.0080 %/day" },
    ]);
  });

  test("an account without an on-chain address says so", () => {
    expect(overviewModel({ ...account, account_address: null }, []).address).toMatch(/no on-chain address/);
  });
});

describe("read summary", () => {
  test("lists problems by sheet row number, in row order, and counts blank rows", () => {
    const read: ReadResult = {
      action: "open",
      sheetName: "Exposures",
      address: "Exposures!A1:E9",
      tableName: null,
      columns: {},
      hiddenRowsSkipped: 0,
      rows: [row(2), row(3)],
      problems: [
        { rowNumber: 8, field: "tenor", value: "5", message: "Row 8: Tenor 5 — use 1, 3 or 7." },
        { rowNumber: 4, field: "side", value: "long", message: "Row 4: Side long — use buy or sell." },
        { rowNumber: 4, field: "notional", value: "", message: "Row 4: Notional is empty — enter an amount in USD." },
      ],
      blankRows: [6],
    };
    const s = readSummary(read);
    expect(s.headline).toBe("2 rows ready from Exposures!A1:E9, 1 blank row skipped, 2 rows with problems (not sent).");
    expect(s.problems.map((p) => p.rowNumber)).toEqual([4, 4, 8]);
    expect(s.problems[2].text).toMatch(/use 1, 3 or 7/);
  });
});

describe("preview", () => {
  test("open rows show the quote figures and the totals", () => {
    const p = preview([openLine(2), openLine(3)]);
    const [first] = previewRows(p);
    expect(first.title).toBe("Open buy USDTNGN 100,000.00 USD, 7d");
    expect(first.cells).toEqual([
      { label: "Execution price", value: "1503.1000" },
      { label: "Carry over tenor", value: "8.40 USDC" },
      { label: "Collateral", value: "10,010.00 USDC" },
      { label: "Client reference", value: "DEAL-2" },
    ]);
    expect(previewTotals(p)).toEqual([
      { label: "Rows", value: "2" },
      { label: "Total notional", value: "200,000.00 USD" },
      { label: "Collateral to lock", value: "20,020.00 USDC" },
      { label: "Carry over tenors", value: "16.80 USDC" },
    ]);
  });

  test("close rows show the position affected and the margin back", () => {
    const line = openLine(5, {
      row: row(5, { action: "close", notional: null, tenor: null }),
      quote: null,
      position,
      collateralUsdc: 0,
      carryUsdc: 0,
      marginBackUsdc: 10_150,
    });
    const p = preview([line], {
      action: "close",
      totals: { rows: 1, priced: 1, notionalUsd: 0, collateralUsdc: 0, carryUsdc: 0, marginBackUsdc: 10_150 },
    });
    expect(previewRows(p)[0].title).toBe("Close buy USDTNGN whole position");
    expect(previewRows(p)[0].cells.map((c) => c.value)).toEqual(["100,000.00 USD at 1500.0000", "+144.67 USD", "10,150.00 USDC"]);
    expect(previewTotals(p)).toEqual([
      { label: "Rows", value: "1" },
      { label: "Margin expected back", value: "10,150.00 USDC" },
    ]);
  });

  test("a duplicate is left out unless its 'send again' box is ticked; blocked rows never go", () => {
    const dup = openLine(3, {
      duplicateOf: { idempotencyKey: "k", loggedAt: "2025-01-30T09:00:00.000Z", status: "filled", hedgeId: "h1", reason: "same_day" },
    });
    const blocked = openLine(4, { blockers: ["Capacity exceeded."] });
    const p = preview([openLine(2), dup, blocked]);
    expect(previewRows(p)[1].duplicate).toBe(
      "Already in the log the same day: the row logged 2025-01-30 09:00:00 UTC (filled, key k, hedge h1).",
    );
    expect(sendPlan(p, new Set()).lines.map((l) => l.row.rowNumber)).toEqual([2]);
    const again = sendPlan(p, new Set([3]));
    expect(again.lines.map((l) => l.row.rowNumber)).toEqual([2, 3]);
    expect(again.notional).toBe(200_000);
    expect(sendPlan(preview([blocked]), new Set()).blockedReason).toMatch(/Nothing to send/);
    expect(sendPlan(preview([openLine(2)], { blockers: ["Balance too low."] }), new Set()).blockedReason).toBe("Balance too low.");
  });
});

describe("confirmation", () => {
  test("sandbox is one click; a live key needs a dialog naming the environment, count and total", () => {
    expect(confirmation("sandbox", "open", 3, 300_000)).toEqual({ steps: 1, button: "Confirm and send 3 rows", dialog: null });
    const live = confirmation("production", "add", 2, 150_000);
    expect(live.steps).toBe(2);
    expect(live.dialog).toContain("LIVE");
    expect(live.dialog).toContain("production money");
    expect(live.dialog).toContain("2 rows");
    expect(live.dialog).toContain("150,000.00 USD");
  });
});

describe("progress", () => {
  test("percent of rows final, and counts by status", () => {
    const counts = { submitting: 1, submitted: 2, needs_decision: 0, filled: 3, failed: 0, closed: 0, rejected: 1, not_sent: 0 };
    expect(progressModel({ done: 4, total: 7, counts })).toEqual({
      done: 4,
      total: 7,
      percent: 57,
      text: "4 of 7 final — 3 filled, 2 submitted, waiting for fill, 1 sending, 1 rejected",
    });
  });

  test("a row's status names the sheet row, the error code and the message", () => {
    expect(
      rowStatusText({
        idempotencyKey: "k",
        parkedFor: null,
        rowNumber: 7,
        action: "open",
        market: "USDTNGN",
        side: "buy",
        notional: 1,
        status: "rejected",
        hedgeId: null,
        errorCode: "hedge_exists",
        message: "Use Add to grow it.",
        loggedAt: "2025-01-31T10:00:00.000Z",
        account: null,
      }),
    ).toBe("Row 7 · Open buy USDTNGN · Rejected (hedge_exists) · Use Add to grow it.");
    const filled = {
      idempotencyKey: "k",
      rowNumber: null,
      action: "open" as const,
      market: "USDTNGN",
      side: "sell" as const,
      notional: 1,
      status: "filled" as const,
      hedgeId: "h",
      errorCode: null,
      parkedFor: null,
      loggedAt: "2025-01-31T10:00:00.000Z",
      account: null,
    };
    expect(rowStatusText({ ...filled, message: "Filled." })).toBe("Resumed · Open sell USDTNGN · Filled");
    expect(rowStatusText({ ...filled, message: "Filled at 1502.3500" })).toBe("Resumed · Open sell USDTNGN · Filled · Filled at 1502.3500");
  });
});

describe("preview that scales", () => {
  test("totals say how many rows are priced; the progress line counts rows and quote requests; a cancel says so", () => {
    const priced = openLine(2);
    const waiting = openLine(3, { quote: null, collateralUsdc: 0, carryUsdc: 0 });
    const p = preview([priced, waiting], {
      totals: { rows: 2, priced: 1, notionalUsd: 100_000, collateralUsdc: 10_010, carryUsdc: 8.4, marginBackUsdc: 0 },
      quoteRequests: 1,
      rolls: [],
    });
    expect(previewTotals(p)[0]).toEqual({ label: "Rows", value: "1 of 2 priced (totals cover these)" });
    expect(pricingText(p, false)).toBe("Pricing: 1 of 2 rows priced (1 quote asked)…");
    expect(pricingText({ ...p, cancelled: true }, true)).toBe("Cancelled: priced 1 of 2 rows.");
  });

  test("a duplicate says which earlier row it matched and why it counts", () => {
    expect(
      duplicateText({
        idempotencyKey: "2b1f0c3e-aaaa-bbbb",
        loggedAt: "2024-10-15T09:00:00.000Z",
        status: "closed",
        hedgeId: "hdg_1",
        reason: "same_hedge",
      }),
    ).toBe("Already in the log on the same hedge: the row logged 2024-10-15 09:00:00 UTC (closed, key 2b1f0c3e…, hedge hdg_1).");
  });

  test("the read summary and the LIVE dialog say how many hidden rows were skipped", () => {
    const read: ReadResult = {
      action: "open",
      sheetName: "Exposures",
      address: "Exposures!A1:E9",
      tableName: "Deals",
      columns: {},
      hiddenRowsSkipped: 1,
      rows: [row(2)],
      problems: [],
      blankRows: [],
    };
    expect(readSummary(read).headline).toBe("1 row ready from table Deals, 1 hidden row skipped (not sent).");
    expect(confirmation("production", "open", 1, 100_000, 1).dialog).toBe(
      "LIVE environment — production money. Open 1 row, total notional 100,000.00 USD. 1 hidden row was skipped (filtered out or hidden in Excel) and will not be sent. Send these orders?",
    );
    expect(confirmation("production", "open", 1, 100_000).dialog).not.toMatch(/hidden/);
  });
});

describe("unfinished rows", () => {
  const status = (key: string, over: Partial<RowStatus> = {}): RowStatus => ({
    idempotencyKey: key,
    rowNumber: null,
    action: "add",
    market: "USDTNGN",
    side: "buy",
    notional: 50_000,
    status: "submitting",
    hedgeId: "hdg_1",
    errorCode: null,
    message: null,
    parkedFor: null,
    loggedAt: "2026-11-20T10:15:03.000Z",
    account: "0xabc",
    ...over,
  });
  const item = (key: string, step: ResumeItem["step"], over: Partial<ResumeItem> = {}): ResumeItem => ({
    row: status(key),
    owner: "mine",
    serviceSays: "Hedge hdg_1 is filled at 100,000.00 USD.",
    step,
    detail: "why",
    ...over,
  });
  const plan = (items: ResumeItem[], over: Partial<ResumePlan> = {}): ResumePlan => ({
    items,
    unusable: [],
    otherAccounts: 0,
    missing: [],
    otherWorkbooks: [],
    copied: null,
    ...over,
  });
  const none = { resumed: false, claimed: new Set<string>(), decisions: [], waits: [] };

  test("before Resume: every row with what the service shows and what Resume will do; nothing is sent until Resume", () => {
    const view = unfinishedView(plan([item("a", "record"), item("b", "send"), item("c", "decide")], { otherAccounts: 2 }), none);
    expect(view.headline).toBe(
      "3 unfinished rows from an earlier session, with what the service shows. Nothing is sent until you press Resume. 2 unfinished rows of another account or environment are left alone.",
    );
    expect(view.rows.map((r) => [r.title, r.meta, r.next, r.decide])).toEqual([
      ["Add buy USDTNGN 50,000.00 USD", "Logged 2026-11-20 10:15:03 UTC · Not confirmed", "Resume records what the service shows.", false],
      ["Add buy USDTNGN 50,000.00 USD", "Logged 2026-11-20 10:15:03 UTC · Not confirmed", "Resume sends it (it was never sent).", false],
      ["Add buy USDTNGN 50,000.00 USD", "Logged 2026-11-20 10:15:03 UTC · Not confirmed", "Needs your decision: why", true],
    ]);
    // Rows needing a decision are not in the Resume count.
    expect([view.resumeCount, view.resumeLabel]).toEqual([2, "Resume 2 rows"]);
  });

  test("another workbook's unfinished rows are named with that workbook, never offered for this log, and alone make the list worth showing", () => {
    const p = plan([], {
      otherWorkbooks: [
        { row: status("x", { action: "open", notional: 4_250_000 }), workbookName: "Client A hedges.xlsx" },
        { row: status("y"), workbookName: null },
      ],
    });
    const view = unfinishedView(p, none);
    expect(view.empty).toBe(false);
    expect(view.missing).toBeNull();
    expect(view.otherWorkbooks?.keys).toEqual(["x", "y"]);
    expect(view.otherWorkbooks?.text).toBe(
      "From another workbook: 2 unfinished rows this computer journalled in another workbook, which is not written here (open that workbook to resume them): " +
        "Open buy USDTNGN 4,250,000.00 USD (logged 2026-11-20 10:15:03 UTC, in “Client A hedges.xlsx”); Add buy USDTNGN 50,000.00 USD (logged 2026-11-20 10:15:03 UTC, in a workbook never saved).",
    );
    expect(unfinishedView(p, { ...none, resumed: true }).otherWorkbooks).toBeNull();
  });

  test("a copy's rows (this workbook id under another file name) are asked about, naming both files, and alone make the list worth showing", () => {
    const p = plan([], {
      copied: {
        fileName: "Hedges copy.xlsx",
        rows: [{ row: status("o", { action: "open", notional: 4_250_000 }), workbookName: "Hedges.xlsx" }],
      },
    });
    const view = unfinishedView(p, none);
    expect(view.empty).toBe(false);
    expect(view.missing).toBeNull();
    expect(view.copied).toEqual({
      text:
        "This file, “Hedges copy.xlsx”, carries the same workbook id as “Hedges.xlsx”: one is a copy of the other (Save As, or a copied file). " +
        "This computer's journal has 1 row of “Hedges.xlsx” that this Hedge Log does not: Open buy USDTNGN 4,250,000.00 USD (sending, logged 2026-11-20 10:15:03 UTC). " +
        "Nothing of it is written into “Hedges copy.xlsx” unless you say it belongs here.",
      keys: ["o"],
    });
    expect(unfinishedView(plan([]), none).copied).toBeNull();
  });

  test.each([
    [
      "under the same name",
      "Hedges.xlsx",
      "Hedges.xlsx",
      "This file, “Hedges.xlsx”, carries the workbook id of “Hedges.xlsx”, but its Hedge Log holds none of the rows this computer wrote into that workbook: it is a copy (saved before them, or kept elsewhere under the same name), another file given that id, or that workbook saved before its first row and then closed without saving. " +
        "This computer's journal has 1 row of “Hedges.xlsx” that this Hedge Log does not: Open buy USDTNGN 4,250,000.00 USD (sending, logged 2026-11-20 10:15:03 UTC). " +
        "Nothing of it is written into “Hedges.xlsx” unless you say it belongs here.",
    ],
    [
      "in a file never saved",
      "",
      "Hedges.xlsx",
      "This file (never saved) carries the same workbook id as “Hedges.xlsx”: one is a copy of the other (Save As, or a copied file). " +
        "This computer's journal has 1 row of “Hedges.xlsx” that this Hedge Log does not: Open buy USDTNGN 4,250,000.00 USD (sending, logged 2026-11-20 10:15:03 UTC). " +
        "Nothing of it is written into this file unless you say it belongs here.",
    ],
    [
      "both never saved",
      "",
      "",
      "This file, never saved, carries the workbook id of a workbook never saved, but its Hedge Log holds none of the rows this computer wrote into that workbook: it is a copy (saved before them, or kept elsewhere under the same name), another file given that id, or that workbook saved before its first row and then closed without saving. " +
        "This computer's journal has 1 row of a workbook never saved that this Hedge Log does not: Open buy USDTNGN 4,250,000.00 USD (sending, logged 2026-11-20 10:15:03 UTC). " +
        "Nothing of it is written into this file unless you say it belongs here.",
    ],
  ])(
    "a copy's rows %s (its log holds none of this computer's rows of the workbook: issue 40) are asked about",
    (_how, fileName, workbookName, text) => {
      const p = plan([], { copied: { fileName, rows: [{ row: status("o", { action: "open", notional: 4_250_000 }), workbookName }] } });
      expect(unfinishedView(p, none).copied).toEqual({ text, keys: ["o"] });
    },
  );

  test("a row without an account is resumed only once claimed", () => {
    const p = plan([item("a", "send", { owner: "unclaimed" })]);
    expect(unfinishedView(p, none).rows[0]).toMatchObject({
      claimable: true,
      claimed: false,
      next: "Not resumed unless you tick that it is this account's.",
    });
    expect(unfinishedView(p, none).resumeCount).toBe(0);
    const claimed = unfinishedView(p, { ...none, claimed: new Set(["a"]) });
    expect([claimed.resumeCount, claimed.rows[0].next]).toEqual([1, "Resume sends it (it was never sent)."]);
  });

  test("after Resume: the rows needing a decision, with what the service shows, and the side that waits on them", () => {
    const waiting = status("a", {
      status: "needs_decision",
      message:
        'Needs your decision: Hedge hdg_1 is filled at 90,000.00 USD. Choose "It was done" or "It was not done" under Unfinished rows.',
      parkedFor: "Hedge hdg_1 is filled at 90,000.00 USD.",
    });
    const closing = status("c", { action: "close", notional: null, status: "submitting" });
    const view = unfinishedView(plan([item("a", "decide")]), {
      resumed: true,
      claimed: new Set(),
      decisions: [waiting],
      waits: [{ market: "USDTNGN", side: "buy", row: waiting, queued: 1, next: closing, reason: "needs_decision" }],
    });
    expect(view.headline).toBe("1 row needs your decision: the service cannot tell whether it took effect.");
    expect(view.rows).toEqual([
      expect.objectContaining({ key: "a", decide: true, serviceSays: "Hedge hdg_1 is filled at 90,000.00 USD." }),
    ]);
    expect(view.waits).toEqual([
      "USDTNGN buy waits on: Add buy USDTNGN 50,000.00 USD logged 2026-11-20 10:15:03 UTC (needs your decision; 1 more row queued).",
    ]);
    // The Close chosen meanwhile says what it waits for, and offers the decision in place.
    expect(view.waitLines).toEqual([
      {
        text: "Close buy USDTNGN whole position waits for your decision on Add buy USDTNGN 50,000.00 USD logged 2026-11-20 10:15:03 UTC: decide it here.",
        decide: expect.objectContaining({ key: "a", decide: true }),
      },
    ]);
    expect(unfinishedView(null, { ...none, resumed: true }).empty).toBe(true);
  });

  test("a row parked where only its Message says why (another computer, an older version) shows its Message as it is", () => {
    const message = "Needs your decision: asked on another computer.";
    const elsewhere = status("e", { status: "needs_decision", message, parkedFor: null });
    const view = unfinishedView(null, { resumed: true, claimed: new Set(), decisions: [elsewhere], waits: [] });
    expect(view.rows).toEqual([expect.objectContaining({ key: "e", decide: true, serviceSays: message })]);
    const silent = status("s", { status: "needs_decision", message: null, parkedFor: null });
    expect(unfinishedView(null, { resumed: true, claimed: new Set(), decisions: [silent], waits: [] }).rows[0].serviceSays).toBe("");
  });

  test("each decision is confirmed in words that say nothing is sent; Resume with a LIVE key asks twice", () => {
    const [r] = unfinishedView(plan([item("a", "decide")]), none).rows;
    expect(decisionConfirmation(r, "done")).toEqual({
      text: "Record “Add buy USDTNGN 50,000.00 USD” as done? The Hedge Log takes what the service shows for it, with your decision and the time. Nothing is sent.",
      button: "Confirm: it was done",
    });
    expect(decisionConfirmation(r, "not_done").button).toBe("Confirm: it was not done");
    expect(resumeConfirmation("sandbox", 2)).toEqual({ steps: 1, dialog: null });
    expect(resumeConfirmation("production", 2)).toMatchObject({
      steps: 2,
      dialog: expect.stringMatching(/^LIVE environment — production money\. Resume 2 unfinished rows/),
    });
  });

  test("rows of this computer's journal missing from the log are offered back; rows the add-in never sends say why", () => {
    const view = unfinishedView(
      plan([], {
        missing: [status("m", { status: "filled", action: "open", notional: 10_000 })],
        unusable: [
          {
            loggedAt: "2026-11-20T10:15:03.000Z",
            action: "open",
            market: "USDTNGN",
            side: "buy",
            idempotencyKey: "",
            status: "submitting",
            reason: "Never sent by the add-in: its Idempotency key is empty.",
          },
        ],
      }),
      none,
    );
    expect(view.missing?.text).toMatch(/^This computer's journal has 1 recent row of this account that this workbook's Hedge Log does not/);
    expect(view.missing?.keys).toEqual(["m"]);
    expect(view.unusable).toEqual([
      "open buy USDTNGN, logged 2026-11-20 10:15:03 UTC: Never sent by the add-in: its Idempotency key is empty.",
    ]);
  });
});
