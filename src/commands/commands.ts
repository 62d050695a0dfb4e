// Ribbon command handlers of the shared runtime: "Pause feeds" (ExecuteFunction togglePause in manifest.xml).

/** Asks whoever owns the price feeds to pause or resume them; the feeds listen for "hedge:toggle-pause". */
function togglePause(event: Office.AddinCommands.Event): void {
  try {
    globalThis.dispatchEvent(new CustomEvent("hedge:toggle-pause"));
  } finally {
    event.completed();
  }
}

// Registered at load time (office.js is already loaded by taskpane.html), as ExecuteFunction commands require.
Office.actions.associate("togglePause", togglePause);
