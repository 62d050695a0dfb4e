// The shared runtime's one feed hub, over the one connection: the custom functions and the pane subscribe to it.
import { connection } from "./connection";
import { FeedHub } from "./hub";

let hub: FeedHub | null = null;

/** The hub every cell and the pane share (created on first use, polling through `connection`). */
export function sharedHub(): FeedHub {
  if (!hub) hub = new FeedHub({ source: connection });
  return hub;
}

/** Replaces the shared hub (tests and benchmarks drive the functions through their own); the old one is disposed. */
export function setSharedHub(next: FeedHub): FeedHub {
  if (hub && hub !== next) hub.dispose();
  hub = next;
  return next;
}
