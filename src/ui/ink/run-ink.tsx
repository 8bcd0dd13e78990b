// The live area on a terminal, drawn by Ink: mounted once Ink has loaded, while the scrollback carries the rest.
// This module is the only one that loads Ink and React, so nothing waits for them before the first lines appear.
import { render, useStdout } from "ink";
import { type ReactNode, useEffect, useLayoutEffect, useState, useSyncExternalStore } from "react";
import { isTerminal } from "../../core/task/task.js";
import type { Io } from "../../io/io.js";
import type { ModelStore } from "../model-store.js";
import type { Scrollback } from "../scrollback.js";
import { LiveArea, type ScreenProps } from "./components.js";
import { guardReflow } from "./reflow.js";

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

function Live({ store, scrollback, onAnswer, onInterrupt, terminalRows, Screen = LiveArea }: LiveOptions & Rows) {
  const model = useSyncExternalStore(store.subscribe, store.get);
  const { stdout, write } = useStdout();
  // While the area is drawn, lines for the scrollback go through Ink: it erases the area, writes them, draws again.
  useLayoutEffect(() => {
    scrollback.route(write);
    return () => scrollback.route(undefined);
  }, [scrollback, write]);
  const [columns, setColumns] = useState(stdout.columns || 80);
  // The real height (the stream Ink draws on hides it: src/ui/ink/reflow.ts).
  const [rows, setRows] = useState(terminalRows());
  useEffect(() => {
    const resized = () => {
      setColumns(stdout.columns || 80);
      setRows(terminalRows());
    };
    stdout.on("resize", resized);
    return () => {
      stdout.off("resize", resized);
    };
  }, [stdout, terminalRows]);
  const [now, setNow] = useState(Date.now());
  const ended = model.task !== undefined && isTerminal(model.task.state);
  useEffect(() => {
    if (ended) return;
    const tick = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(tick);
  }, [ended]);
  return <Screen model={model} now={now} columns={columns} rows={rows} onAnswer={onAnswer} onInterrupt={onInterrupt} />;
}

/** The terminal's real height (undefined where it has none: the area is then not cut). */
interface Rows {
  terminalRows(): number | undefined;
}

export function mountLive(options: LiveOptions, io: Io): MountedLive {
  const terminal = guardReflow(io.stdout);
  const instance = render(<Live {...options} terminalRows={() => io.stdout.rows || undefined} />, {
    stdin: io.stdin,
    stdout: terminal.stdout,
    stderr: io.stderr,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const exited = instance.waitUntilExit().finally(terminal.dispose);
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
