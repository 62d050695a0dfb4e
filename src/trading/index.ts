// The public surface of src/trading: the desk facade and its types.
export * from "./types";
export { createDesk } from "./desk";
