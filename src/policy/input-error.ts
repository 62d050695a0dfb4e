// The error of a bad policy or exposures input (a cell, a range, a Max trade that would split too far): its message names the range, the row, the column and the fix.

/** A bad input: the message names the range, the row, the column and the fix. */
export class TargetInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TargetInputError";
  }
}
