// Types of scripts/bench/against.mjs, for its unit test (TypeScript reads no types from a .mjs).
export function unusableCheckout(dir: string): string | undefined;
export function against(options: {
  other: string;
  groups: string[];
  rounds: number;
  floor: number;
  childArgs?: string[];
  aborted?: () => boolean;
  self?: string;
  print?: (line: string) => void;
  note?: (line: string) => void;
}): Promise<0 | 1>;
