// Whether the pane can be seen: the port the pane's feeds follow (they poll only while it is visible), a hand-set implementation, and one fed by Office's add-in visibility event and the page's visibility.

export interface Visibility {
  readonly visible: boolean;
  /** Called with the new value each time it changes; returns the function that stops listening. */
  onChange(listener: (visible: boolean) => void): () => void;
}

/** A visibility set by hand: tests, and hosts that say nothing. */
export class ManualVisibility implements Visibility {
  private readonly listeners = new Set<(visible: boolean) => void>();

  constructor(private current = true) {}

  get visible(): boolean {
    return this.current;
  }

  set(visible: boolean): void {
    if (visible === this.current) return;
    this.current = visible;
    for (const listener of [...this.listeners]) listener(visible);
  }

  onChange(listener: (visible: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** The part of Office.addin read here (SharedRuntime 1.1); the entry file taskpane.ts passes `Office.addin`. */
export interface AddinVisibilityEvents {
  onVisibilityModeChanged(handler: (message: { visibilityMode: string }) => void): Promise<unknown>;
}

/** The part of `document` read here. */
export interface PageVisibility {
  readonly visibilityState: string;
  addEventListener(type: "visibilitychange", listener: () => void): void;
}

/**
 * Visible while Office shows the task pane (`Office.addin.onVisibilityModeChanged`: "Taskpane", not "Hidden") and the
 * page itself is not hidden (`document.visibilityState`, e.g. a minimised window). Office does not tell the mode at
 * start, so until its first event the pane counts as shown when its page is visible. Either source may be missing
 * (a host without SharedRuntime 1.1, a test): the other one decides.
 */
export function paneVisibility(addin: AddinVisibilityEvents | null | undefined, page: PageVisibility | null | undefined): Visibility {
  let paneShown = true;
  let pageShown = page ? page.visibilityState !== "hidden" : true;
  const visibility = new ManualVisibility(paneShown && pageShown);
  const update = () => visibility.set(paneShown && pageShown);
  try {
    const registered = addin?.onVisibilityModeChanged((message) => {
      paneShown = message.visibilityMode !== "Hidden";
      update();
    });
    registered?.catch(() => undefined);
  } catch {
    // The host has no visibility event: the page's visibility alone decides.
  }
  page?.addEventListener("visibilitychange", () => {
    pageShown = page.visibilityState !== "hidden";
    update();
  });
  return visibility;
}
