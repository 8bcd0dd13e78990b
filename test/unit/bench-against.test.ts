// `bench.mjs --against DIR` (scripts/bench/against.mjs) on two stand-in checkouts whose bench prints set figures:
// each side's own bench is run as a child, the sides take turns, the figures are judged and the exit code says so.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { against, unusableCheckout } from "../../scripts/bench/against.mjs";

const root = mkdtempSync(join(tmpdir(), "bench-against-"));
after(() => rmSync(root, { recursive: true, force: true }));

/**
 * A stand-in bench: appends `<side> <group>` to the shared order file, then prints `ms` as the `startup_validate_ms`
 * of the group it is asked for, or exits 1 with a message and no figures when `ms` is null.
 */
const BENCH = `
import { appendFileSync } from "node:fs";
const group = process.argv[process.argv.indexOf("--only") + 1];
appendFileSync(process.env.ORDER_FILE, \`\${SIDE} \${group} \${process.argv.includes("--quick") ? "quick" : "full"}\\n\`);
if (MS === null) {
  process.stderr.write("bench: the build is broken\\n");
  process.exit(1);
}
process.stderr.write(\`bench: \${group} done\\n\`);
process.stdout.write(JSON.stringify({ name: "startup_validate_ms", value: MS, unit: "ms", baseline: null, ratio: null, goal: "< 2.5 x node -e 0" }) + "\\n");
`;

let checkouts = 0;
function checkout(side: string, ms: number | null, { built = true } = {}) {
  const dir = join(root, `${side}-${++checkouts}`);
  for (const sub of ["scripts", "bin", "dist"]) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(
    join(dir, "scripts/bench.mjs"),
    `const SIDE = ${JSON.stringify(side)};\nconst MS = ${JSON.stringify(ms)};\n${BENCH}`,
  );
  writeFileSync(join(dir, "bin/adapter-command.js"), "");
  if (built) writeFileSync(join(dir, "dist/cli.js"), "");
  return dir;
}

async function compare(mine: number | null, theirs: number | null, rounds = 3) {
  const order = join(root, `order-${++checkouts}`);
  writeFileSync(order, "");
  process.env.ORDER_FILE = order;
  const printed: string[] = [];
  const noted: string[] = [];
  const code = await against({
    self: checkout("this", mine),
    other: checkout("other", theirs),
    groups: ["startup", "dispatch"],
    rounds,
    floor: 0.05,
    childArgs: ["--quick"],
    print: (line: string) => printed.push(line),
    note: (line: string) => noted.push(line),
  });
  return {
    code,
    lines: printed.map((line) => JSON.parse(line)),
    log: noted.join("\n"),
    order: readFileSync(order, "utf8").trim().split("\n"),
  };
}

describe("bench --against", () => {
  it("runs each side's own bench per group, taking turns at going first, with the options given", async () => {
    const { code, order, lines } = await compare(100, 100, 3);
    assert.equal(code, 0);
    assert.deepEqual(order, [
      "this startup quick",
      "other startup quick",
      "other startup quick",
      "this startup quick",
      "this startup quick",
      "other startup quick",
      "this dispatch quick",
      "other dispatch quick",
      "other dispatch quick",
      "this dispatch quick",
      "this dispatch quick",
      "other dispatch quick",
    ]);
    assert.deepEqual(
      lines.map(({ group, name, verdict, pairs }) => [group, name, verdict, pairs]),
      [
        ["startup", "startup_validate_ms", "within", 3],
        ["dispatch", "startup_validate_ms", "within", 3],
      ],
    );
  });

  it("exits 1 and says which figure is worse when this build is 10 % slower in every round", async () => {
    const { code, lines, log } = await compare(110, 100, 2);
    assert.equal(code, 1);
    assert.equal(lines[0].verdict, "worse");
    assert.equal(lines[0].this, 110);
    assert.equal(lines[0].other, 100);
    assert.equal(lines[0].better, "lower");
    assert.match(log, /2 of 2 worse: startup_validate_ms, startup_validate_ms/);
    assert.match(log, /\[this startup 1\] bench: startup done/);
  });

  it("counts a run of this build that printed no figures as failed, with the end of its log", async () => {
    const { code, lines } = await compare(null, 100, 1);
    assert.equal(code, 1);
    const failed = lines.find((line) => line.verdict === "failed");
    assert.match(failed.reason, /no figures; exit 1; its log ends: .*the build is broken/);
  });

  it("refuses a checkout that has not been built", () => {
    assert.match(unusableCheckout(checkout("other", 1, { built: false })) ?? "", /has no dist\/cli\.js.*npm run build/);
    assert.equal(unusableCheckout(checkout("other", 1)), undefined);
  });
});
