// Types of scripts/bench/judge.mjs, for its unit test (TypeScript reads no types from a .mjs).
export interface Figure {
  name: string;
  ratio: number | null;
  meets: boolean | null;
  [key: string]: unknown;
}

export interface JudgedFigure extends Figure {
  runs: number;
  runs_met: number | null;
  run_ratios: (number | null)[];
}

export function isTie(shape: string, chunk: number): boolean;
export function runsToMeet(runs: number): number;
export function judgeRuns(figures: Figure[]): JudgedFigure;
export function judgeAll(runs: Figure[][]): JudgedFigure[];
export function pairedOverhead(
  viaMs: number[],
  directMs: number[],
  limitMs?: number,
): {
  value: number;
  unit: "ms";
  baseline: number;
  ratio: number;
  goal: string;
  meets: boolean;
  median_difference_ms: number;
  pairs: number;
};
