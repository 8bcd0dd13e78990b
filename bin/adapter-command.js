#!/usr/bin/env node
// Runs the compiled entry point; `npm install` builds it through the `prepare` script.
import { main } from "../dist/cli.js";

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`adapter-command: internal error: ${error?.stack ?? error}\n`);
    process.exitCode = 4;
  },
);
