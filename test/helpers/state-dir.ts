// Task records built by hand and state dirs opened for tests: a store on a real directory, and its database edited
// from outside (as another program, or a crash, would leave it).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import type { TaskStore } from "../../src/core/store.js";
import { type OutputChunk, OutputLog, type StreamName } from "../../src/core/task/output-log.js";
import type { TaskState } from "../../src/core/task/task.js";
import type { TaskRecord } from "../../src/core/task/task-record.js";
import { DB_FILE, openStateStore, type StateStoreOptions } from "../../src/store/open.js";

const dirs: string[] = [];
process.once("exit", () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A new empty directory, removed when the test process exits. */
export function tempDir(name = "state"): string {
  const dir = mkdtempSync(join(tmpdir(), `adapter-command-${name}-`));
  dirs.push(dir);
  return dir;
}

/** A record with the required fields; `outputBytes` of "x" on stdout. */
export function taskRecord(id: string, state: TaskState, outputBytes = 0, limit = 1024): TaskRecord {
  const stdout = new OutputLog(limit);
  if (outputBytes > 0) stdout.append({ seq: 1, stream: "stdout", text: "x".repeat(outputBytes), bytes: outputBytes });
  return {
    id,
    contextId: "ctx",
    instanceId: "instance",
    dispatch: "echo",
    state,
    updatedAt: "2026-01-01T00:00:00.000Z",
    createdAt: "2026-01-01T00:00:00.000Z",
    exitCode: null,
    signal: null,
    textLine: false,
    extensions: [],
    messageText: "",
    stdout,
    stderr: new OutputLog(limit),
    seq: outputBytes > 0 ? 1 : 0,
    statusEvents: 1,
    revision: 0,
  };
}

/** Appends output to a live record the way a task run does: to its log, then tells the store. */
export function appendOutput(store: TaskStore, record: TaskRecord, stream: StreamName, text: string): OutputChunk {
  const chunk = { seq: ++record.seq, stream, text, bytes: Buffer.byteLength(text) };
  record[stream].append(chunk);
  store.appended?.(record, chunk);
  return chunk;
}

export interface OpenedForTest {
  store: TaskStore;
  lines: string[];
}

/** Opens a state dir that must open; its log lines are collected. */
export async function openStore(dir: string, options: Partial<StateStoreOptions> = {}): Promise<OpenedForTest> {
  const lines: string[] = [];
  const opened = await openStateStore(dir, { outputLimit: 1024, log: (line) => lines.push(line), ...options });
  assert.ok(opened.ok, opened.ok ? "" : opened.message);
  return { store: opened.store, lines };
}

/** Opens a state dir that must be refused; resolves with the message. */
export async function refusal(dir: string, options: Partial<StateStoreOptions> = {}): Promise<string> {
  const opened = await openStateStore(dir, { outputLimit: 1024, log: () => {}, ...options });
  assert.ok(!opened.ok, "the state dir was opened");
  assert.equal(opened.exitCode, 2);
  return opened.message;
}

/** Runs `edit` on the state dir's database, opened directly (no runtime may hold it). */
export function editDb<T>(dir: string, edit: (db: Sqlite.Database) => T): T {
  const db = new Sqlite(join(dir, DB_FILE), { timeout: 0 });
  try {
    return edit(db);
  } finally {
    db.close();
  }
}
