// View models of the overview and the trade panel: what the user reads in the pane.
import { badgeModel } from "../../src/taskpane/environment-badge";
import { overviewModel } from "../../src/taskpane/overview-model";
import {
  confirmation,
  previewRows,
  previewTotals,
  progressModel,
  readSummary,
  rowStatusText,
  sendPlan,
} from "../../src/taskpane/trade-model";
import type { ReadResult } from "../../src/trading/types";
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
    expect(previewRows(p)[1].duplicate).toBe("Already in the log (filled, logged 2025-01-30 09:00:00 UTC).");
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
      loggedAt: "2025-01-31T10:00:00.000Z",
      account: null,
    };
    expect(rowStatusText({ ...filled, message: "Filled." })).toBe("Resumed · Open sell USDTNGN · Filled");
    expect(rowStatusText({ ...filled, message: "Filled at 1502.3500" })).toBe("Resumed · Open sell USDTNGN · Filled · Filled at 1502.3500");
  });
});
