// ADAPTER-*: adapter-command/v1 as its seed states it (spec/000 "Request Envelope", "Semantics", "Task State"), and
// the environment the runtime's adapter-command/v1 spec gives the command.
import type { Json } from "./driver.js";
import { brief } from "./http.js";
import { type Envelope, envelope, sendOk, sendParams, shown, waitEnded } from "./messages.js";
import {
  expect,
  familyScenarios,
  Mismatch,
  type Scenario,
  type ScenarioContext,
  type ScenarioEntry,
} from "./scenario.js";
import { allOutput, ENDED, outputOf, STATE, stateOf, taskOf } from "./task-fields.js";
import { ADAPTER } from "./uris.js";
import { IN_ADAPTER_FOLDER, RUNNER_PATH, requestPath } from "./workspace.js";

const SEED = "adapter-command/v1 seed";

/** The fail kind where the runtime reports it: `metadata[ADAPTER].fail_kind`, or the 0.3 `status.fail_kind`. */
export const failKindOf = (task: Json): unknown => task?.metadata?.[ADAPTER]?.fail_kind ?? task?.status?.fail_kind;

async function ended(ctx: ScenarioContext, task: Json): Promise<Json> {
  return ENDED.has(stateOf(task)) ? task : waitEnded(ctx, task.id, "a terminal state");
}

/** Sends `env` and requires it refused: an error, or a task that fails; never a success (the seed: "must not be downgraded to echo success"). */
async function expectRefused(ctx: ScenarioContext, env: Envelope, what: string): Promise<void> {
  const answer = await ctx.driver.call("SendMessage", sendParams(env, { text: "conformance refusal" }));
  if (answer.error) return;
  const task = taskOf(answer.result);
  const final = task?.id === undefined ? task : await ended(ctx, task);
  const state = stateOf(final);
  if (state !== STATE.failed && state !== STATE.rejected)
    throw new Mismatch(
      `${what} refused: an error, or a task that fails`,
      `${state}, output ${brief(allOutput(final), 120)}`,
    );
}

async function runToEnd(ctx: ScenarioContext, env: Envelope | undefined, text?: string): Promise<Json> {
  return ended(ctx, await sendOk(ctx, sendParams(env, text === undefined ? {} : { text })));
}

/** The runner's own words for `exit-0`: the command ran, not an echo of the message. */
const RAN = "conformance: exit 0";
function expectRan(task: Json): void {
  expectState(task, STATE.completed);
  expect(allOutput(task).includes(RAN), `the command's output "${RAN}"`, () => brief(allOutput(task)));
}

function expectState(task: Json, state: string, failKind?: string): void {
  expect(stateOf(task) === state, state, () => `${stateOf(task)} (${brief(task?.status?.message ?? "", 160)})`);
  if (failKind === undefined) return;
  const kind = failKindOf(task);
  expect(kind === failKind, `fail kind ${failKind}`, () => `fail kind ${brief(kind ?? "not reported")}`);
}

const refusal = (id: string, title: string, section: string, cases: [string, Envelope][]): ScenarioEntry => ({
  id,
  source: `${SEED} "${section}"`,
  title,
  async run(ctx) {
    for (const [what, env] of cases) await expectRefused(ctx, env, what);
  },
});

const request = requestPath("exit-0");

