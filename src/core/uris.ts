// The extension URIs and the allowlisted command, as adapter-command/v1 names them.
export const ADAPTER_URI = "https://agentic-sandbox.aiwg.io/extensions/adapter-command/v1";
export const HITL_URI = "https://agentic-sandbox.aiwg.io/extensions/hitl-prompt/v1";

export const ADAPTER_NAME = "sandbox-agent-runner";
export const RUNNER_PATH = ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs";
export const REQUEST_ROOTS = [".aiwg/ops/adapters/sandbox-agent-runner/", ".aiwg/ops/runs/"] as const;
export const MODES = ["plan", "assess"] as const;
export type Mode = (typeof MODES)[number];
