// The SQLite store of --state-dir on real files (CONTRACT 5.5): what it refuses to open, rows it skips, sizes it
// recounts, what a restart makes of unfinished tasks, the output it keeps, and writes that start failing.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { appendFileSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import Sqlite from "better-sqlite3";
import fc from "fast-check";
import type { TaskStore } from "../../src/core/store.js";
import { decodePageToken, type ListQuery, pageOf } from "../../src/core/task/list-query.js";
import { ByteChunk } from "../../src/core/task/output-log.js";
import { isTerminal, TASK_STATES } from "../../src/core/task/task.js";
import type { TaskRecord } from "../../src/core/task/task-record.js";
import { DB_FILE, FULL_CHECK_MAX_BYTES, openStateStore, prepareDatabase } from "../../src/store/open.js";
import { DETAIL_BYTES, ENDED_SHAPE, SCHEMA_VERSION, UNSCREENED } from "../../src/store/schema.js";
import { SqliteStore } from "../../src/store/sqlite.js";
import { appendOutput, editDb, openStore, taskRecord as record, refusal, tempDir } from "../helpers/state-dir.js";

const fileHash = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** A state dir with `count` ended tasks t0..t(count-1) (each with a line of output) and a running one, "live". */
async function stateWith(count: number, options: Parameters<typeof openStore>[1] = {}): Promise<string> {
  const dir = tempDir();
  const { store } = await openStore(dir, options);
  for (let i = 0; i < count; i++) {
    const task = record(`t${i}`, "working");
    task.updatedAt = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    store.put(task);
    appendOutput(store, task, "stdout", `output of t${i}\n`);
    task.state = "completed";
    store.put(task);
  }
  const live = record("live", "working");
  live.pid = 999_999_999;
  live.pidStart = "12345";
  store.put(live);
  appendOutput(store, live, "stdout", "printed before the crash\n");
  appendOutput(store, live, "stderr", "and on stderr\n");
  store.close?.();
  return dir;
}

describe("SQLite store: what it refuses to open (exit 2, nothing changed)", () => {
  it("a file that is not SQLite", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, DB_FILE), "this is not a database, just some text that is long enough\n".repeat(100));
    const before = fileHash(join(dir, DB_FILE));
    assert.match(await refusal(dir), /state\.db is damaged .*not an SQLite database|file is not a database/);
    assert.equal(fileHash(join(dir, DB_FILE)), before);
  });

  it("a database cut short (truncated to half its size)", async () => {
    const dir = await stateWith(40, { outputLimit: 64 * 1024 });
    const path = join(dir, DB_FILE);
    truncateSync(path, Math.floor(statSync(path).size / 2));
    assert.match(await refusal(dir), /state\.db is damaged/);
  });

  it("a database above FULL_CHECK_MAX_BYTES is checked by its header: whole it opens, grown by a page of junk it is refused", async () => {
    const dir = await stateWith(2);
    const path = join(dir, DB_FILE);
    editDb(dir, (db) => {
      db.exec("CREATE TABLE pad (x BLOB)");
      db.prepare("INSERT INTO pad VALUES (zeroblob(?))").run(FULL_CHECK_MAX_BYTES + 1024 * 1024);
      db.pragma("wal_checkpoint(TRUNCATE)");
    });
    const whole = await openStore(dir, { killLeftovers: () => false });
    assert.equal(whole.store.get("t1")?.state, "completed");
    whole.store.close?.();
    const size = statSync(path).size;
    assert.ok(size > FULL_CHECK_MAX_BYTES);
    appendFileSync(path, Buffer.alloc(4096, 0x5a));
    assert.match(
      await refusal(dir),
      /state\.db is damaged \(its header counts \d+ pages of 4096 bytes, but the file holds/,
    );
  });

  it("another program's SQLite file", async () => {
    const dir = tempDir();
    const db = new Sqlite(join(dir, DB_FILE));
    db.exec("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ann')");
    db.close();
    const before = fileHash(join(dir, DB_FILE));
    assert.match(await refusal(dir), /SQLite database of another program \(application_id 0x00000000, tables users\)/);
    assert.equal(fileHash(join(dir, DB_FILE)), before);
  });

  it("a database of a newer version", async () => {
    const dir = await stateWith(1);
    editDb(dir, (db) => db.pragma("user_version = 99"));
    const before = fileHash(join(dir, DB_FILE));
    assert.match(
      await refusal(dir),
      new RegExp(`written by a newer adapter-command \\(schema version 99; this one reads up to ${SCHEMA_VERSION}\\)`),
    );
    assert.equal(fileHash(join(dir, DB_FILE)), before);
  });

  it("our database with a table gone", async () => {
    const dir = await stateWith(1);
    editDb(dir, (db) => db.exec("PRAGMA foreign_keys = OFF; DROP TABLE chunks"));
    assert.match(await refusal(dir), /state\.db is damaged: it has no table chunks/);
  });

  it("a state dir another runtime holds: refused at once, naming the holder; the holder goes on", async () => {
    const dir = await stateWith(2);
    const { store } = await openStore(dir);
    const message = await refusal(dir);
    assert.match(message, new RegExp(`in use by another adapter-command runtime \\(pid ${process.pid}\\b`));
    store.put(record("after", "completed"));
    assert.equal(store.get("after")?.state, "completed");
    assert.equal(store.get("t1")?.state, "completed");
    store.close?.();
    const { store: again } = await openStore(dir);
    assert.ok(again.get("after"), "the holder's writes are there");
    again.close?.();
  });

  it("a path under a regular file", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "file"), "");
    assert.match(await refusal(join(dir, "file", "state")), /cannot use --state-dir .*a part of the path is a file/);
  });
});

