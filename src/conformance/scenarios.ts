// Every scenario, in the order they run and are listed (docs/reference.md, "conformance").
import { A2A_SCENARIOS } from "./family-a2a.js";
import { ADAPTER_SCENARIOS } from "./family-adapter.js";
import { HITL_SCENARIOS } from "./family-hitl.js";
import { IDEM_SCENARIOS } from "./family-idempotency.js";
import { RUNTIME_SCENARIOS } from "./family-runtime.js";
import { SDK_SCENARIOS } from "./family-sdk.js";
import type { Scenario } from "./scenario.js";

export const SCENARIOS: Scenario[] = [
  ...A2A_SCENARIOS,
  ...SDK_SCENARIOS,
  ...RUNTIME_SCENARIOS,
  ...ADAPTER_SCENARIOS,
  ...HITL_SCENARIOS,
  ...IDEM_SCENARIOS,
];

/** The scenarios whose id starts with one of `prefixes` (all when none), less those named in `except`. */
export function selectScenarios(prefixes: string[], except: string[] = []): Scenario[] {
  return SCENARIOS.filter(
    (scenario) =>
      (prefixes.length === 0 || prefixes.some((prefix) => scenario.id.startsWith(prefix.toUpperCase()))) &&
      !except.includes(scenario.id),
  );
}
