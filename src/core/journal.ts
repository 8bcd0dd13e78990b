// --state-dir: every task change is appended to a journal, so ended tasks outlive the process that ran them.

import { constants } from "node:buffer";
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, writeSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type Frame, LineSplitter } from "../io/line-splitter.js";
import { OutputLog } from "./output-log.js";
import { killLeftoverGroup } from "./process-identity.js";
import { DEFAULT_KEPT_ENDED, DEFAULT_KEPT_ENDED_BYTES, MemoryStore } from "./store.js";
import { isTerminal } from "./task.js";
import type { TaskRecord, TaskView } from "./task-record.js";
import { viewOf } from "./task-record.js";

const FILE = "tasks.ndjson";

interface Entry {
  view: TaskView;
  pidStart?: string;
}

export class JournalStore extends MemoryStore {
  private readonly path: string;
  private readonly lastState = new Map<string, string>();
  private failed = false;
  private lines = 0;
  private appendedBytes = 0;
  private readonly compactAfterBytes: number;
  /** Told once when the journal can no longer be written; tasks go on in memory. */
  onWriteError: (error: Error) => void = () => {};

  /** Opens (or creates) the journal; fails with a clear message when the folder can't be written. */
  constructor(
    dir: string,
    private readonly outputLimit: number,
    keptEnded = DEFAULT_KEPT_ENDED,
    keptEndedBytes = DEFAULT_KEPT_ENDED_BYTES,
  ) {
    super(keptEnded, keptEndedBytes);
    // Ended tasks are appended with their output: past this much, the journal is rewritten with the kept ones.
    this.compactAfterBytes = keptEndedBytes;
    makeDirectory(dir);
    this.path = join(dir, FILE);
  }

  /** Loads the journal: ended tasks come back as they were, unfinished ones fail; leftover groups are killed. */
  recover(now: Date): { restored: number; interrupted: number } {
    const entries = new Map<string, Entry>();
    if (existsSync(this.path)) {
      forEachLine(this.path, (line) => {
        try {
          const entry = JSON.parse(line) as Entry;
          if (entry?.view?.id) entries.set(entry.view.id, entry);
        } catch {
          // A line cut short by a crash: the entries before it still count.
        }
      });
    }
    let interrupted = 0;
    for (const { view, pidStart } of entries.values()) {
      const record = recordOf(view, this.outputLimit);
      if (!isTerminal(record.state)) {
        if (record.pid !== undefined) killLeftoverGroup(record.pid, pidStart);
        record.state = "failed";
        record.failKind = "infrastructure";
        record.reason = "runtime_restarted";
        record.statusText = "failed: the runtime restarted before the command ended";
        record.prompt = undefined;
        record.endedAt = now.toISOString();
        record.updatedAt = now.toISOString();
        interrupted++;
      }
      this.records.set(record.id, record);
    }
    this.evict();
    this.compact();
    return { restored: entries.size, interrupted };
  }

  override put(record: TaskRecord): void {
    super.put(record);
    const key = `${record.state}:${record.pid ?? ""}:${record.prompt?.id ?? ""}`;
    if (this.lastState.get(record.id) === key) return;
    this.lastState.set(record.id, key);
    const terminal = isTerminal(record.state);
    if (terminal) this.lastState.delete(record.id);
    if (this.failed) return;
    try {
      const line = `${JSON.stringify(entryOf(record, terminal))}\n`;
      appendFileSync(this.path, line);
      // A line per change adds up: rewrite the journal as one line a kept task now and then.
      this.lines += 1;
      this.appendedBytes += line.length;
      if (this.lines > 4 * (this.records.size + 16) || this.appendedBytes > this.compactAfterBytes) this.compact();
    } catch (error) {
      this.failed = true;
      this.onWriteError(error as Error);
    }
  }

  /** Rewrites the journal with one line a task. */
  private compact(): void {
    const temp = `${this.path}.tmp`;
    const fd = openSync(temp, "w");
    try {
      for (const record of this.records.values()) writeSync(fd, `${JSON.stringify(entryOf(record, true))}\n`);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.path);
    this.lines = this.records.size;
    this.appendedBytes = 0;
  }
}

/**
 * Longer journal lines are skipped: they could not become a string to parse anyway. (An entry's size follows its
 * output and how finely it came in, so no smaller bound holds for every task.)
 */
const MAX_LINE_BYTES = constants.MAX_STRING_LENGTH;

/** Calls `onLine` for each line of a file, read 1 MiB at a time: a journal may be larger than V8's longest string. */
function forEachLine(path: string, onLine: (line: string) => void): void {
  const fd = openSync(path, "r");
  const chunk = Buffer.allocUnsafe(1024 * 1024);
  const splitter = new LineSplitter(MAX_LINE_BYTES);
  const take = (frames: Frame[]) => {
    for (const frame of frames) if (frame.kind === "line") onLine(frame.text);
  };
  try {
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk))
      take(splitter.push(chunk.subarray(0, read)));
    take(splitter.end());
  } finally {
    closeSync(fd);
  }
}

/** mkdir -p, one level at a time: Node's recursive mkdir never returns on some pseudo file systems (/proc). */
function makeDirectory(dir: string): void {
  const missing: string[] = [];
  let current = resolve(dir);
  while (!existsSync(current)) {
    missing.unshift(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const path of missing) mkdirSync(path);
}

function entryOf(record: TaskRecord, withOutput: boolean): Entry {
  const entry: Entry = { view: viewOf(record, withOutput) };
  if (record.pidStart !== undefined) entry.pidStart = record.pidStart;
  return entry;
}

function recordOf(view: TaskView, outputLimit: number): TaskRecord {
  const { output, workingDir, ...rest } = view;
  const record: TaskRecord = {
    ...rest,
    messageText: "",
    stdout: OutputLog.restore(outputLimit / 2, output?.stdout.chunks ?? [], output?.stdout.droppedBytes ?? 0),
    stderr: OutputLog.restore(outputLimit / 2, output?.stderr.chunks ?? [], output?.stderr.droppedBytes ?? 0),
    seq: 0,
    revision: 0,
  };
  if (workingDir !== undefined) record.placement = { workspace: "", workingDir, runnerPath: "", requestPath: "" };
  return record;
}