describe("SQLite store: a restart", () => {
  it("an unfinished task is failed (infrastructure, runtime_restarted) with the output it had printed", async () => {
    const dir = await stateWith(2);
    const asked: TaskRecord[] = [];
    const { store, lines } = await openStore(dir, {
      now: () => new Date("2026-02-02T00:00:00.000Z"),
      killLeftovers: (task) => {
        asked.push(task);
        return false;
      },
    });
    const live = store.get("live");
    assert.equal(live?.state, "failed");
    assert.equal(live?.failKind, "infrastructure");
    assert.equal(live?.reason, "runtime_restarted");
    assert.equal(live?.endedAt, "2026-02-02T00:00:00.000Z");
    assert.equal(live?.updatedAt, "2026-02-02T00:00:00.000Z");
    assert.equal(live?.stdout.chunks()[0]?.text, "printed before the crash\n");
    assert.equal(live?.stderr.chunks()[0]?.text, "and on stderr\n");
    assert.equal(store.get("t0")?.stdout.chunks()[0]?.text, "output of t0\n");
    assert.deepEqual(
      asked.map((task) => [task.id, task.pid, task.pidStart]),
      [["live", 999_999_999, "12345"]],
      "leftovers are looked for by the task's identity",
    );
    assert.match(lines.join("\n"), /restored 3 task\(s\) .*1 had not ended and are failed/);
    store.close?.();
    const { store: third } = await openStore(dir, { killLeftovers: () => assert.fail("nothing is unfinished now") });
    assert.equal(third.get("live")?.reason, "runtime_restarted");
    third.close?.();
  });

  it("rows of the wrong shape are skipped with a warning naming them; the other tasks are all there", async () => {
    const dir = await stateWith(6);
    editDb(dir, (db) => {
      db.prepare("UPDATE tasks SET detail = 'not json' WHERE id = 't0'").run();
      db.prepare("UPDATE tasks SET state = 'exploded' WHERE id = 't1'").run();
      db.prepare("UPDATE tasks SET updated_at = 'yesterday' WHERE id = 't2'").run();
      db.prepare("UPDATE tasks SET detail = json_set(detail, '$.extensions', 7) WHERE id = 't3'").run();
      // A running task whose pid is 1: kill(-1) would reach every process; the row is skipped, nothing signalled.
      db.prepare("UPDATE tasks SET pid = 1 WHERE id = 'live'").run();
    });
    const { store, lines } = await openStore(dir, {
      killLeftovers: (task) => assert.fail(`nothing may be signalled, but ${task.id} was`),
    });
    // Columns SQL can check are screened at start; a detail that is not right, when the row is first read.
    const atStart = lines.join("\n");
    for (const id of ["t1", "t2", "live"])
      assert.match(atStart, new RegExp(`task ${id} in .* has a row of the wrong shape`));
    for (const id of ["t0", "t3"])
      assert.doesNotMatch(atStart, new RegExp(`task ${id} in `), `${id} is not decoded at start`);
    for (const id of ["t0", "t1", "t2", "t3", "live"]) assert.equal(store.get(id), undefined, `${id} is skipped`);
    const log = lines.join("\n");
    for (const [id, why] of [
      ["t0", /detail: not JSON/],
      ["t1", /state/],
      ["t2", /updated_at/],
      ["t3", /detail\.extensions/],
      ["live", /pid: expected a pid above 1/],
    ] as const) {
      assert.match(log, new RegExp(`task ${id} in .* has a row of the wrong shape \\(${why.source}`), log);
    }
    assert.equal(store.get("t0"), undefined);
    assert.equal(
      lines.join("\n").match(/task t0 in /g)?.length,
      1,
      "a row found wrong when read is named once, then left alone",
    );
    assert.deepEqual(
      store
        .all()
        .map((task) => task.id)
        .sort(),
      ["t4", "t5"],
    );
    const page = store.list({ pageSize: 10 });
    assert.deepEqual(
      page.items.map((task) => task.id),
      ["t5", "t4"],
    );
    assert.equal(page.totalSize, 2);
    // New tasks go on, and retention leaves the skipped rows alone (they are not ours to judge).
    store.put(record("new", "completed"));
    assert.equal(store.get("new")?.state, "completed");
    store.close?.();
    assert.equal(editDb(dir, (db) => db.prepare("SELECT count(*) AS n FROM tasks").get() as { n: number }).n, 8);
  });

  it("a start reads only the rows ENDED_SHAPE does not pass, and the lengths of the others, through indexes, never every ended row", async () => {
    // The shape is frozen into the schema: its ended states must be the core's.
    const terminal = TASK_STATES.filter((state) => isTerminal(state)).map((state) => `'${state}'`);
    assert.match(ENDED_SHAPE, new RegExp(`state IN \\(${terminal.join(", ")}\\)`));
    const dir = await stateWith(3);
    editDb(dir, (db) => {
      db.prepare("UPDATE tasks SET state = 'exploded' WHERE id = 't1'").run();
      const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT * FROM tasks WHERE ${UNSCREENED}`).all() as {
        detail: string;
      }[];
      assert.match(plan.map((step) => step.detail).join("; "), /USING INDEX tasks_unscreened/);
      // Retention's totals read the lengths of the ended rows' details from an index, not from the rows.
      const totals = db
        .prepare(`EXPLAIN QUERY PLAN SELECT count(*), total(${DETAIL_BYTES}) FROM tasks WHERE ended_seq IS NOT NULL`)
        .all() as { detail: string }[];
      assert.match(totals.map((step) => step.detail).join("; "), /USING COVERING INDEX tasks_detail_bytes/);
      const read = db.prepare(`SELECT id FROM tasks WHERE ${UNSCREENED} ORDER BY id`).all() as { id: string }[];
      assert.deepEqual(
        read.map((row) => row.id),
        ["live", "t1"],
        "the unfinished row and the one of the wrong shape",
      );
    });
    const { store, lines } = await openStore(dir, { killLeftovers: () => false });
    assert.match(lines.join("\n"), /restored 3 task\(s\) .*1 had not ended/);
    assert.match(lines.join("\n"), /1 row\(s\) of the wrong shape skipped/);
    store.close?.();
  });

  it("a row claiming absurd sizes is recounted, not obeyed: no task is pushed out of the budget", async () => {
    const dir = await stateWith(3, { keptEndedBytes: 100_000 });
    editDb(dir, (db) => db.prepare("UPDATE tasks SET bytes = 1e15 WHERE id = 't0'").run());
    const { store } = await openStore(dir, { keptEndedBytes: 100_000 });
    assert.deepEqual(
      store
        .all()
        .map((task) => task.id)
        .sort(),
      ["live", "t0", "t1", "t2"],
    );
    store.put(record("t3", "completed"));
    assert.equal(store.all().length, 5, "a new ended task does not evict the others either");
    store.close?.();
  });

  it("output chunks of the wrong shape are skipped with a warning; the rest of the output stays", async () => {
    const dir = await stateWith(1);
    editDb(dir, (db) => {
      const n = (db.prepare("SELECT n FROM tasks WHERE id = 't0'").get() as { n: number }).n;
      db.prepare(
        "INSERT INTO chunks (task, stream, seq, text) VALUES (?, 'stdin', 50, 'x'), (?, 'stdout', -4, 'y')",
      ).run(n, n);
    });
    const { store, lines } = await openStore(dir);
    assert.equal(
      store
        .get("t0")
        ?.stdout.chunks()
        .map((chunk) => chunk.text)
        .join(""),
      "output of t0\n",
    );
    assert.match(lines.join("\n"), /task t0 in .*: 2 output chunk\(s\) of the wrong shape skipped/);
    store.close?.();
  });

  it("retention counts the bytes of messages too", async () => {
    const dir = tempDir();
    const { store } = await openStore(dir, { keptEndedBytes: 250_000 });
    for (let i = 0; i < 4; i++) {
      const task = record(`m${i}`, "completed");
      task.message = { role: "user", parts: [{ type: "text", text: "m".repeat(100_000) }] };
      store.put(task);
    }
    assert.deepEqual(
      store
        .all()
        .map((task) => task.id)
        .sort(),
      ["m2", "m3"],
    );
    assert.equal(store.get("m3")?.messageText.length, 100_000);
    store.close?.();
  });
});

describe("SQLite store: output", () => {
  it("keeps exactly what the task's log keeps: the first part and the most recent, dropped chunks deleted", async () => {
    const dir = tempDir();
    const limit = 64 * 1024;
    const { store } = await openStore(dir, { outputLimit: limit });
    const task = record("flood", "working", 0, limit / 2);
    store.put(task);
    for (let i = 0; i < 2000; i++) {
      appendOutput(store, task, i % 3 === 0 ? "stderr" : "stdout", `line ${i} ${"é".repeat(i % 50)}\n`);
      // A batch every few chunks: chunks written first and dropped later must leave the database too.
      if (i % 7 === 0) (store as SqliteStore).flush();
    }
    const expected = { stdout: task.stdout.chunks(), stderr: task.stderr.chunks() };
    assert.ok(task.stdout.droppedBytes > 0 && task.stderr.droppedBytes > 0, "both logs dropped some");
    store.close?.();
    const stored = editDb(dir, (db) => (db.prepare("SELECT count(*) AS n FROM chunks").get() as { n: number }).n);
    assert.equal(stored, expected.stdout.length + expected.stderr.length, "no dropped chunk is left in the database");
    const { store: again } = await openStore(dir, { outputLimit: limit, killLeftovers: () => false });
    const got = again.get("flood") as TaskRecord;
    for (const stream of ["stdout", "stderr"] as const) {
      assert.deepEqual(got[stream].chunks(), expected[stream]);
      assert.equal(got[stream].droppedBytes, task[stream].droppedBytes);
      assert.equal(got[stream].totalBytes, task[stream].totalBytes);
    }
    again.close?.();
  });

  it("chunks kept as bytes are stored as text: ASCII ones without being decoded, others decoded", async () => {
    const dir = tempDir();
    const { store } = await openStore(dir, { outputLimit: 1024 * 1024 });
    const task = record("bytes", "working");
    store.put(task);
    const ascii = new ByteChunk(++task.seq, "stdout", Buffer.from(`{"msg":"a \\"line\\""}\t\r\n`.repeat(400)));
    const utf8 = new ByteChunk(++task.seq, "stdout", Buffer.from("✓ é 😀\n".repeat(400)));
    for (const chunk of [ascii, utf8]) {
      task.stdout.append(chunk);
      store.appended?.(task, chunk);
    }
    (store as SqliteStore).flush();
    assert.ok(ascii.asciiBytes(), "the ASCII chunk still holds its bytes: the store did not decode it");
    store.close?.();
    const types = editDb(dir, (db) => db.prepare("SELECT typeof(text) AS type FROM chunks ORDER BY seq").all());
    assert.deepEqual(types, [{ type: "text" }, { type: "text" }]);
    const { store: again } = await openStore(dir, { outputLimit: 1024 * 1024, killLeftovers: () => false });
    const texts = (again.get("bytes") as TaskRecord).stdout.chunks().map((chunk) => chunk.text);
    assert.deepEqual(texts, [ascii.text, utf8.text]);
    again.close?.();
  });

  it("once the store has been quiet a moment, the write-ahead log is folded into the database and emptied", async () => {
    const dir = tempDir();
    const { store } = await openStore(dir);
    const task = record("quiet", "working");
    store.put(task);
    appendOutput(store, task, "stdout", "w".repeat(100_000));
    task.state = "completed";
    store.put(task);
    const wal = join(dir, `${DB_FILE}-wal`);
    assert.ok(statSync(wal).size > 100_000, "the output went to the log first");
    for (let i = 0; i < 40 && statSync(wal).size > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(statSync(wal).size, 0);
    assert.equal(store.get("quiet")?.stdout.keptBytes, 100_000);
    store.close?.();
  });

  it("without output asked for, an ended task comes back without reading its chunks", async () => {
    const dir = await stateWith(1);
    const { store } = await openStore(dir);
    assert.deepEqual(store.get("t0", false)?.stdout.chunks(), []);
    assert.equal(store.get("t0", true)?.stdout.chunks().length, 1);
    store.close?.();
  });
});

describe("SQLite store: opening", () => {
  it("openStateStore names the state dir in every refusal", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, DB_FILE), "x".repeat(4096));
    const opened = await openStateStore(dir, { outputLimit: 1024, log: () => {} });
    assert.ok(!opened.ok && opened.message.includes(dir), JSON.stringify(opened));
  });
});

/** Every page of `query`, following the tokens, as ids with each page's token and total. */
function walk(list: (query: ListQuery) => ReturnType<TaskStore["list"]>, query: ListQuery) {
  const pages = [];
  let after: ListQuery["after"];
  for (let i = 0; i < 50; i++) {
    const page = list({ ...query, ...(after ? { after } : {}) });
    pages.push({ ids: page.items.map((task) => task.id), token: page.nextPageToken, total: page.totalSize });
    if (page.nextPageToken === "") break;
    after = decodePageToken(page.nextPageToken);
    assert.ok(after, "the token decodes");
  }
  return pages;
}

const INSTANTS = ["2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.001Z", "2026-03-01T10:00:00.000Z"];

describe("SQLite store: ListTasks", () => {
  it("pages as pageOf does: the same items, tokens and totals for any tasks and any query", async () => {
    const task = fc.record({
      id: fc.constantFrom(...Array.from({ length: 16 }, (_, i) => `id-${i.toString(16)}`)),
      contextId: fc.constantFrom("a", "b", "c"),
      state: fc.constantFrom(...TASK_STATES),
      at: fc.constantFrom(...INSTANTS),
    });
    const query = fc.record({
      contextId: fc.option(fc.constantFrom("a", "b", "z"), { nil: undefined }),
      state: fc.option(fc.constantFrom(...TASK_STATES), { nil: undefined }),
      statusTimestampAfter: fc.option(
        fc.oneof(
          fc.constantFrom(-1e15, 1e15, 8.64e15, ...INSTANTS.map(Date.parse)),
          fc.integer({ min: Date.parse(INSTANTS[0] as string) - 5, max: Date.parse(INSTANTS[2] as string) + 5 }),
          fc.double({ min: 1.7e12, max: 1.8e12, noNaN: true }),
        ),
        { nil: undefined },
      ),
      pageSize: fc.integer({ min: 1, max: 6 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(task, { selector: (t) => t.id, maxLength: 16 }), query, async (tasks, q) => {
        const { store } = await openStore(tempDir("list"));
        const records = tasks.map((t) => {
          const r = record(t.id, t.state);
          r.contextId = t.contextId;
          r.updatedAt = t.at;
          store.put(r);
          return r;
        });
        const clean = Object.fromEntries(
          Object.entries(q).filter(([, value]) => value !== undefined),
        ) as unknown as ListQuery;
        assert.deepEqual(
          walk((one) => store.list(one), clean),
          walk((one) => pageOf(records, one), clean),
        );
        store.close?.();
      }),
      { numRuns: 40 },
    );
  });
});

describe("SQLite store: writes that start failing", () => {
  it("a full disk: told once, the tasks go on in memory, and every task is still found and listed", async () => {
    const dir = await stateWith(3);
    const path = join(dir, DB_FILE);
    const db = new Sqlite(path, { timeout: 0 });
    prepareDatabase(db, dir, path);
    // The database may not grow by more than two pages: as good as a full disk, for any user.
    db.pragma(`max_page_count = ${(db.pragma("page_count", { simple: true }) as number) + 2}`);
    const warnings: string[] = [];
    const store = new SqliteStore(db, path, { outputLimit: 1 << 20, warn: (line) => warnings.push(line) });
    const running = record("running", "working", 0, 1 << 19);
    store.put(running);
    for (let i = 0; i < 4; i++) {
      const task = record(`big${i}`, "working", 0, 1 << 19);
      task.updatedAt = new Date(Date.UTC(2026, 1, 1, 0, 0, i)).toISOString();
      store.put(task);
      appendOutput(store, task, "stdout", `${i}`.repeat(100_000));
      task.state = "completed";
      store.put(task);
    }
    appendOutput(store, running, "stdout", "still running\n");
    running.state = "completed";
    store.put(running);
    // First output stops being written (the rows still are); with no room even for a row, everything is kept in
    // memory: each told once.
    assert.match(warnings[0] as string, /cannot write task output to .*state\.db \(the disk is full: SQLITE_FULL/);
    const rest = warnings.slice(1).filter((line) => !/could not be written to/.test(line));
    assert.ok(rest.length <= 1, warnings.join("\n"));
    if (rest[0]) assert.match(rest[0], /cannot write .*state\.db \(the disk is full: SQLITE_FULL.*kept in memory only/);
    for (const id of ["t0", "t1", "t2", "live", "running", "big0", "big3"]) assert.ok(store.get(id), id);
    assert.equal(store.get("big3")?.stdout.keptBytes, 100_000);
    assert.equal(store.get("running")?.state, "completed");
    assert.equal(store.get("running")?.stdout.chunks()[0]?.text, "still running\n");
    const all = store.all();
    assert.equal(all.length, 9);
    for (const query of [
      { pageSize: 2 },
      { pageSize: 4, state: "completed" as const },
      { pageSize: 3, contextId: "ctx" },
    ])
      assert.deepEqual(
        walk((one) => store.list(one), query),
        walk((one) => pageOf(all, one), query),
      );
    store.close?.();
  });
});

describe("SQLite store: the containment guard's identity", () => {
  it("is kept with the task, so the restart cleanup gets it", async () => {
    const dir = tempDir();
    const { store } = await openStore(dir, {});
    const task = record("guarded", "working");
    task.pid = 999_999_999;
    task.pidStart = "12345";
    task.guard = { kind: "cgroup", path: "/sys/fs/cgroup/unified/adapter-command/guarded" };
    store.put(task);
    store.close?.();
    const asked: TaskRecord[] = [];
    const { store: again } = await openStore(dir, {
      killLeftovers: (found) => {
        asked.push(found);
        return false;
      },
    });
    again.close?.();
    assert.deepEqual(
      asked.map((found) => found.guard),
      [task.guard],
    );
  });
});
