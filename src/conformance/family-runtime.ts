// RUNTIME-CONF-*: runtime/v1 §7's scenarios that apply to a runtime of one instance (008, unknown provider and
// capability ids, needs runtimes configured with them, and is left out).
import { randomUUID } from "node:crypto";
import { readCard } from "./card.js";
import type { Json } from "./driver.js";
import { A2A_ERRORS, expectA2AError } from "./errors.js";
import { brief } from "./http.js";
import { sendOk, sendParams, shown } from "./messages.js";
import { expect, familyScenarios, type Scenario, type ScenarioContext, Skip } from "./scenario.js";
import { RUNTIME, UUID_V4_V7 } from "./uris.js";

const SPEC = "runtime/v1 §7";

function runtimeEntries(ctx: ScenarioContext): Json[] {
  const extensions: Json[] = ctx.card.card.capabilities?.extensions ?? [];
  return Array.isArray(extensions) ? extensions.filter((entry) => entry?.uri === RUNTIME) : [];
}

function params(ctx: ScenarioContext): Json {
  const [entry] = runtimeEntries(ctx);
  if (!entry) throw new Skip("the card declares no runtime/v1 extension");
  return entry.params ?? {};
}

async function taskMetadata(ctx: ScenarioContext): Promise<Json> {
  const task = await sendOk(ctx, sendParams(undefined, { text: "conformance runtime" }), { extensions: [RUNTIME] });
  return task.metadata ?? {};
}

export const RUNTIME_SCENARIOS: Scenario[] = familyScenarios("RUNTIME", "one", [
  {
    id: "RUNTIME-CONF-001",
    source: `${SPEC} RUNTIME-CONF-001`,
    title: "one runtime/v1 entry on the card, required, with valid params",
    async run(ctx) {
      const entries = runtimeEntries(ctx);
      expect(
        entries.length === 1,
        "exactly one capabilities.extensions[] entry with the runtime/v1 URI",
        () => `${entries.length}`,
      );
      const [entry] = entries;
      expect(entry.required === true, "required: true", () => `required: ${brief(entry.required)}`);
      const p = entry.params ?? {};
      expect(
        typeof p.instance_id === "string" &&
          UUID_V4_V7.test(p.instance_id) &&
          typeof p.runtime === "string" &&
          p.runtime !== "",
        "params with instance_id (a UUID v4 or v7) and runtime (a non-empty string)",
        () => brief(p),
      );
      for (const name of ["provider", "loadout", "image_ref"])
        if (p[name] !== undefined)
          expect(typeof p[name] === "string" && p[name] !== "", `params.${name} a non-empty string`, () =>
            brief(p[name]),
          );
    },
  },
  {
    id: "RUNTIME-CONF-002",
    source: `${SPEC} RUNTIME-CONF-002`,
    title: "an activated runtime/v1 comes back in the A2A-Extensions response header",
    per: "each",
    async run(ctx) {
      params(ctx);
      const answer = await ctx.driver.call("SendMessage", sendParams(undefined, { text: "conformance runtime" }), {
        extensions: [RUNTIME],
      });
      expect(!answer.error, "a success", () => shown(answer));
      const header = answer.headers["a2a-extensions"] ?? "";
      expect(
        header
          .split(",")
          .map((uri) => uri.trim())
          .includes(RUNTIME),
        `A2A-Extensions naming ${RUNTIME}`,
        () => `A2A-Extensions: ${brief(header || "(absent)")}`,
      );
    },
  },
  {
    id: "RUNTIME-CONF-003",
    source: `${SPEC} RUNTIME-CONF-003; A2A 1.0.1 §5.4 ExtensionSupportRequiredError`,
    title: "with runtime/v1 required, a request without it is refused, naming the URI",
    per: "each",
    async run(ctx) {
      const [entry] = runtimeEntries(ctx);
      if (entry?.required !== true) throw new Skip("the card does not declare runtime/v1 required");
      const answer = await ctx.driver.call("GetTask", { id: randomUUID() }, { noExtensions: true });
      expectA2AError(ctx.driver.binding, answer.error, A2A_ERRORS.extensionSupportRequired, answer.result);
      expect(JSON.stringify(answer.error).includes(RUNTIME), `the error naming ${RUNTIME}`, () => shown(answer));
    },
  },
  {
    id: "RUNTIME-CONF-004",
    source: `${SPEC} RUNTIME-CONF-004`,
    title: "a task's runtime.* metadata equals the card's params",
    async run(ctx) {
      const p = params(ctx);
      const metadata = await taskMetadata(ctx);
      expect(metadata["runtime.instance_id"] === p.instance_id, `runtime.instance_id ${p.instance_id}`, () =>
        brief(metadata["runtime.instance_id"] ?? "(absent)"),
      );
      expect(metadata["runtime.kind"] === p.runtime, `runtime.kind ${p.runtime}`, () =>
        brief(metadata["runtime.kind"] ?? "(absent)"),
      );
      for (const name of ["provider", "capabilities"])
        if (p[name] !== undefined && metadata[`runtime.${name}`] !== undefined)
          expect(
            JSON.stringify(metadata[`runtime.${name}`]) === JSON.stringify(p[name]),
            `runtime.${name} ${brief(p[name])}`,
            () => brief(metadata[`runtime.${name}`]),
          );
      if (metadata["runtime.host"] !== undefined)
        expect(
          typeof metadata["runtime.host"] === "string" && metadata["runtime.host"] !== "",
          "runtime.host a non-empty string",
          () => brief(metadata["runtime.host"]),
        );
    },
  },
  {
    id: "RUNTIME-CONF-005",
    source: `${SPEC} RUNTIME-CONF-005`,
    title: "image_ref per runtime kind (host: absent)",
    async run(ctx) {
      const p = params(ctx);
      if (p.runtime !== "host")
        throw new Skip(`the image_ref rule of runtime kind ${brief(p.runtime)} is not checked by this suite`);
      expect(p.image_ref === undefined, "no image_ref for runtime host", () => brief(p.image_ref));
    },
  },
  {
    id: "RUNTIME-CONF-006",
    source: `${SPEC} RUNTIME-CONF-006`,
    title: "params.instance_id is byte-identical on every fetch of the card",
    async run(ctx) {
      const first = params(ctx).instance_id;
      for (let fetch = 2; fetch <= 4; fetch++) {
        const again = await readCard(ctx.server, 10_000);
        const id = (again.card.capabilities?.extensions ?? []).find((entry: Json) => entry?.uri === RUNTIME)?.params
          ?.instance_id;
        expect(id === first, `fetch ${fetch}: instance_id ${first}`, () => brief(id));
      }
    },
  },
  {
    id: "RUNTIME-CONF-007",
    source: `${SPEC} RUNTIME-CONF-007`,
    title: "the instance id is a UUID v4 or v7, the same on the card and in task metadata",
    async run(ctx) {
      const id = params(ctx).instance_id;
      expect(typeof id === "string" && UUID_V4_V7.test(id), "a UUID v4 or v7", () => brief(id));
      const metadata = await taskMetadata(ctx);
      expect(metadata["runtime.instance_id"] === id, `${id} byte for byte in the task`, () =>
        brief(metadata["runtime.instance_id"]),
      );
    },
  },
]);
