// Output as real tools print it, for the prompt detector (CONTRACT section 4): what ends on a prompt, and what
// only mentions a marker (src/core/hitl/prompt.ts PROMPT_MARKERS) in a finished log line or shows a prompt that was
// erased on screen. Each item is the whole output, followed by silence.

export interface RealPrompt {
  what: string;
  output: string;
  /** The prompt raised: the line as a terminal shows it, trimmed. */
  prompt: string;
}

export const REAL_PROMPTS: RealPrompt[] = [
  {
    what: "apt, the line left open",
    output:
      "Reading package lists... Done\nAfter this operation, 12.3 MB of additional disk space will be used.\nDo you want to continue? [Y/n] ",
    prompt: "Do you want to continue? [Y/n]",
  },
  {
    what: "ssh host key check",
    output:
      "The authenticity of host 'example.org (192.0.2.7)' can't be established.\nED25519 key fingerprint is SHA256:abc.\nAre you sure you want to continue connecting (yes/no/[fingerprint])? ",
    prompt: "Are you sure you want to continue connecting (yes/no/[fingerprint])?",
  },
  {
    what: "an inquirer-style question",
    output: "? Are you sure you want to overwrite package.json? (y/N) ",
    prompt: "? Are you sure you want to overwrite package.json? (y/N)",
  },
  {
    what: "a y/N confirmation",
    output: "Proceed with the migration? [y/N] ",
    prompt: "Proceed with the migration? [y/N]",
  },
  { what: "Press ENTER, open", output: "Press ENTER to continue...", prompt: "Press ENTER to continue..." },
  {
    what: "Press any key, open",
    output: "Setup finished.\nPress any key to continue . . . ",
    prompt: "Press any key to continue . . .",
  },
  {
    what: "Would you like to, with (y/n)",
    output: "3 plugins are missing.\nWould you like to install them now? (y/n) ",
    prompt: "Would you like to install them now? (y/n)",
  },
  {
    what: "a finished line ending in )",
    output: "Overwrite existing file config.yml? (yes/no)\n",
    prompt: "Overwrite existing file config.yml? (yes/no)",
  },
  {
    what: "a finished line ending in ]",
    output: "Do you want to proceed? [y/N]\n",
    prompt: "Do you want to proceed? [y/N]",
  },
  { what: "a finished line ending in ?", output: "Are you sure?\r\n", prompt: "Are you sure?" },
  {
    what: "a finished line ending in :",
    output: "Would you like to enable telemetry, answer yes or no:\n\n",
    prompt: "Would you like to enable telemetry, answer yes or no:",
  },
  {
    what: "a finished line ending in >",
    output: "Are you sure you want to delete 3 files? >\n",
    prompt: "Are you sure you want to delete 3 files? >",
  },
  {
    what: "create-next-app style, open after the choices",
    output: "Would you like to use TypeScript? › No / Yes",
    prompt: "Would you like to use TypeScript? › No / Yes",
  },
  {
    what: "a progress line then the prompt over it",
    output: "downloading 10%\rdownloading 100%\rDo you want to proceed? [y/N] ",
    prompt: "Do you want to proceed? [y/N]",
  },
  { what: "a carriage return after the prompt", output: "Continue? [y/N]\r", prompt: "Continue? [y/N]" },
  {
    what: "the cursor moved back into the answer field",
    output: "Are you sure? [ ]\b\b",
    prompt: "Are you sure? [ ]",
  },
  {
    what: "colours around the prompt",
    output: "\x1b[1;33mDo you want to proceed?\x1b[0m \x1b[2m[y/N]\x1b[0m ",
    prompt: "Do you want to proceed? [y/N]",
  },
  {
    what: "a spinner erased, then the prompt",
    output: "⠋ resolving\b\b\b\b\b\b\b\b\b\b\b           \rWould you like to continue? (y/n) ",
    prompt: "Would you like to continue? (y/n)",
  },
];

export const NOT_PROMPTS: string[] = [
  // Finished log lines that mention a marker and do not end like a question.
  "INFO Are you sure the cache is warm? checking...\n",
  "2024-05-01T12:00:00.123Z INFO Are you sure mode is off; continuing\n",
  "npm WARN config Would you like to use `--location=global` instead\n",
  "npm notice New major version of npm available! 9.8.1 -> 10.2.4. Would you like to update? Run `npm install -g npm@10.2.4`\n",
  "npm WARN deprecated inflight@1.0.6: Would you like to know more? See https://github.com/isaacs/node-glob\n",
  "? Are you sure you want to overwrite package.json? Yes\n",
  "✔ Are you sure you want to continue? … yes\n",
  "✖ Are you sure? › cancelled\n",
  "Do you want to continue? [Y/n] Abort.\n",
  "Do you want to continue? [Y/n] Y\nSetting up curl (7.88.1-10) ...\n",
  "Are you sure you want to continue connecting (yes/no/[fingerprint])? yes\nWarning: Permanently added 'example.org' (ED25519) to the list of known hosts.\n",
  "Setting up tzdata (2024a-0) ... Would you like to configure it later? using defaults\n",
  "[y/N] prompts are skipped because --yes was given\n",
  "[y/N] defaults to N when CI=true\n",
  "Proceeding without confirmation (--assume-yes): Do you want to proceed? [Y/n] Y\n",
  "warning: Are you sure you want to force push? Skipping because --force was given.\n",
  "ERROR: Are you sure the path exists? /tmp/build not found\n",
  "hint: Would you like to set up a tracking branch? Use git push --set-upstream origin main\n",
  "remote: Press ENTER to skip is deprecated, use --no-input\n",
  "DEBUG readline: Press ENTER to continue was suppressed, not a terminal\n",
  "Press any key to continue . . . skipped: stdin is not a TTY\n",
  "[INFO] (yes/no) question answered automatically: yes\n",
  "info Are you sure you want to remove the lockfile? no, keeping it\n",
  '  ✓ asks "Are you sure?" before deleting\n',
  "ok 3 - shows the Press ENTER hint in the footer\n",
  "not ok 4 - handles (y/n) answers # TODO\n",
  "PASS test/confirm.test.js › Are you sure dialog renders\n",
  "Test Suites: 1 passed, 1 total; 'Would you like to' copy checked\n",
  "yarn install v1.22.19\n[1/4] Resolving packages...\ninfo Would you like to try Yarn 4? See https://yarnpkg.com\n",
  "pip: Would you like to upgrade pip? You should consider upgrading via the '/usr/bin/python3 -m pip install --upgrade pip' command.\n",
  "Are you sure? [y/N]\ny\nDeleting 3 files.\n",
  // Medium-confidence lines are never prompts, open or not.
  "user@host:~$ ",
  "Password: ",
  "Enter your name: ",
  // Prompts erased or written over on screen.
  "Are you sure? [y/N]\r                    \r",
  `Do you want to proceed? [y/N]${"\b".repeat(29)}${" ".repeat(29)}`,
  `Are you sure? [y/N]${"\b \b".repeat(19)}`,
  "Press ENTER to continue\rContinuing automatically.   ",
  "Are you sure? [y/N]\rOK",
  "⠋ Are you sure the cache is warm?\r⠙ Are you sure the cache is warm?\r✔ cache is warm                   \n",
  "\x1b[33mWould you like to\x1b[0m know more? see the docs\n",
];
