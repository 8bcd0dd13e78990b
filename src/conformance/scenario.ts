// What a conformance scenario is (docs/reference.md, "conformance"): a stable id, the words it checks (spec and
// section), and a check that passes, fails with what was expected and what was found, or is skipped with a reason.
import type { CardInfo } from "./card.js";
import type { Binding, Driver } from "./driver.js";

export type Family = "A2A" | "ADAPTER" | "HITL" | "IDEM" | "RUNTIME";

export interface Scenario {
  id: string;
  family: Family;
  /** The spec and section whose words the check takes its expected values from. */
  source: string;
  /** What it checks, in a few words. */
  title: string;
  /** `each`: once on every binding under test; `one`: once, on the first binding under test. */
  per: "each" | "one";
  run(ctx: ScenarioContext): Promise<void>;
}

/** A scenario as its family's list writes it: the family is the list's, and `per` the list's unless it says. */
export type ScenarioEntry = Omit<Scenario, "family" | "per"> & Partial<Pick<Scenario, "per">>;

/** The scenarios of `family`, each run `per` binding as the family mostly is unless its entry says otherwise. */
export function familyScenarios(family: Family, per: Scenario["per"], entries: ScenarioEntry[]): Scenario[] {
  return entries.map((entry) => ({ family, per, ...entry }));
}

/** What a scenario works with: the card, the binding it runs on, and the suite's options. */
export interface ScenarioContext {
  card: CardInfo;
  driver: Driver;
  /** The drivers of every binding under test (a scenario that looks at another binding's answer). */
  drivers: Driver[];
  /** Longest the suite waits for a state or a TTL (`--max-wait`). */
  maxWaitMs: number;
  /** Restarts the runtime and returns once its card is served again; undefined when no restart is possible. */
  restart?: () => Promise<void>;
  /** The base URL of the server (`--server`). */
  server: string;
}

/** A check that did not hold: what the spec expects and what the server answered. */
export class Mismatch extends Error {
  constructor(
    readonly expected: string,
    readonly found: string,
  ) {
    super(`expected ${expected}, found ${found}`);
  }
}

/** A scenario that cannot run here, and why. */
export class Skip extends Error {}

export function expect(holds: boolean, expected: string, found: () => string): asserts holds {
  if (!holds) throw new Mismatch(expected, found());
}

export type Verdict = "pass" | "fail" | "skip";

export interface Result {
  id: string;
  family: Family;
  source: string;
  title: string;
  binding: Binding | "-";
  /** The runtime set-up of `--self` the result comes from (e.g. "state-dir"); absent against one server. */
  setup?: string;
  verdict: Verdict;
  expected?: string;
  found?: string;
  reason?: string;
  ms: number;
}
