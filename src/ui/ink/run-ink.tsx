// The live area on a terminal, drawn by Ink: mounted once Ink has loaded, while the scrollback carries the rest.
// This module is the only one that loads Ink and React, so nothing waits for them before the first lines appear.
import { render, useStdout } from "ink";
import { type ReactNode, useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from "react";
import { isTerminal } from "../../core/task/task.js";
import type { Io } from "../../io/io.js";
import type { ModelStore } from "../model-store.js";
import type { Scrollback } from "../scrollback.js";
import { LiveArea, type ScreenProps } from "./components.js";
import { clockMayRedraw, guardReflow } from "./reflow.js";

export interface LiveOptions {
  store: ModelStore;
  scrollback: Scrollback;
  onAnswer: ScreenProps["onAnswer"];
  onInterrupt(): void;
  /** Replaces the live area (tests use it to crash one). */
  Screen?: (props: ScreenProps) => ReactNode;
}

export interface MountedLive {
  /** Settles when Ink has gone: resolves after `close`, rejects when the screen crashed. */
  exited: Promise<unknown>;
  /** Erases the live area and leaves Ink; the cursor is where the area began. */
  close(): void;
}

function Live({
  store,
  scrollback,
  onAnswer,
  onInterrupt,
  columns,
  rows,
  resizedAt,
  Screen = LiveArea,
}: LiveOptions & Size) {
  const model = useSyncExternalStore(store.subscribe, store.get);
  const { write } = useStdout();
  // While the area is drawn, lines for the scrollback go through Ink: it erases the area, writes them, draws again.
  useLayoutEffect(() => {
    scrollback.route(write);
    return () => scrollback.route(undefined);
  }, [scrollback, write]);
  const lastResize = useRef(resizedAt);
  lastResize.current = resizedAt;
  const [now, setNow] = useState(Date.now());
  const ended = model.task !== undefined && isTerminal(model.task.state);
  useEffect(() => {
    if (ended) return;
    // Not just after a resize: the terminal may have taken a later one that this process hears of only later.
    const tick = setInterval(() => {
      if (clockMayRedraw(Date.now(), lastResize.current)) setNow(Date.now());
    }, 250);
    return () => clearInterval(tick);
  }, [ended]);
  return <Screen model={model} now={now} columns={columns} rows={rows} onAnswer={onAnswer} onInterrupt={onInterrupt} />;
}

/** The terminal's size, given as props: a resize re-renders the area at once (mountLive). */
interface Size {
  columns: number;
  /** The real height (undefined where it has none: the area is then not cut); the stream Ink draws on hides it. */
  rows: number | undefined;
  /** When the last resize was heard (Date.now()), if one was. */
  resizedAt: number | undefined;
}

export function mountLive(options: LiveOptions, io: Io): MountedLive {
  const terminal = guardReflow(io.stdout);
  let resizedAt: number | undefined;
  const live = () => (
    <Live {...options} columns={io.stdout.columns || 80} rows={io.stdout.rows || undefined} resizedAt={resizedAt} />
  );
  const instance = render(live(), {
    stdin: io.stdin,
    stdout: terminal.stdout,
    stderr: io.stderr,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  // The area re-renders at the new size before Ink hears of the resize, in one go (Ink's rerender is synchronous):
  // the frame Ink draws on the resize is then the final one, with no second frame a moment later that a further
  // resize, held back by tmux, could catch (src/ui/ink/reflow.ts, beforeRedraw).
  const stopSizing = terminal.beforeRedraw(() => {
    resizedAt = Date.now();
    instance.rerender(live());
  });
  const exited = instance.waitUntilExit().finally(() => {
    stopSizing();
    terminal.dispose();
  });
  exited.catch(() => {});
  return {
    exited,
    close() {
      options.scrollback.route(undefined);
      instance.clear();
      instance.unmount();
    },
  };
}
