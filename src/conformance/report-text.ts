// The text report: one line per scenario, as it finishes (id, binding, verdict, source, and what was expected and
// found, or why it was skipped), then a summary line. Everything the server said is escaped (http.ts `brief`).
import { printable } from "../core/printable.js";
import type { Result } from "./scenario.js";

const WORD = { pass: "PASS", fail: "FAIL", skip: "SKIP" } as const;

export function resultLine(result: Result): string {
  const where = `${result.binding === "-" ? "" : ` [${result.binding}]`}${result.setup ? ` (${result.setup})` : ""}`;
  const detail =
    result.verdict === "fail"
      ? `: expected ${result.expected}; found ${result.found}`
      : result.verdict === "skip"
        ? `: ${result.reason}`
        : "";
  return printable(`${WORD[result.verdict]} ${result.id}${where} — ${result.source}${detail}`);
}

export interface Summary {
  passed: number;
  failed: number;
  skipped: number;
}

export function summarize(results: Result[]): Summary {
  return {
    passed: results.filter((r) => r.verdict === "pass").length,
    failed: results.filter((r) => r.verdict === "fail").length,
    skipped: results.filter((r) => r.verdict === "skip").length,
  };
}

export function summaryLine(results: Result[], ms: number): string {
  const { passed, failed, skipped } = summarize(results);
  return `${results.length} scenarios: ${passed} passed, ${failed} failed, ${skipped} skipped (${(ms / 1000).toFixed(1)} s)`;
}
