#!/usr/bin/env node
// Builds the operator console (src/web, CONTRACT section 10) into dist/web: one script bundled and minified by
// esbuild (Preact, anser and the validator of src/core), one stylesheet (with the ANSI colour classes made here),
// and the page. `npm run build` runs it after tsc; the server reads dist/web (src/http/console/assets.ts).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = new URL("..", import.meta.url).pathname;
const out = `${root}dist/web/`;
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [`${root}src/web/main.tsx`],
  outfile: `${out}console.js`,
  bundle: true,
  minify: true,
  format: "esm",
  platform: "browser",
  target: ["chrome110", "firefox110", "safari16"],
  jsx: "automatic",
  jsxImportSource: "preact",
  tsconfig: `${root}src/web/tsconfig.json`,
  legalComments: "eof",
  logLevel: "warning",
});

/**
 * The 16 base colours on the dark output background: anser's name (SGR 30–37, 90–97), the text colour, the
 * background. One table for both ways a program asks for them: by name (.ansi-red-fg) and as 38;5;N with N under 16.
 */
const BASE_COLOURS = [
  ["black", "555", "000"],
  ["red", "ff6b6b", "b71c1c"],
  ["green", "69db7c", "2b8a3e"],
  ["yellow", "ffd43b", "a07c00"],
  ["blue", "74c0fc", "1c5fb8"],
  ["magenta", "e599f7", "862e9c"],
  ["cyan", "66d9e8", "0b7285"],
  ["white", "e9ecef", "adb5bd"],
  ["bright-black", "868e96", "495057"],
  ["bright-red", "ffa8a8", "e03131"],
  ["bright-green", "b2f2bb", "37b24d"],
  ["bright-yellow", "ffec99", "f59f00"],
  ["bright-blue", "a5d8ff", "1971c2"],
  ["bright-magenta", "eebefa", "ae3ec9"],
  ["bright-cyan", "99e9f2", "1098ad"],
  ["bright-white", "fff", "f1f3f5"],
];

/** The ANSI colour classes: the 16 base colours, then the rest of the xterm 256-colour palette, 16..255. */
function colourRules() {
  const rules = BASE_COLOURS.map(
    ([name, fg, bg], i) =>
      `.ansi-${name}-fg,.ansi-palette-${i}-fg{color:#${fg}}.ansi-${name}-bg,.ansi-palette-${i}-bg{background:#${bg}}`,
  );
  const hex = (n) => n.toString(16).padStart(2, "0");
  const levels = [0, 95, 135, 175, 215, 255];
  for (let i = 16; i < 256; i++) {
    let rgb;
    if (i < 232) {
      const n = i - 16;
      rgb = [levels[Math.floor(n / 36)], levels[Math.floor(n / 6) % 6], levels[n % 6]];
    } else {
      const grey = 8 + (i - 232) * 10;
      rgb = [grey, grey, grey];
    }
    const colour = `#${rgb.map(hex).join("")}`;
    rules.push(`.ansi-palette-${i}-fg{color:${colour}}.ansi-palette-${i}-bg{background:${colour}}`);
  }
  return rules.join("\n");
}

const css = await build({
  stdin: { contents: `${readFileSync(`${root}src/web/console.css`, "utf8")}\n${colourRules()}\n`, loader: "css" },
  write: false,
  minify: true,
  logLevel: "warning",
});
writeFileSync(`${out}console.css`, css.outputFiles[0].contents);
copyFileSync(`${root}src/web/index.html`, `${out}index.html`);

if (process.argv.includes("--sizes")) {
  let total = 0;
  for (const file of ["index.html", "console.js", "console.css"]) {
    const bytes = readFileSync(`${out}${file}`);
    const gzip = gzipSync(bytes, { level: 9 }).length;
    total += gzip;
    console.log(`${file}: ${bytes.length} bytes, ${gzip} gzip`);
  }
  console.log(`all assets: ${total} bytes gzip (${(total / 1024).toFixed(1)} KiB)`);
}
