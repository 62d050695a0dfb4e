// functions.json as the build generates it from functions.ts: every HEDGE function with its id, parameters, help text, stream flag and result shape.
import { resolve } from "node:path";
import { generateCustomFunctionsMetadata } from "custom-functions-metadata";
import { checkRangeParameters } from "../../src/devtools/manifest-check";

interface Param {
  name: string;
  description?: string;
  optional?: boolean;
  type?: string;
  dimensionality?: string;
}
interface FunctionMeta {
  id: string;
  name: string;
  description?: string;
  parameters: Param[];
  options?: { stream?: boolean; volatile?: boolean };
  result: { dimensionality?: string; type?: string };
}

/** [id, parameters (optional ones in brackets), spill?] as the function table names them. */
const EXPECTED: Array<[string, string[], boolean]> = [
  ["PRICE", ["market"], false],
  ["QUOTE", ["market", "side", "notional_usd", "tenor_days", "[field]"], true],
  ["POSITIONS", ["[market]", "[side]"], true],
  ["ACCOUNT", ["[field]"], true],
  ["MARKETS", [], true],
  ["CAPACITY", ["market", "side"], false],
  ["CARRY", ["market", "side"], false],
  ["HEDGES", ["[status]", "[client_reference]", "[limit]"], true],
  ["HEDGE", ["hedge_id", "[field]"], true],
  ["STATUS", [], true],
  ["HISTORY", ["[from]", "[to]"], true], // added by the month-end work (src/functions/history.ts)
  ["TARGET", ["exposures", "policy", "[positions]", "[as_of]"], true], // hedge to target (src/functions/target.ts)
  ["ROLLCOST", ["market", "side", "notional_usd", "days", "[tenor_days]", "[roll]", "[roll_within_hours]", "[max_trade_usd]"], true], // the cost of a program (src/functions/rollcost.ts)
];

let functions: FunctionMeta[];
let errors: string[];

beforeAll(async () => {
  const generated = await generateCustomFunctionsMetadata(resolve(__dirname, "../../src/functions/functions.ts"));
  errors = generated.errors;
  functions = generated.metadataJson ? (JSON.parse(generated.metadataJson) as { functions: FunctionMeta[] }).functions : [];
});

test("the generator reports no errors", () => {
  expect(errors).toEqual([]);
});

test.each(EXPECTED)("%s: id, parameters, descriptions, streaming and result shape", (id, params, spill) => {
  const f = functions.find((x) => x.id === id);
  expect(f).toBeDefined();
  const meta = f as FunctionMeta;
  expect(meta.name).toBe(id);
  expect(meta.description?.length).toBeGreaterThan(20);
  expect(meta.options?.stream).toBe(true);
  expect(meta.result.dimensionality ?? "scalar").toBe(spill ? "matrix" : "scalar");
  if (!spill) expect(meta.result.type).toBe("number");
  expect(meta.parameters.map((p) => (p.optional ? `[${p.name}]` : p.name))).toEqual(params);
  for (const p of meta.parameters) expect(p.description?.length).toBeGreaterThan(5);
});

test("ids are upper case and unique; nothing but the listed functions and VERSION is exported to Excel", () => {
  const ids = functions.map((f) => f.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) expect(id).toBe(id.toUpperCase());
  expect(ids.sort()).toEqual([...EXPECTED.map(([id]) => id), "VERSION"].sort());
});

test("VERSION is volatile (recalculated with the workbook, so it shows the running version after an update) and does not stream", () => {
  const version = functions.find((f) => f.id === "VERSION");
  expect(version?.options?.volatile).toBe(true);
  expect(version?.options?.stream).toBeUndefined();
  for (const f of functions.filter((x) => x.id !== "VERSION")) expect(f.options?.volatile).toBeUndefined();
});

test("every parameter that takes a range is a matrix (Excel passes a range whole only to a matrix parameter), the optional positions too", () => {
  const target = functions.find((f) => f.id === "TARGET") as FunctionMeta;
  expect(target.parameters.map((p) => [p.name, p.dimensionality ?? "scalar"])).toEqual([
    ["exposures", "matrix"],
    ["policy", "matrix"],
    ["positions", "matrix"],
    ["as_of", "scalar"],
  ]);
  const problems: string[] = [];
  checkRangeParameters(functions, (_code, message) => problems.push(message));
  expect(problems).toEqual([]);
});
