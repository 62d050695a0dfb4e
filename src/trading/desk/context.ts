// What the desk's parts share: one row's tracking state, and the desk context (client, journal, account, clock, the desk state) each part is built with.
import type { Environment } from "../../api/environment";
import type { HedgingClient } from "../../api/client";
import type { Journal } from "../journal";
import type { Intent } from "../intent";
import type { OpenedHedges } from "../fills";
import type { DeskState } from "./state";

/** A row this desk works on (sent, resumed or decided in this session). */
export interface Tracking {
  intent: Intent;
  /** Order of the row on its market side (journal order). */
  seq: number;
  /** A step (send or check) is running. */
  busy: boolean;
  /** Not before this time (ms). */
  wakeAt: number;
  /** Journalled by this desk and never sent: its first send needs no question to the service. */
  fresh: boolean;
  /** Attempts in doubt so far (backoff index). */
  attempts: number;
  /** Unknown outcomes / mismatches being counted: since when and how many. */
  doubt: { since: number; rounds: number } | null;
  /** send() waits for this: the first request was answered, or the row stopped (final, waiting, decision). */
  answered: boolean;
  /** The send's abort signal (the pane closing): the row's requests stop with it. */
  signal?: AbortSignal;
  /** The desk's and the send's signal in one (made once per row and desk life). */
  both?: { life: AbortSignal; signal: AbortSignal };
}

/** The desk as its parts see it: what they read, and the desk state they change rows through (never the facade). */
export interface DeskContext {
  readonly client: HedgingClient;
  readonly environment: Environment;
  readonly journal: Journal;
  /** account_address of the key's account (known before the desk is built). */
  readonly account: string | null;
  readonly concurrency: number;
  /** Changing a row, telling progress, the chain's index, the desk's life (state.ts). */
  readonly state: DeskState;
  now(): Date;
  report(e: unknown): void;
  /** Hedges the journal ties to an Open row (read only when an Open without a hedge id is judged by its client reference). */
  openedHedges(): OpenedHedges;
}

/** "2026-11-25 10:00:00 UTC" */
export const when = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`;
