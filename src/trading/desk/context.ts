// What the desk's parts share: one row's tracking state, and the desk context (client, journal, account, clock, life signal, state changes) each part is built with.
import type { Environment } from "../../api/environment";
import type { HedgingClient } from "../../api/client";
import type { Journal } from "../journal";
import type { Intent, IntentPatch } from "../intent";
import type { OpenedHedges } from "../fills";

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

/** The desk as its parts see it. */
export interface DeskContext {
  readonly client: HedgingClient;
  readonly environment: Environment;
  readonly journal: Journal;
  /** account_address of the key's account (known before the desk is built). */
  readonly account: string | null;
  readonly concurrency: number;
  now(): Date;
  /** The desk's life: aborted by stop(); every request the desk has out stops with it. */
  life(): AbortSignal;
  /** Moves a row (journal and log) and tells the listeners when anything changed. */
  move(intent: Intent, patch: IntentPatch): void;
  /** Something changed: wake whoever waits on the desk's state. */
  changed(): void;
  report(e: unknown): void;
  startFillPolling(): void;
  /** Hedges the journal ties to an Open row (read only when an Open without a hedge id is judged by its client reference). */
  openedHedges(): OpenedHedges;
  /** For each row, the next row of its side that found the hedge (verdict.ts's chain), over every row the desk knows now. */
  chain(): (intent: Intent) => Intent | null;
}

/** "2026-11-25 10:00:00 UTC" */
export const when = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`;
