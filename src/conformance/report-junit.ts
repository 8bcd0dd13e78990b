// `--junit FILE`: the results as JUnit XML for CI systems: a testsuite per family, a testcase per result, with
// <failure> (expected and found) or <skipped> (the reason).
import { summarize } from "./report-text.js";
import type { Result } from "./scenario.js";

/** Text as XML character data or attribute value; characters XML 1.0 cannot hold are written as \uXXXX. */
export function xmlText(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML cannot hold
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
}

const caseName = (result: Result) =>
  `${result.id}${result.binding === "-" ? "" : ` [${result.binding}]`}${result.setup ? ` (${result.setup})` : ""}`;

export function junitReport(results: Result[], ms: number): string {
  const families = [...new Set(results.map((result) => result.family))];
  const total = summarize(results);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="adapter-command conformance" tests="${results.length}" failures="${total.failed}" skipped="${total.skipped}" time="${(ms / 1000).toFixed(3)}">`,
  ];
  for (const family of families) {
    const members = results.filter((result) => result.family === family);
    const counts = summarize(members);
    const time = members.reduce((sum, result) => sum + result.ms, 0) / 1000;
    lines.push(
      `  <testsuite name="${family}" tests="${members.length}" failures="${counts.failed}" skipped="${counts.skipped}" time="${time.toFixed(3)}">`,
    );
    for (const result of members) {
      const open = `    <testcase classname="${family}" name="${xmlText(caseName(result))}" time="${(result.ms / 1000).toFixed(3)}"`;
      const source = `      <properties><property name="source" value="${xmlText(result.source)}"/></properties>`;
      if (result.verdict === "pass") lines.push(`${open}>`, source, "    </testcase>");
      else if (result.verdict === "skip")
        lines.push(`${open}>`, source, `      <skipped message="${xmlText(result.reason ?? "")}"/>`, "    </testcase>");
      else {
        const message = `expected ${result.expected}; found ${result.found}`;
        lines.push(
          `${open}>`,
          source,
          `      <failure message="${xmlText(message)}">${xmlText(message)}</failure>`,
          "    </testcase>",
        );
      }
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>", "");
  return lines.join("\n");
}
