// The API key never lands in the workbook: after a full session (all four actions, a refusal, a lost answer, a resume, a bad key), every cell, format, table name, document setting and custom property is scanned.
import { WORKBOOK_ID_PROPERTY } from "../../src/trading/workbook";
import { defaultAccounts } from "../../src/sandbox/accounts";
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import type { CellValue } from "../../src/trading/cells";
import type { RunningSandbox } from "../../src/sandbox/server";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import { controlOk, start } from "../sandbox/helpers";
import { sandboxWorld } from "../support/sandbox-world";

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start({ accounts: defaultAccounts(), fillMs: 100 });
});
afterAll(() => sb.close());

/** The key, and the parts of it that would still identify it (everything after the prefix, and its last 12 characters). */
function fragments(key: string): string[] {
  return [key, key.slice("svc_test_".length), key.slice(-12)];
}

function leaks(workbook: MemoryWorkbook, key: string): string[] {
  return workbook
    .everything()
    .filter((c) => fragments(key).some((f) => c.value.includes(f)))
    .map((c) => c.where);
}

it("after a full session, no cell, format, table, document setting or custom property holds the key", async () => {
  const grid = (rows: CellValue[][]) => [["Market", "Side", "Notional", "Tenor", "Client reference"], ...rows];
  const {
    workbook,
    client,
    desk: deskOf,
  } = sandboxWorld(sb, DEMO_API_KEY, {
    workbook: new MemoryWorkbook({ sheets: { Exposures: grid([["USDTNGN", "buy", 50_000, 7, "K-1"]]) } }).select("Exposures", "A2:E2"),
    intentStore: null,
  });
  const desk = await deskOf();
  const run = async (action: "open" | "add" | "reduce" | "close", rows: CellValue[][]) => {
    workbook.setSheet("Exposures", grid(rows)).select("Exposures", `A2:E${rows.length + 1}`);
    const preview = await desk.preview(action, (await desk.readRows(action)).rows);
    await desk.send(preview, { sendAgain: true });
    await desk.settled(20_000);
  };
  await controlOk(sb, "POST", "/faults", {
    drop_after_commit: 1,
    rate_limit_next: 2,
    fail_next: { count: 2, path: "/hedges", method: "POST" },
  });
  await run("open", [["USDTNGN", "buy", 50_000, 7, "K-1"]]);
  await run("add", [["USDTNGN", "buy", 5_000, "", "K-1"]]);
  await run("reduce", [["USDTNGN", "buy", 10_000, "", "K-1"]]);
  await run("close", [["USDTNGN", "buy", "", "", "K-1"]]);

  // A refusal with the service's message in the log.
  workbook.setSheet("Exposures", grid([["USDTNGN", "sell", 5_000, 1, "K-2"]])).select("Exposures", "A2:E2");
  const stale = await desk.preview("open", (await desk.readRows("open")).rows);
  await client.open({ market: "USDTNGN", side: "sell", notional_usd: 1_000, tenor_days: 1, client_reference: "elsewhere" });
  await desk.send(stale);
  await desk.settled(20_000);

  // A resume in a new desk.
  await (await sandboxWorld(sb, DEMO_API_KEY, { workbook, intentStore: null }).desk()).resume();

  // A bad key: its errors must not be written anywhere either.
  const bad = "svc_test_this_key_was_revoked_9999";
  // (the desk is built only once GET /account proved the key: a revoked one fails there)
  await expect(sandboxWorld(sb, bad, { workbook, intentStore: null }).desk()).rejects.toMatchObject({ code: "invalid_api_key" });

  const log = await workbook.readLog();
  expect(log.map((r) => [r.action, r.status])).toEqual([
    ["open", "filled"],
    ["add", "filled"],
    ["reduce", "filled"],
    ["close", "closed"],
    ["open", "rejected"],
  ]);
  expect(log[4].message).toMatch(/already open/);
  expect(workbook.everything().length).toBeGreaterThan(5 * 17); // the scan saw the whole log
  expect(leaks(workbook, DEMO_API_KEY)).toEqual([]);
  expect(leaks(workbook, bad)).toEqual([]);
  // The engine writes no document setting, and one custom property (both are saved inside the .xlsx): the workbook's random id.
  expect([...workbook.documentSettings.keys()]).toEqual([]);
  expect(Object.fromEntries(workbook.customProperties)).toEqual({ [WORKBOOK_ID_PROPERTY]: expect.stringMatching(/^wb-[0-9a-f-]{32,36}$/) });
});

it("the scan finds the key when it is there (the check can fail)", () => {
  const workbook = new MemoryWorkbook({ sheets: { Notes: [["pasted by mistake: " + DEMO_API_KEY]] } });
  workbook.documentSettings.set("hedge", DEMO_API_KEY.slice(-12));
  expect(leaks(workbook, DEMO_API_KEY)).toEqual(["Notes!A1", "document setting hedge"]);
});
