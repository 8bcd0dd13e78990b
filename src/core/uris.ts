// The extension URIs and the allowlisted command, as adapter-command/v1 names them.
export const ADAPTER_URI = "https://agentic-sandbox.aiwg.io/extensions/adapter-command/v1";
export const HITL_URI = "https://agentic-sandbox.aiwg.io/extensions/hitl-prompt/v1";
/** The runtime's own extensions (CONTRACT 9.1, 9.2). */
export const RUNTIME_URI = "https://agentic-sandbox.aiwg.io/extensions/runtime/v1";
export const IDEMPOTENCY_URI = "https://agentic-sandbox.aiwg.io/extensions/idempotency/v1";
/** runtime/v1's names for this tool: a host process, run by adapter-command, from a local loadout (CONTRACT 9.2). */
export const RUNTIME_KIND = "host";
export const RUNTIME_PROVIDER = "adapter-command";
export const RUNTIME_LOADOUT = "local";

export const ADAPTER_NAME = "sandbox-agent-runner";
export const RUNNER_PATH = ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs";
export const REQUEST_ROOTS = [".aiwg/ops/adapters/sandbox-agent-runner/", ".aiwg/ops/runs/"] as const;
export const MODES = ["plan", "assess"] as const;
export type Mode = (typeof MODES)[number];
