// Task pane entry: runs the pane's start (pane-start.ts, in this entry's files but evaluated only then) once the saved start's first answers are in, so the first values are not held behind the pane's code on the one main thread (src/functions/README.md "When the page starts").
import { savedStartAnswered } from "../feeds/saved-start";
import { sharedHub } from "../feeds/shared";

/**
 * How long the pane waits at most for the saved start's first answers (the key's check and the cells' first polls)
 * before it runs anyway: a slow service delays the pane by no more than this.
 */
const FIRST_ANSWERS_WAIT_MS = 500;

void savedStartAnswered(sharedHub(), FIRST_ANSWERS_WAIT_MS)
  // "eager": no file of its own (it is loaded with the page, counted in its budget); only its evaluation waits.
  .then(async (answered) => {
    const pane = await import(/* webpackMode: "eager" */ "./pane-start");
    await pane.main({ answered });
  });
