// Types of scripts/bench/compare.mjs, for its unit test (TypeScript reads no types from a .mjs).
export interface Figure {
  name: string;
  value?: number | null;
  unit?: string | null;
  baseline?: number | null;
  ratio?: number | null;
  goal?: string | null;
  tie?: boolean;
  error?: string;
  [key: string]: unknown;
}

export type Verdict = "worse" | "better" | "within" | "missing" | "unjudged" | "failed";

export interface Comparison {
  name: string;
  group: string;
  compared: "ratio" | "value" | null;
  unit?: string | null;
  better?: "higher" | "lower" | null;
  this?: number | null;
  other?: number | null;
  this_rounds?: (number | null)[];
  other_rounds?: (number | null)[];
  ratio?: number | null;
  worse_by?: number | null;
  tolerance?: number | null;
  rounds_apart?: boolean;
  pairs?: number;
  verdict: Verdict;
  no_worse: boolean;
  reason?: string;
}

export type Run = Figure[] | { failed: string };

export const DEFAULT_FLOOR: number;
export function directionOf(figure: Pick<Figure, "unit" | "goal">): "higher" | "lower" | null;
export function measureOf(figures: (Figure | undefined)[]): "ratio" | "value";
export function compareFigure(input: {
  name: string;
  group: string;
  thisRounds: (Figure | undefined)[];
  otherRounds: (Figure | undefined)[];
  floor?: number;
}): Comparison;
export function compareGroup(
  group: string,
  thisRuns: Run[],
  otherRuns: Run[],
  options?: { floor?: number },
): Comparison[];
export function parseLines(text: string): { figures: Figure[]; unreadable: number };
export function thisFirst(round: number): boolean;
