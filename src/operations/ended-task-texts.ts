// GetTask of an ended task, as JSON text kept for the next read: an ended task no longer changes, and encoding a
// task is most of what a GetTask costs (docs/benchmarks.md, `http_get_task_rps`). Bounded in entries and bytes;
// the least recently read go first.
import type { TaskView } from "../core/task/dispatcher.js";
import { isTerminal } from "../core/task/task.js";
import { JsonText } from "./json-text.js";

const MiB = 1024 * 1024;

export interface TextLimits {
  entries: number;
  bytes: number;
  /** A larger text is not kept: it would push out many small ones. */
  entryBytes: number;
}

const DEFAULT_TEXT_LIMITS: TextLimits = { entries: 256, bytes: 16 * MiB, entryBytes: 256 * 1024 };

export class EndedTaskTexts {
  private readonly texts = new Map<string, JsonText>();
  private bytes = 0;
  /** The key last moved to the end (or kept), so a text read twice in a row is not moved again. */
  private newest: string | undefined;

  constructor(private readonly limits: TextLimits = DEFAULT_TEXT_LIMITS) {}

  /**
   * The answer for `task` (a view without output: its state and `updatedAt` say whether it can have changed) in the
   * shape `shape` names: kept text when there is some, else what `encode` builds, kept when the task has ended.
   */
  answer(task: TaskView, shape: string, encode: () => unknown): unknown {
    if (!isTerminal(task.state)) return encode();
    const key = `${task.id} ${task.updatedAt} ${shape}`;
    const kept = this.texts.get(key);
    if (kept) {
      // The most recently read one is already last: the same task read again and again moves nothing.
      if (key !== this.newest) {
        this.texts.delete(key);
        this.texts.set(key, kept);
        this.newest = key;
      }
      return kept;
    }
    // The task is read now; its text is made when the answer is written, and kept then if it is small enough.
    const value = encode();
    return new JsonText(() => {
      const text = JSON.stringify(value);
      this.keep(key, new JsonText(text));
      return text;
    });
  }

  private keep(key: string, text: JsonText): void {
    // Strings are counted in UTF-16 units: twice the length bounds what they hold.
    const size = 2 * text.text.length;
    if (size > this.limits.entryBytes || this.texts.has(key)) return;
    this.texts.set(key, text);
    this.newest = key;
    this.bytes += size;
    for (const [oldKey, old] of this.texts) {
      if (this.texts.size <= this.limits.entries && this.bytes <= this.limits.bytes) break;
      this.texts.delete(oldKey);
      this.bytes -= 2 * old.text.length;
    }
  }

  get size(): number {
    return this.texts.size;
  }
}
