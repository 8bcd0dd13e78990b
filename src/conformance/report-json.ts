// `--json`: one JSON document on stdout when the suite ends: the server, the summary, every result.
import { summarize } from "./report-text.js";
import type { Result } from "./scenario.js";

export function jsonReport(server: string, results: Result[], ms: number): string {
  return `${JSON.stringify({ server, summary: { ...summarize(results), ms: Math.round(ms) }, results }, null, 2)}\n`;
}
