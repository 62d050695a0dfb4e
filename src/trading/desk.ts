// createDesk: the TradingDesk facade the pane calls (read rows, preview, send, resume, fill polling).
import type { DeskOptions, TradingDesk } from "./types";

/** Builds the desk over a client and a workbook. See TradingDesk in ./types for the calls and their order. */
export function createDesk(options: DeskOptions): TradingDesk {
  void options;
  throw new Error("createDesk: the trading engine is being built (interface only in this commit).");
}
