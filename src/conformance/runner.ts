// Runs the scenarios against one runtime, one after another (they share its tasks and its clock): reads the card,
// makes a driver for each binding under test, and turns each scenario's outcome into a Result.
import { type CardInfo, readCard } from "./card.js";
import { BINDINGS, type Binding, type Driver, type DriverConfig, PROTOCOL_BINDING } from "./driver.js";
import { GrpcDriver } from "./driver-grpc.js";
import { JsonRpcDriver } from "./driver-jsonrpc.js";
import { RestDriver } from "./driver-rest.js";
import { Mismatch, type Result, type Scenario, type ScenarioContext, Skip } from "./scenario.js";

export interface SuiteOptions {
  server: string;
  token: string | undefined;
  /** The bindings to test; "all": every one the card declares. */
  binding: Binding | "all";
  scenarios: Scenario[];
  /** Longest wait for a state, a TTL or a restart. */
  maxWaitMs: number;
  /** Deadline of one request. */
  timeoutMs: number;
  restart?: () => Promise<void>;
  /** `--self`: which set-up of the runtime the results come from. */
  setup?: string;
  onResult?: (result: Result) => void;
}

const DRIVERS: Record<Binding, new (config: DriverConfig) => Driver> = {
  jsonrpc: JsonRpcDriver,
  rest: RestDriver,
  grpc: GrpcDriver,
};

/** Why `binding` cannot be tested on this card, or undefined when it can. */
function missing(card: CardInfo, binding: Binding): string | undefined {
  if (card.interfaces[binding]) return undefined;
  return card.refused[binding] ?? `the card declares no ${PROTOCOL_BINDING[binding]} 1.0 interface`;
}

async function outcome(scenario: Scenario, ctx: ScenarioContext, limitMs: number): Promise<Partial<Result>> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Mismatch(`an end within ${limitMs} ms`, "no end")), limitMs);
  });
  try {
    await Promise.race([scenario.run(ctx), limit]);
    return { verdict: "pass" };
  } catch (error) {
    if (error instanceof Skip) return { verdict: "skip", reason: error.message };
    if (error instanceof Mismatch) return { verdict: "fail", expected: error.expected, found: error.found };
    // A network failure or an answer of a shape the check could not read: the server's fault, said as found.
    return {
      verdict: "fail",
      expected: "an answer the scenario can read",
      found: (error as Error).message ?? String(error),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the suite; throws ServerProblem (card.ts) when the card cannot be read. */
export async function runSuite(options: SuiteOptions): Promise<Result[]> {
  const card = await readCard(options.server, options.timeoutMs);
  const wanted =
    options.binding === "all" ? BINDINGS.filter((b) => card.interfaces[b] || card.refused[b]) : [options.binding];
  const drivers = wanted
    .filter((binding) => missing(card, binding) === undefined)
    .map(
      (binding) =>
        new DRIVERS[binding]({
          url: card.interfaces[binding] as string,
          token: options.token,
          required: card.required,
          timeoutMs: options.timeoutMs,
        }),
    );
  const results: Result[] = [];
  const limitMs = options.maxWaitMs * 2 + 60_000;
  try {
    for (const scenario of options.scenarios) {
      const targets: (Binding | undefined)[] = scenario.per === "each" ? wanted : [drivers[0]?.binding];
      for (const binding of targets) {
        const started = performance.now();
        const driver = drivers.find((d) => d.binding === binding);
        const base = {
          id: scenario.id,
          family: scenario.family,
          source: scenario.source,
          title: scenario.title,
          binding: binding ?? "-",
          ...(options.setup ? { setup: options.setup } : {}),
        } as const;
        let found: Partial<Result>;
        if (!driver)
          found = {
            verdict: "skip",
            reason: binding ? (missing(card, binding) as string) : "no binding of the card can be tested",
          };
        else {
          const ctx: ScenarioContext = {
            card,
            driver,
            drivers,
            maxWaitMs: options.maxWaitMs,
            server: options.server,
            ...(options.restart ? { restart: options.restart } : {}),
          };
          found = await outcome(scenario, ctx, limitMs);
        }
        const result = { ...base, ...found, ms: Math.round(performance.now() - started) } as Result;
        results.push(result);
        options.onResult?.(result);
      }
    }
  } finally {
    for (const driver of drivers) driver.close();
  }
  return results;
}
