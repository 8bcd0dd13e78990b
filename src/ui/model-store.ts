// Holds the screen model between the dispatcher and the live area. Finished lines go to `flushLines` (the
// scrollback) each time listeners are told; output is told at most every `intervalMs`, so bursts don't flicker.
import { emptyModel, reduce, type ScreenEvent, type ScreenModel, type ScrollLine } from "./screen-model.js";

/** Lines waiting past this many are written at once rather than at the next interval: the wait stays bounded. */
const MAX_WAITING_LINES = 1000;

export class ModelStore {
  private model: ScreenModel = emptyModel();
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly flushLines: (lines: ScrollLine[]) => void = () => {},
    private readonly intervalMs = 40,
  ) {}

  get = () => this.model;

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  dispatch(event: ScreenEvent): void {
    const next = reduce(this.model, event);
    this.update(next, event.type !== "output" || next.lines.length >= MAX_WAITING_LINES);
  }

  /** An answer was sent: it is echoed between the output lines, and any error about answering is gone. */
  answered(prompt: string, text: string, from?: string): void {
    this.model = { ...this.model, error: undefined };
    this.dispatch({ type: "note", text: `answered ${JSON.stringify(text)} to ${prompt}${from ? ` (${from})` : ""}` });
  }

  /** Something went wrong with what the person did (an answer refused): shown until the next answer. */
  failed(error: string): void {
    this.update({ ...this.model, error }, true);
  }

  interrupted(count: number): void {
    this.update({ ...this.model, interrupts: count }, true);
  }

  /** Writes out what is waiting and tells the listeners now. */
  flush(): void {
    this.update(this.model, true);
  }

  private update(next: ScreenModel, now: boolean): void {
    this.model = next;
    if (now) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.notify();
    } else
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.notify();
      }, this.intervalMs);
  }

  private notify(): void {
    const lines = this.model.lines;
    if (lines.length > 0) {
      this.model = { ...this.model, lines: [] };
      this.flushLines(lines);
    }
    for (const listener of this.listeners) listener();
  }
}
