// Task pane entry (placeholder): waits for Office to be ready; the real pane replaces this file and mounts into #app.
Office.onReady(() => {
  // The pane UI is not written yet.
});
