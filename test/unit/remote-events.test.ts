// The remote task's StreamResponses become the screen's events (src/client/remote-events.ts): states, prompts, the
// ending's metadata, and output shown once across a resume (CONTRACT 9.4: the Task, then the events after it).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type StreamResponse, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import fc from "fast-check";
import { RemoteTaskModel } from "../../src/client/remote-events.js";
import type { DispatcherEvent } from "../../src/core/task/events.js";
import { ADAPTER_URI, HITL_URI } from "../../src/core/uris.js";

const ID = "t1";
const CONTEXT = "c1";

const status = (state: string, extra: Record<string, unknown> = {}): StreamResponse => ({
  payload: {
    $case: "statusUpdate",
    value: TaskStatusUpdateEvent.fromJSON({ taskId: ID, contextId: CONTEXT, status: { state, ...extra } }),
  },
});

const chunk = (stream: "stdout" | "stderr", seq: number, text: string): StreamResponse => ({
  payload: {
    $case: "artifactUpdate",
    value: TaskArtifactUpdateEvent.fromJSON({
      taskId: ID,
      contextId: CONTEXT,
      artifact: { artifactId: stream, name: stream, parts: [{ text, metadata: { seq } }] },
      append: seq > 1,
      lastChunk: false,
    }),
  },
});

/** The Task a (re)subscription starts with: its output so far in the two artifacts. */
const taskItem = (
  state: string,
  parts: { stream: "stdout" | "stderr"; seq: number; text: string }[],
): StreamResponse => {
  const artifacts = (["stdout", "stderr"] as const)
    .map((stream) => ({
      artifactId: stream,
      name: stream,
      parts: parts.filter((p) => p.stream === stream).map((p) => ({ text: p.text, metadata: { seq: p.seq } })),
    }))
    .filter((artifact) => artifact.parts.length > 0);
  return {
    payload: {
      $case: "task",
      value: Task.fromJSON({ id: ID, contextId: CONTEXT, status: { state }, artifacts, metadata: {} }),
    },
  };
};

const texts = (events: DispatcherEvent[]) => events.flatMap((e) => (e.type === "output" ? [e.text] : []));
const states = (events: DispatcherEvent[]) => events.flatMap((e) => (e.type === "status" ? [e.task.state] : []));

