#!/usr/bin/env node
// Runs the compiled entry point; `npm install` builds it through the `prepare` script.
import { main } from "../dist/cli.js";

main(process.argv).then(
  (code) => {
    process.exitCode = code;
    // Whatever handle is still open (a paused stdin, say) must not keep a finished command alive.
    setTimeout(() => process.exit(code), 1000).unref();
  },
  (error) => {
    process.stderr.write(`adapter-command: internal error: ${error?.stack ?? error}\n`);
    process.exitCode = 4;
  },
);
