// A /proc and a cgroup v2 tree made of plain files in a temporary directory, and a kill that records instead of
// signalling: the containment guards' code paths run on any machine (src/core/containment/host.ts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Host } from "../../src/core/containment/host.js";

export interface FakeProcess {
  state?: string;
  pgrp?: number;
  start?: string;
  /** The environment, as entries or as the raw NUL-separated block. */
  env?: Record<string, string> | Buffer;
}

export class FakeProc {
  readonly dir = mkdtempSync(join(tmpdir(), "adapter-command-fake-proc-"));
  readonly procRoot = join(this.dir, "proc");
  /** Where the fake cgroup2 hierarchy is mounted. */
  readonly cgroupMount = join(this.dir, "cgroup");
  /** Every signal sent, in order: [pid (negative for a group), signal]. */
  readonly signals: Array<[number, NodeJS.Signals]> = [];
  private readonly processes = new Map<number, FakeProcess>();

  constructor(readonly self = 4242) {
    mkdirSync(this.procRoot);
    mkdirSync(this.cgroupMount);
    this.add(self, { pgrp: self, env: {} });
    mkdirSync(join(this.procRoot, "self"));
    this.writeStat("self", this.processes.get(self) as FakeProcess, self);
    this.selfCgroup("/");
  }

  /** The Host the guards see: this /proc, this process as `self`, SIGKILL turning a process into a zombie. */
  get host(): Host {
    return {
      procRoot: this.procRoot,
      self: this.self,
      kill: (pid, signal) => {
        if (pid > 0 && !this.processes.has(pid)) throw Object.assign(new Error("ESRCH"), { code: "ESRCH" });
        this.signals.push([pid, signal]);
        if (signal === "SIGKILL" && pid > 0)
          this.add(pid, { ...this.processes.get(pid), state: "Z", env: Buffer.alloc(0) });
      },
    };
  }

  add(pid: number, process: FakeProcess): void {
    this.processes.set(pid, process);
    const dir = join(this.procRoot, String(pid));
    mkdirSync(dir, { recursive: true });
    this.writeStat(String(pid), process, pid);
    const env = process.env ?? {};
    writeFileSync(
      join(dir, "environ"),
      Buffer.isBuffer(env)
        ? env
        : Buffer.from(
            Object.entries(env)
              .map(([k, v]) => `${k}=${v}\0`)
              .join(""),
          ),
    );
  }

  remove(pid: number): void {
    this.processes.delete(pid);
    rmSync(join(this.procRoot, String(pid)), { recursive: true, force: true });
  }

  /** /proc/self/mountinfo with the fake hierarchy mounted (or the given text), and /proc/self/cgroup at `path`. */
  selfCgroup(path: string, mountinfo?: string): void {
    const mounted = `41 31 0:38 / ${this.cgroupMount.replaceAll(" ", "\\040")} rw,relatime - cgroup2 cgroup2 rw`;
    writeFileSync(join(this.procRoot, "self", "mountinfo"), mountinfo ?? `${mounted}\n`);
    writeFileSync(join(this.procRoot, "self", "cgroup"), `0::${path}\n`);
  }

  /** A cgroup directory with the interface files the guard reads. */
  cgroup(path: string, files: { procs?: number[]; populated?: boolean; kill?: boolean } = {}): string {
    const dir = join(this.cgroupMount, path);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "cgroup.procs"), (files.procs ?? []).map((pid) => `${pid}\n`).join(""));
    writeFileSync(join(dir, "cgroup.events"), `populated ${files.populated ? 1 : 0}\nfrozen 0\n`);
    if (files.kill !== false) writeFileSync(join(dir, "cgroup.kill"), "");
    return dir;
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private writeStat(name: string, process: FakeProcess, pid: number): void {
    // Fields after the command name: state ppid pgrp session tty_nr tpgid flags ... starttime (the 20th).
    const fields = [process.state ?? "S", 1, process.pgrp ?? pid, ...Array(16).fill(0), process.start ?? "1000"];
    writeFileSync(join(this.procRoot, name, "stat"), `${pid} (node (x) y) ${fields.join(" ")}\n`);
  }
}
