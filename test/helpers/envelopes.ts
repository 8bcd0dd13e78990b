// The one builder of adapter-command/v1 envelopes and of the A2A 0.3 requests and files that carry them: bare
// envelopes for the validator's tests, send params for the bridges, files for `run` and `validate`.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SERVICE_PARAMETERS } from "../../src/a2a/service-params.js";
import { ADAPTER_URI, HITL_URI } from "../../src/core/uris.js";

export const RUNNER = ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs";
/** The request file every fixture working directory has. */
export const REQUEST = ".aiwg/ops/runs/req.json";

/** The `command` array for a request path relative to the working directory. */
export function commandFor(request: unknown): unknown[] {
  return ["node", RUNNER, "--request", request];
}

/** An envelope: `adapter`, `mode` and `command` set to valid values, then `fields`; a field given as undefined is left out. */
export function envelope(fields: Record<string, unknown> = {}): Record<string, unknown> {
  const built: Record<string, unknown> = {
    adapter: "sandbox-agent-runner",
    mode: "plan",
    command: commandFor(REQUEST),
  };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) delete built[key];
    else built[key] = value;
  }
  return built;
}

/** The valid envelope with another request path. */
export const withRequest = (request: unknown) => envelope({ command: commandFor(request) });

/** A new message id: a UUID, as a runtime that requires idempotency/v1 takes (CONTRACT 9.1). */
export function messageId(): string {
  return randomUUID();
}

export interface SendOptions {
  /** The message's text; an array gives one text part per item. Default "run the fixture". */
  text?: string | string[];
  contextId?: string;
  configuration?: Record<string, unknown>;
  /** Extensions to activate through `params.metadata["a2a-service-parameters"]` (a string is sent as it is). */
  extensions?: string | string[];
}

export interface EnvelopeOptions extends SendOptions {
  /** Envelope fields over the defaults (working_dir is the fixture's name, timeout_seconds 30). */
  envelope?: Record<string, unknown>;
}

/** A2A 0.3 MessageSendParams; `bare` leaves out `kind` and `messageId`, as a hand-written file may. */
function sendParams(options: SendOptions & { metadata?: Record<string, unknown>; bare?: boolean }) {
  const texts = [options.text ?? "run the fixture"].flat();
  const message: Record<string, unknown> = options.bare ? {} : { kind: "message", messageId: messageId() };
  Object.assign(message, {
    role: "user",
    parts: texts.map((text) => ({ kind: "text", text })),
    ...(options.contextId ? { contextId: options.contextId } : {}),
    ...(options.metadata ? { metadata: options.metadata } : {}),
  });
  const params: Record<string, unknown> = { message };
  if (options.configuration) params.configuration = options.configuration;
  if (options.extensions !== undefined) {
    const header = typeof options.extensions === "string" ? options.extensions : options.extensions.join(", ");
    params.metadata = { [SERVICE_PARAMETERS]: { "A2A-Extensions": header } };
  }
  return params;
}

/** MessageSendParams with an envelope for the fixture working directory `workingDir` (CONTRACT section 2). */
export function envelopeParams(workingDir: string, options: EnvelopeOptions = {}): Record<string, unknown> {
  const fields = { working_dir: workingDir, timeout_seconds: 30, ...options.envelope };
  return sendParams({ ...options, metadata: { [ADAPTER_URI]: envelope(fields) } });
}

/** MessageSendParams for a text-line command on `fixture`, with hitl-prompt/v1 activated unless told otherwise. */
export function textLineParams(fixture: string, options: EnvelopeOptions = {}): Record<string, unknown> {
  return envelopeParams(fixture, {
    ...options,
    envelope: { input_mode: "text-line", ...options.envelope },
    extensions: options.extensions ?? HITL_URI,
  });
}

/** MessageSendParams for a message without an envelope (echo dispatch). */
export function echoParams(text: string | string[], options: SendOptions = {}): Record<string, unknown> {
  return sendParams({ ...options, text });
}

/** An answer to an open prompt (CONTRACT section 4). */
export function answerParams(
  task: { id: string; contextId: string },
  promptId: string,
  payload: unknown,
  overrides: { taskId?: string; contextId?: string; responseFor?: unknown } = {},
): Record<string, unknown> {
  const text = typeof payload === "object" && payload !== null && "text" in payload ? payload.text : "";
  return {
    message: {
      kind: "message",
      messageId: messageId(),
      role: "user",
      parts: [{ kind: "text", text: typeof text === "string" ? text : String(text) }],
      taskId: overrides.taskId ?? task.id,
      contextId: overrides.contextId ?? task.contextId,
      metadata: { hitl_response_for: overrides.responseFor ?? { prompt_id: promptId, payload } },
    },
  };
}

// ---- Files for `run` and `validate` ---------------------------------------------------------------------------

let dir: string | undefined;
let count = 0;

function tempDir(): string {
  if (!dir) {
    const created = mkdtempSync(join(tmpdir(), "adapter-command-test-"));
    dir = created;
    process.once("exit", () => rmSync(created, { recursive: true, force: true }));
  }
  return dir;
}

/** Writes any JSON value (or, given a string or bytes, exactly that) to a new file; returns its path. */
export function writeJson(value: unknown, name = "input"): string {
  count += 1;
  const path = join(tempDir(), `${String(count).padStart(3, "0")}-${name}.json`);
  const exact = typeof value === "string" || Buffer.isBuffer(value);
  writeFileSync(path, exact ? value : `${JSON.stringify(value, null, 2)}\n`);
  return path;
}

/**
 * Writes shape A send params (without `kind` or `messageId`) whose envelope is the defaults, a 5 s timeout and
 * `fields` (a field given as undefined is left out); returns its path.
 */
export function writeEnvelope(
  fields: Record<string, unknown> & { working_dir: string },
  options: { text?: string | string[] } = {},
): string {
  const metadata = { [ADAPTER_URI]: envelope({ timeout_seconds: 5, ...fields }) };
  const params = sendParams({ ...options, metadata, bare: true });
  return writeJson(params, `envelope-${String(fields.working_dir).replace(/\W+/g, "_")}`);
}

/** Writes send params whose message has no envelope (the echo dispatch); returns its path. */
export function writeMessage(text: string | string[]): string {
  return writeJson(sendParams({ text, bare: true }), "message");
}
