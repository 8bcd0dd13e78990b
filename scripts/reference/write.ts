// `npm run reference`: rewrites the generated tables of docs/reference.md from the code.
import { readFileSync, writeFileSync } from "node:fs";
import { regenerate } from "./generate.js";

const path = new URL("../../docs/reference.md", import.meta.url);
writeFileSync(path, regenerate(readFileSync(path, "utf8")));
console.log("docs/reference.md: generated tables rewritten");
