// Writes input files for `run` / `validate` into one temporary directory (removed when the test process exits).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADAPTER_URI } from "../../src/core/uris.js";

/**
 * The envelope's fields, deliberately loose so that invalid values can be written too.
 * A field given as `undefined` is left out of the file.
 */
export interface EnvelopeFields {
  adapter: unknown;
  mode: unknown;
  command: unknown;
  working_dir: unknown;
  timeout_seconds: unknown;
  input_mode: unknown;
  [key: string]: unknown;
}

export interface EnvelopeFileOptions {
  /** The message's text; an array gives one text part per item. Default "run the fixture". */
  text?: string | string[];
}

export const DEFAULT_REQUEST = ".aiwg/ops/runs/req.json";

export const DEFAULT_ENVELOPE = {
  adapter: "sandbox-agent-runner",
  mode: "plan",
  command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", DEFAULT_REQUEST],
  timeout_seconds: 5,
} as const;

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

/** The `command` array for a request path relative to the working directory. */
export function commandFor(request: string): string[] {
  return ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", request];
}

/** The send params (shape A) carrying an envelope made of the defaults plus `fields`. */
export function envelopeParams(
  fields: Partial<EnvelopeFields> & { working_dir: string },
  options: EnvelopeFileOptions = {},
): Record<string, unknown> {
  const envelope: Record<string, unknown> = { ...DEFAULT_ENVELOPE };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) delete envelope[key];
    else envelope[key] = value;
  }
  const texts = options.text === undefined ? ["run the fixture"] : [options.text].flat();
  return {
    message: {
      role: "user",
      parts: texts.map((text) => ({ kind: "text", text })),
      metadata: { [ADAPTER_URI]: envelope },
    },
  };
}

/** Writes shape A send params with an envelope (defaults + `fields`) to a temp file; returns its path. */
export function writeEnvelope(
  fields: Partial<EnvelopeFields> & { working_dir: string },
  options: EnvelopeFileOptions = {},
): string {
  return writeJson(envelopeParams(fields, options), `envelope-${String(fields.working_dir).replace(/\W+/g, "_")}`);
}

/** Writes send params whose message has no envelope (the echo dispatch); returns its path. */
export function writeMessage(text: string | string[]): string {
  const parts = [text].flat().map((item) => ({ kind: "text", text: item }));
  return writeJson({ message: { role: "user", parts } }, "message");
}
