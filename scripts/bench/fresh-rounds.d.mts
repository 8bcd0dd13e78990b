// Types of scripts/bench/fresh-rounds.mjs, for its unit test (TypeScript reads no types from a .mjs).
export interface StartedServer {
  stop(): Promise<unknown>;
}

export function freshRounds<S extends StartedServer>(
  targets: Record<string, () => Promise<S>>,
  rounds: number,
  measure: (name: string, server: S, round: number) => Promise<unknown>,
): Promise<void>;