export const ADAPTER_SCENARIOS: Scenario[] = familyScenarios("ADAPTER", "one", [
  refusal("ADAPTER-REFUSE-ADAPTER", "an adapter other than sandbox-agent-runner is refused", "Purpose", [
    ["adapter other-runner", envelope("exit-0", { adapter: "other-runner" })],
    ["no adapter", envelope("exit-0", { adapter: undefined })],
  ]),
  refusal("ADAPTER-REFUSE-MODE", "a mode other than plan or assess is refused", "Semantics: mode", [
    ["mode apply", envelope("exit-0", { mode: "apply" })],
    ["mode PLAN", envelope("exit-0", { mode: "PLAN" })],
  ]),
  refusal(
    "ADAPTER-REFUSE-COMMAND",
    "any other command shape is refused",
    "Semantics: the only supported command shape",
    [
      [
        "another script",
        envelope("exit-0", {
          command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/other.mjs", "--request", request],
        }),
      ],
      ["another program", envelope("exit-0", { command: ["sh", "-c", "echo conformance"] })],
      ["a fifth argument", envelope("exit-0", { command: ["node", RUNNER_PATH, "--request", request, "--extra"] })],
      ["--request missing", envelope("exit-0", { command: ["node", RUNNER_PATH, request] })],
    ],
  ),
  refusal(
    "ADAPTER-REFUSE-FOLDER",
    "a request outside the two folders is refused",
    "Semantics: <relative-request-path>",
    [
      [
        "another folder",
        envelope("exit-0", { command: ["node", RUNNER_PATH, "--request", ".aiwg/ops/other/exit-0.json"] }),
      ],
      ["an absolute path", envelope("exit-0", { command: ["node", RUNNER_PATH, "--request", "/etc/hostname"] })],
      [
        "a .. escape",
        envelope("exit-0", { command: ["node", RUNNER_PATH, "--request", ".aiwg/ops/runs/../../../x.json"] }),
      ],
    ],
  ),
  refusal("ADAPTER-REFUSE-TIMEOUT", "timeout_seconds outside 1..900 is refused", "Semantics: timeout_seconds", [
    ["timeout 0", envelope("exit-0", { timeout_seconds: 0 })],
    ["timeout 901", envelope("exit-0", { timeout_seconds: 901 })],
    ["timeout -1", envelope("exit-0", { timeout_seconds: -1 })],
    ['timeout "300"', envelope("exit-0", { timeout_seconds: "300" })],
  ]),
  {
    id: "ADAPTER-FOLDERS",
    source: `${SEED} "Semantics: <relative-request-path>"`,
    title: "a request under either allowed folder runs",
    async run(ctx) {
      for (const path of [request, IN_ADAPTER_FOLDER])
        expectRan(await runToEnd(ctx, envelope("exit-0", { command: ["node", RUNNER_PATH, "--request", path] })));
    },
  },
  {
    id: "ADAPTER-TIMEOUT-ACCEPTED",
    source: `${SEED} "Semantics: timeout_seconds defaults to 300 and must be between 1 and 900"`,
    title: "timeout_seconds 1, 900 and absent run; absent is 300",
    async run(ctx) {
      for (const timeout of [1, 900]) expectRan(await runToEnd(ctx, envelope("exit-0", { timeout_seconds: timeout })));
      const task = await runToEnd(ctx, envelope("exit-0", { timeout_seconds: undefined }));
      expectRan(task);
      const reported = task?.metadata?.[ADAPTER]?.timeout_seconds;
      expect(reported === undefined || reported === 300, "timeout_seconds 300 where the task reports it", () =>
        brief(reported),
      );
    },
  },
  {
    id: "ADAPTER-DEADLINE",
    source: `${SEED} "Optional text input: the command's deadline applies"; "Task State"`,
    title: "a command still running at timeout_seconds fails",
    async run(ctx) {
      expectState(await runToEnd(ctx, envelope("sleep", { timeout_seconds: 1 })), STATE.failed);
    },
  },
  {
    id: "ADAPTER-EXIT-0",
    source: `${SEED} "Task State: exit code 0 transitions the task to completed"`,
    title: "exit 0 → completed",
    async run(ctx) {
      expectRan(await runToEnd(ctx, envelope("exit-0")));
    },
  },
  {
    id: "ADAPTER-EXIT-NONZERO",
    source: `${SEED} "Task State: non-zero exit transitions the task to failed with application failure"`,
    title: "exit 3 → failed (application)",
    async run(ctx) {
      expectState(await runToEnd(ctx, envelope("exit-3")), STATE.failed, "application");
    },
  },
  {
    id: "ADAPTER-CANNOT-START",
    source: `${SEED} "Task State: dispatch/runtime failures transition the task to failed with infrastructure failure"`,
    title: "a command that cannot start (its working directory is missing) → failed (infrastructure)",
    async run(ctx) {
      const env = envelope("exit-0", { working_dir: "/workspace/conformance-missing-directory" });
      const answer = await ctx.driver.call("SendMessage", sendParams(env));
      if (answer.error) throw new Mismatch("a task that fails (infrastructure)", `a refusal: ${shown(answer)}`);
      expectState(await ended(ctx, taskOf(answer.result)), STATE.failed, "infrastructure");
    },
  },
  {
    id: "ADAPTER-MODE-ENV",
    source: `${SEED} "Semantics: the selected value is exposed to the command as AIWG_A2A_ADAPTER_MODE"`,
    title: "plan and assess reach the command",
    async run(ctx) {
      for (const mode of ["plan", "assess"]) {
        const task = await runToEnd(ctx, envelope("env", { mode }));
        expectState(task, STATE.completed);
        const line = `AIWG_A2A_ADAPTER_MODE=${JSON.stringify(mode)}`;
        expect(outputOf(task, "stdout").includes(line) || allOutput(task).includes(line), line, () =>
          brief(allOutput(task)),
        );
      }
    },
  },
  {
    id: "ADAPTER-ENV",
    source:
      "agentic-sandbox adapter-command/v1 spec (environment: AIWG_A2A_ADAPTER, AIWG_A2A_TASK_ID, AIWG_A2A_MESSAGE)",
    title: "the adapter, the task id and the message reach the command",
    async run(ctx) {
      const text = "conformance message text";
      const task = await runToEnd(ctx, envelope("env"), text);
      const output = allOutput(task);
      for (const line of [
        `AIWG_A2A_ADAPTER=${JSON.stringify("sandbox-agent-runner")}`,
        `AIWG_A2A_TASK_ID=${JSON.stringify(task.id)}`,
        `AIWG_A2A_MESSAGE=${JSON.stringify(text)}`,
      ])
        expect(output.includes(line), line, () => brief(output));
    },
  },
  {
    id: "ADAPTER-ARTIFACTS",
    source: `${SEED} "Task State: Stdout and stderr chunks are captured as task artifacts"`,
    title: "stdout and stderr arrive as two artifacts",
    async run(ctx) {
      const task = await runToEnd(ctx, envelope("streams"));
      expectState(task, STATE.completed);
      const artifacts: Json[] = Array.isArray(task.artifacts) ? task.artifacts : [];
      const holding = (marker: string) =>
        artifacts.findIndex((artifact) =>
          (artifact?.parts ?? []).some((part: Json) => String(part?.text ?? "").includes(marker)),
        );
      const out = holding("conformance-stdout-marker");
      const err = holding("conformance-stderr-marker");
      expect(
        out >= 0 && err >= 0 && out !== err,
        "the stdout marker and the stderr marker in two different artifacts",
        () => brief(artifacts),
      );
    },
  },
  {
    id: "ADAPTER-ECHO",
    source: `${SEED} "Semantics: If the envelope is absent, messages:send preserves the default echo-backed text dispatch"`,
    title: "no envelope → the echo",
    async run(ctx) {
      const text = "conformance echo text";
      const task = await runToEnd(ctx, undefined, text);
      expectState(task, STATE.completed);
      // The echo is the agent's: an artifact, or an agent message (the user's own message in the history is no echo).
      const agentSaid = [...(Array.isArray(task.history) ? task.history : []), task.status?.message]
        .filter((message: Json) => message?.role === "ROLE_AGENT")
        .some((message: Json) => JSON.stringify(message.parts ?? []).includes(text));
      expect(allOutput(task).includes(text) || agentSaid, `the text "${text}" echoed by the agent`, () => brief(task));
    },
  },
]);