describe("remote events", () => {
  it("a stream becomes status and output events, and the ending carries exit code and reason", () => {
    const model = new RemoteTaskModel();
    const events = [
      taskItem("TASK_STATE_SUBMITTED", []),
      status("TASK_STATE_WORKING"),
      chunk("stdout", 1, "hello\n"),
      chunk("stderr", 2, "oops\n"),
      {
        payload: {
          $case: "statusUpdate",
          value: TaskStatusUpdateEvent.fromJSON({
            taskId: ID,
            contextId: CONTEXT,
            status: {
              state: "TASK_STATE_FAILED",
              message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "failed: timed out" }] },
            },
            metadata: { [ADAPTER_URI]: { exit_code: null, fail_kind: "application", reason: "timeout" } },
          }),
        },
      } satisfies StreamResponse,
    ].flatMap((item) => model.take(item));
    assert.deepEqual(states(events), ["submitted", "working", "failed"]);
    assert.deepEqual(texts(events), ["hello\n", "oops\n"]);
    const end = model.task;
    assert.equal(end?.reason, "timeout");
    assert.equal(end?.failKind, "application");
    assert.equal(end?.statusText, "failed: timed out");
    const out = events.filter((e) => e.type === "output");
    assert.deepEqual(
      out.map((e) => e.type === "output" && [e.stream, e.first]),
      [
        ["stdout", true],
        ["stderr", true],
      ],
    );
  });

  it("a prompt's status message opens a prompt with its id; the same prompt again is no new event", () => {
    const model = new RemoteTaskModel();
    model.take(taskItem("TASK_STATE_WORKING", []));
    const asking = status("TASK_STATE_INPUT_REQUIRED", {
      message: {
        messageId: "p1",
        role: "ROLE_AGENT",
        parts: [{ text: "Continue? [y/N]" }],
        metadata: {
          [HITL_URI]: {
            prompt_id: "p1",
            prompt: "Continue? [y/N]",
            deadline: "2030-01-01T00:00:00Z",
            allowed_responders: ["any"],
          },
        },
        extensions: [HITL_URI],
      },
    });
    const first = model.take(asking);
    assert.equal(first.length, 1);
    assert.equal(model.task?.prompt?.id, "p1");
    assert.equal(model.task?.prompt?.text, "Continue? [y/N]");
    assert.deepEqual(model.take(asking), []);
    assert.deepEqual(states(model.answered()), ["working"]);
    assert.equal(model.task?.prompt, undefined);
  });

  it("a resumed stream shows what the Task holds and was not shown, then only newer events", () => {
    const model = new RemoteTaskModel();
    const before = [taskItem("TASK_STATE_WORKING", []), chunk("stdout", 1, "a\n"), chunk("stderr", 2, "b\n")];
    const shown = before.flatMap((item) => model.take(item));
    // The stream broke; meanwhile seq 3 (stdout) and 4 (stderr) were written. The Task holds 1..4.
    const resumed = [
      taskItem("TASK_STATE_WORKING", [
        { stream: "stdout", seq: 1, text: "a\n" },
        { stream: "stdout", seq: 3, text: "c\n" },
        { stream: "stderr", seq: 2, text: "b\n" },
        { stream: "stderr", seq: 4, text: "d\n" },
      ]),
      chunk("stdout", 4, "d\n"),
      chunk("stdout", 5, "e\n"),
    ].flatMap((item) => model.take(item));
    assert.deepEqual([...texts(shown), ...texts(resumed)], ["a\n", "b\n", "c\n", "d\n", "e\n"]);
    assert.equal(model.shownSeq, 5);
  });

  it("property: wherever the stream breaks, every chunk is shown exactly once and in order", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.nat(), fc.nat(), (count, cutAt, lagBy) => {
        const chunks = Array.from({ length: count }, (_, i) => ({
          stream: (i % 3 === 0 ? "stderr" : "stdout") as "stdout" | "stderr",
          seq: i + 1,
          text: `line ${i + 1}\n`,
        }));
        const cut = cutAt % (count + 1);
        // The Task of the resume holds everything up to `held` (at least what was shown), then the rest follows.
        const held = Math.min(count, cut + (lagBy % (count - cut + 1)));
        const model = new RemoteTaskModel();
        const items = [
          taskItem("TASK_STATE_WORKING", []),
          ...chunks.slice(0, cut).map((c) => chunk(c.stream, c.seq, c.text)),
          taskItem("TASK_STATE_WORKING", chunks.slice(0, held)),
          // The events after the Task may repeat the last one it held (an overlap the seq absorbs).
          ...chunks.slice(Math.max(0, held - 1)).map((c) => chunk(c.stream, c.seq, c.text)),
        ];
        const shown = texts(items.flatMap((item) => model.take(item)));
        assert.deepEqual(
          shown,
          chunks.map((c) => c.text),
        );
      }),
    );
  });

  it("for a person, the server's words have their controls escaped; output for a terminal keeps only SGR", () => {
    const osc = "\u001b]52;c;aGk=\u0007";
    const model = new RemoteTaskModel({ escapeWords: true, terminal: { stdout: true } });
    const prompt = { [HITL_URI]: { prompt_id: `p${osc}`, prompt: `Go?${osc}` } };
    const events = [
      ...model.take(chunk("stdout", 1, `\u001b[31mred\u001b[0m${osc}`)),
      ...model.take(chunk("stderr", 2, `raw${osc}`)),
      ...model.take(status("TASK_STATE_INPUT_REQUIRED", { message: { parts: [{ text: "q" }], metadata: prompt } })),
      ...model.take({
        payload: {
          $case: "statusUpdate",
          value: TaskStatusUpdateEvent.fromJSON({
            taskId: ID,
            contextId: CONTEXT,
            status: { state: "TASK_STATE_FAILED", message: { parts: [{ text: `failed: ${osc}` }] } },
            metadata: { [ADAPTER_URI]: { signal: `SIG${osc}`, working_dir: osc } },
          }),
        },
      }),
    ];
    assert.deepEqual(texts(events), ["\u001b[31mred\u001b[0m", `raw${osc}`], "stderr is not a terminal here");
    const asked = events.flatMap((e) => (e.type === "status" && e.task.prompt ? [e.task.prompt] : []))[0];
    assert.equal(asked?.id, "p\\u001b]52;c;aGk=\\u0007");
    assert.equal(asked?.text, "Go?\\u001b]52;c;aGk=\\u0007");
    const ended = model.task;
    assert.equal(ended?.statusText, "failed: \\u001b]52;c;aGk=\\u0007");
    assert.equal(ended?.signal, "SIG\\u001b]52;c;aGk=\\u0007");
    assert.equal(ended?.workingDir, "\\u001b]52;c;aGk=\\u0007");
  });

  it("without those options (--json), the server's data is taken as it came", () => {
    const model = new RemoteTaskModel();
    const events = model.take(chunk("stdout", 1, "\u001b]0;t\u0007x"));
    assert.deepEqual(texts(events), ["\u001b]0;t\u0007x"]);
  });
});
