// A trade's answer over real HTTP from the sandbox, rewritten on its way: a form the spec leaves open is read and the row goes on; an answer no reading allows leaves the row unknown until the service is asked, and nothing is sent twice.
import { fetchTransport, type HttpTransport } from "../../../src/api/transport";
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { defaultAccounts } from "../../../src/sandbox/accounts";
import { DEMO_API_KEY } from "../../../src/sandbox/demo";
import type { RunningSandbox } from "../../../src/sandbox/server";
import type { CellValue } from "../../../src/trading/cells";
import { serviceState, start } from "../../sandbox/helpers";
import { sandboxWorld } from "../../support/sandbox-world";

const HEADER = ["Market", "Side", "Notional", "Tenor", "Client reference"];

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start({ accounts: defaultAccounts(), fillMs: 150 });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

/** The sandbox's answers to POST /v2/hedges with `data` rewritten by `rewrite`; every request's method and path recorded. */
function rewriting(rewrite: (data: Record<string, unknown>) => Record<string, unknown>) {
  const sent: string[] = [];
  const transport: HttpTransport = async (request) => {
    const path = new URL(request.url).pathname;
    sent.push(`${request.method} ${path}${new URL(request.url).search}`);
    const response = await fetchTransport(request);
    if (request.method !== "POST" || path !== "/v2/hedges" || response.status !== 200) return response;
    const envelope = JSON.parse(response.body) as { data: Record<string, unknown> };
    return { ...response, header: response.header, body: JSON.stringify({ ...envelope, data: rewrite(envelope.data) }) };
  };
  return { transport, sent };
}

async function openOne(rewrite: (data: Record<string, unknown>) => Record<string, unknown>) {
  const grid: CellValue[][] = [HEADER, ["USDTNGN", "buy", 10_000, 7, "ODD-1"]];
  const { transport, sent } = rewriting(rewrite);
  const { workbook, desk: deskOf } = sandboxWorld(sb, DEMO_API_KEY, {
    clientOptions: { transport },
    workbook: new MemoryWorkbook({ sheets: { Exposures: grid } }).select("Exposures", "A2:E2"),
    intentStore: null,
  });
  const desk = await deskOf();
  const read = await desk.readRows("open");
  const outcome = await desk.send(await desk.preview("open", read.rows));
  await desk.settled(30_000);
  desk.stop();
  const service = await serviceState(sb, DEMO_API_KEY);
  const posts = sent.filter((s) => s.startsWith("POST /v2/hedges"));
  return { first: outcome.rows[0], log: await workbook.readLog(), service, posts, sent };
}

describe("a trade's answer in a form the spec leaves open, or in none", () => {
  it("a settlement date alone is read: the row is accepted at once and filled, one request, one hedge", async () => {
    const { first, log, service, posts } = await openOne((data) => ({ ...data, maturity_at: String(data.maturity_at).slice(0, 10) }));
    expect(first).toMatchObject({ status: "submitted", errorCode: null });
    expect(posts).toHaveLength(1);
    expect(service.hedges).toHaveLength(1);
    expect(log[0]).toMatchObject({ status: "filled", hedgeId: service.hedges[0].id });
  }, 60_000);

  it("an answer no reading allows (maturity_at 29/11/2026) after the service acted: unknown, the service asked, then filled; never sent twice", async () => {
    const { first, log, service, posts, sent } = await openOne((data) => ({ ...data, maturity_at: "29/11/2026" }));
    expect(first).toMatchObject({ status: "submitting", errorCode: "invalid_response" });
    expect(first.message).toMatch(/^Outcome unknown \(invalid_response\): POST \/hedges answered with an unexpected data\.maturity_at/);
    expect(first.message).toMatch(/do not send it again yourself/);
    expect(posts).toHaveLength(1);
    // Judged by the service: its hedges with the row's client reference were asked for after the send.
    expect(sent.slice(sent.indexOf(posts[0])).some((s) => s.startsWith("GET /v2/hedges?") && s.includes("client_reference=ODD-1"))).toBe(
      true,
    );
    expect(service.hedges).toHaveLength(1);
    expect(log[0]).toMatchObject({ status: "filled", hedgeId: service.hedges[0].id, clientReference: "ODD-1" });
  }, 60_000);
});
