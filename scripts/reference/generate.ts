// docs/reference.md is prose with tables generated from the code's own tables, between
// `<!-- generated:NAME -->` and `<!-- /generated -->`. `npm run reference` rewrites them; a test fails when they differ.

import { envelopeJsonSchema } from "../../src/a2a/input-schema.js";
import { TABLE as V03 } from "../../src/a2a/v0_3/errors.js";
import { TABLE as V10 } from "../../src/a2a/v1_0/errors.js";
import { SCENARIOS } from "../../src/conformance/scenarios.js";
import { HITL_REASONS } from "../../src/core/errors.js";
import { DEFAULT_SETTLE_MS, PROMPT_MARKERS, PROMPT_WINDOW_BYTES } from "../../src/core/hitl/prompt.js";
import { RUNNER_ENV } from "../../src/core/task/launch.js";
import { END_REASONS, FAIL_KINDS, TASK_STATES, TRANSITIONS } from "../../src/core/task/task.js";
import { EXIT, EXIT_MEANINGS } from "../../src/exit-codes.js";

const code = (text: string | number) => `\`${String(text).replaceAll("|", "\\|")}\``;
const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

function table(head: string[], rows: string[][]): string {
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

function describeSchema(schema: Record<string, unknown>): string {
  if ("const" in schema) return `exactly ${code(JSON.stringify(schema.const))}`;
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => code(JSON.stringify(v))).join(", ")}`;
  if (schema.type === "array" && Array.isArray(schema.prefixItems))
    return `exactly ${schema.prefixItems.length} strings: ${schema.prefixItems.map((item: Record<string, unknown>) => ("const" in item ? code(String(item.const)) : "REQUEST")).join(", ")}`;
  const parts = [String(schema.type ?? "any")];
  if (schema.minimum !== undefined) parts.push(`${schema.minimum}..${schema.maximum}`);
  return parts.join(" ");
}

const BLOCKS: Record<string, () => string> = {
  "envelope-fields": () => {
    const schema = envelopeJsonSchema() as { properties: Record<string, Record<string, unknown>>; required: string[] };
    return table(
      ["field", "required", "rule", "default", "what it is"],
      Object.entries(schema.properties).map(([name, field]) => [
        code(name),
        schema.required.includes(name) ? "yes" : "no",
        describeSchema(field),
        field.default === undefined ? "" : code(JSON.stringify(field.default)),
        cell(String(field.description ?? field.title ?? "")),
      ]),
    );
  },
  "runner-env": () =>
    table(
      ["variable", "value"],
      Object.entries(RUNNER_ENV).map(([name, meaning]) => [code(name), meaning]),
    ),
  states: () =>
    table(
      ["state", "may move to"],
      TASK_STATES.map((state) => [
        code(state),
        TRANSITIONS[state].length ? TRANSITIONS[state].map(code).join(", ") : "(ended)",
      ]),
    ),
  "fail-kinds": () =>
    table(
      ["fail_kind", "meaning"],
      Object.entries(FAIL_KINDS).map(([name, meaning]) => [code(name), meaning]),
    ),
  reasons: () =>
    table(
      ["reason", "meaning"],
      Object.entries(END_REASONS).map(([name, meaning]) => [code(name), meaning]),
    ),
  "prompt-markers": () =>
    [
      PROMPT_MARKERS.map(code).join(" · "),
      "",
      `Settle window: ${DEFAULT_SETTLE_MS} ms by default (\`--settle-ms\`). Window: the last ${PROMPT_WINDOW_BYTES / 1024} KiB of output.`,
    ].join("\n"),
  "hitl-reasons": () =>
    table(
      ["data.reason", "meaning"],
      Object.entries(HITL_REASONS).map(([name, meaning]) => [code(name), cell(meaning)]),
    ),
  errors: () =>
    table(
      ["core error", "JSON-RPC code", "0.3 message", "1.0 ErrorInfo reason (domain)", "REST status"],
      Object.entries(V10).map(([name, row]) => {
        const old = V03[name as keyof typeof V03];
        return [
          code(name),
          code(row.code),
          old.message ? code(old.message) : old.prefix ? `${code(`${old.prefix}: …`)}` : "the error's own words",
          `${code(row.reason)} (${row.domain})`,
          `${row.http} ${code(row.status)}`,
        ];
      }),
    ),
  "exit-codes": () =>
    table(
      ["code", "meaning"],
      Object.entries(EXIT).map(([name, value]) => [code(value), EXIT_MEANINGS[name as keyof typeof EXIT]]),
    ),
  "conformance-scenarios": () =>
    table(
      ["id", "runs", "source", "checks"],
      SCENARIOS.map((scenario) => [
        code(scenario.id),
        scenario.per === "each" ? "on each binding" : "once",
        cell(scenario.source),
        cell(scenario.title),
      ]),
    ),
};

const BLOCK = /<!-- generated:([a-z-]+) -->\n[\s\S]*?<!-- \/generated -->/g;

/** The document with every generated block made anew from the code. */
export function regenerate(document: string): string {
  return document.replace(BLOCK, (_whole, name: string) => {
    const make = BLOCKS[name];
    if (!make) throw new Error(`docs/reference.md names an unknown generated block "${name}"`);
    return `<!-- generated:${name} -->\n${make()}\n<!-- /generated -->`;
  });
}

export const BLOCK_NAMES = Object.keys(BLOCKS);
