#!/usr/bin/env node
// Builds the operator console (src/web, CONTRACT section 10) into dist/web: one script bundled and minified by
// esbuild (Preact, anser and the validator of src/core), one stylesheet (with the 256-colour palette classes made
// here), and the page. `npm run build` runs it after tsc; the server reads dist/web (src/http/console/assets.ts).
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

/** The xterm 256-colour palette: 16 base colours are styled by name in console.css; these are 16..255. */
function palette() {
  const rules = [];
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
  // The 16 base colours as console.css draws them by name (.ansi-red-fg...), for 38;5;N with N under 16.
  const fg =
    "555 ff6b6b 69db7c ffd43b 74c0fc e599f7 66d9e8 e9ecef 868e96 ffa8a8 b2f2bb ffec99 a5d8ff eebefa 99e9f2 fff";
  const bg =
    "000 b71c1c 2b8a3e a07c00 1c5fb8 862e9c 0b7285 adb5bd 495057 e03131 37b24d f59f00 1971c2 ae3ec9 1098ad f1f3f5";
  const fgs = fg.split(" ");
  const bgs = bg.split(" ");
  for (let i = 0; i < 16; i++)
    rules.push(`.ansi-palette-${i}-fg{color:#${fgs[i]}}.ansi-palette-${i}-bg{background:#${bgs[i]}}`);
  return rules.join("\n");
}

const css = await build({
  stdin: { contents: `${readFileSync(`${root}src/web/console.css`, "utf8")}\n${palette()}\n`, loader: "css" },
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
