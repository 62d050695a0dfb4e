// The pane's visibility: Office's visibility-mode event and the page's visibility together, and hosts that lack either.
import { ManualVisibility, paneVisibility, type AddinVisibilityEvents, type PageVisibility } from "../../src/feeds/visibility";

function fakeAddin() {
  let handler: ((message: { visibilityMode: string }) => void) | null = null;
  const addin: AddinVisibilityEvents = {
    onVisibilityModeChanged(h) {
      handler = h;
      return Promise.resolve(() => Promise.resolve());
    },
  };
  return { addin, emit: (visibilityMode: string) => handler?.({ visibilityMode }) };
}

function fakePage(state = "visible") {
  const listeners: Array<() => void> = [];
  const page: PageVisibility & { visibilityState: string } = {
    visibilityState: state,
    addEventListener: (_type, listener) => void listeners.push(listener),
  };
  return {
    page,
    set(next: string) {
      page.visibilityState = next;
      for (const l of listeners) l();
    },
  };
}

test("visible while Office shows the pane and the page is not hidden; each change is told once", () => {
  const { addin, emit } = fakeAddin();
  const { page, set } = fakePage();
  const v = paneVisibility(addin, page);
  const seen: boolean[] = [];
  v.onChange((x) => seen.push(x));
  expect(v.visible).toBe(true);
  emit("Hidden");
  expect(v.visible).toBe(false);
  set("hidden"); // still hidden: nothing new to tell
  emit("Taskpane");
  expect(v.visible).toBe(false); // the page is still hidden
  set("visible");
  expect(v.visible).toBe(true);
  expect(seen).toEqual([false, true]);
});

test("a page that starts hidden (the shared runtime started with the workbook) is not visible until shown", () => {
  const { page, set } = fakePage("hidden");
  const v = paneVisibility(fakeAddin().addin, page);
  expect(v.visible).toBe(false);
  set("visible");
  expect(v.visible).toBe(true);
});

test("a host without the visibility event (or one that throws) leaves the page's visibility to decide", () => {
  const throwing: AddinVisibilityEvents = {
    onVisibilityModeChanged: () => {
      throw new Error("SharedRuntime 1.1 not supported");
    },
  };
  const { page, set } = fakePage();
  const v = paneVisibility(throwing, page);
  expect(v.visible).toBe(true);
  set("hidden");
  expect(v.visible).toBe(false);
  expect(paneVisibility(null, null).visible).toBe(true);
});

test("ManualVisibility tells its listeners until they stop listening", () => {
  const v = new ManualVisibility(false);
  const seen: boolean[] = [];
  const stop = v.onChange((x) => seen.push(x));
  v.set(true);
  v.set(true);
  stop();
  v.set(false);
  expect(seen).toEqual([true]);
});
