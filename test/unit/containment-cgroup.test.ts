// The cgroup guard and the chooser on a fake /proc and a fake cgroup2 tree (CONTRACT 3.2; docs/security.md
// "Containment"): where the hierarchy is found, how a task is placed before it can fork, how it is killed and removed,
// and which guard a machine gets.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import {
  Cgroup,
  cgroup2Mounts,
  cgroupDirOf,
  isTaskCgroupPath,
  ownCgroupDir,
  spawnIn,
} from "../../src/core/containment/cgroup.js";
import { chooseGuard } from "../../src/core/containment/choose.js";
import { FakeProc } from "../helpers/fake-proc.js";

const HYBRID = [
  "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
  "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu",
  "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
].join("\n");

describe("cgroup v2: where the hierarchy is", () => {
  it("finds the cgroup2 mount in mountinfo, not assuming /sys/fs/cgroup (a hybrid system)", () => {
    assert.deepEqual(cgroup2Mounts(HYBRID), [{ root: "/", mountPoint: "/sys/fs/cgroup/unified" }]);
    assert.deepEqual(cgroup2Mounts("25 1 0:22 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate"), [
      { root: "/", mountPoint: "/sys/fs/cgroup" },
    ]);
    assert.deepEqual(cgroup2Mounts("1 0 0:1 / /a\\040b rw - cgroup2 none rw"), [{ root: "/", mountPoint: "/a b" }]);
    assert.deepEqual(cgroup2Mounts("32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\ngarbage"), []);
  });

  it("places the process's own cgroup under the mount, relative to the mount's root", () => {
    const mounts = [{ root: "/", mountPoint: "/sys/fs/cgroup/unified" }];
    assert.equal(cgroupDirOf(mounts, "4:memory:/x\n0::/\n"), "/sys/fs/cgroup/unified");
    assert.equal(cgroupDirOf(mounts, "0::/system.slice/a.service\n"), "/sys/fs/cgroup/unified/system.slice/a.service");
    const nested = [{ root: "/outer", mountPoint: "/sys/fs/cgroup" }];
    assert.equal(cgroupDirOf(nested, "0::/outer/inner\n"), "/sys/fs/cgroup/inner");
    assert.equal(cgroupDirOf(nested, "0::/outer\n"), "/sys/fs/cgroup");
    assert.equal(cgroupDirOf(nested, "0::/elsewhere\n"), undefined, "not below the mounted root");
    assert.equal(cgroupDirOf(mounts, "1:cpu:/\n"), undefined, "no v2 line");
    assert.equal(cgroupDirOf(mounts, "0::/gone (deleted)\n"), undefined);
  });
});

describe("cgroup v2: a task's cgroup (fake tree)", () => {
  let proc: FakeProc;
  beforeEach(() => {
    proc = new FakeProc();
  });
  afterEach(() => proc.cleanup());

  it("the spawn runs while the caller stands in the task's cgroup; then it is back home", () => {
    const home = new Cgroup(proc.cgroup("home"), proc.host);
    const task = new Cgroup(join(home.path, "adapter-command-t1"), proc.host);
    task.create();
    const procs = (cgroup: Cgroup) => (existsSync(join(cgroup.path, "cgroup.procs")) ? cgroup.procs() : []);
    const seen = spawnIn(task, home, proc.self, () => ({ task: procs(task), home: procs(home) }));
    assert.deepEqual(seen, { task: [proc.self], home: [] }, "inside the task's cgroup during the spawn");
    assert.deepEqual(home.procs(), [proc.self], "moved back home after it");
  });

  it("moves back home even when the spawn throws", () => {
    const home = new Cgroup(proc.cgroup("home"), proc.host);
    const task = new Cgroup(join(home.path, "adapter-command-t2"), proc.host);
    task.create();
    assert.throws(() =>
      spawnIn(task, home, proc.self, () => {
        throw new Error("EACCES");
      }),
    );
    assert.deepEqual(home.procs(), [proc.self]);
  });

  it("SIGKILL writes cgroup.kill; other signals go to each process listed", () => {
    const cgroup = new Cgroup(proc.cgroup("adapter-command-t3", { procs: [100, 101], populated: true }), proc.host);
    proc.add(100, {});
    proc.add(101, {});
    assert.equal(cgroup.signal("SIGKILL"), 1);
    assert.equal(readFileSync(join(cgroup.path, "cgroup.kill"), "utf8"), "1");
    assert.deepEqual(proc.signals, []);
    assert.equal(cgroup.signal("SIGTERM"), 2);
    assert.deepEqual(proc.signals, [
      [100, "SIGTERM"],
      [101, "SIGTERM"],
    ]);
  });

  it("without cgroup.kill (Linux before 5.14), or with the caller inside: each process, never the caller", () => {
    proc.add(100, {});
    const old = new Cgroup(proc.cgroup("adapter-command-t4", { procs: [100], kill: false }), proc.host);
    assert.equal(old.signal("SIGKILL"), 1);
    assert.deepEqual(proc.signals, [[100, "SIGKILL"]]);
    const withSelf = new Cgroup(proc.cgroup("adapter-command-t5", { procs: [proc.self, 1, 100] }), proc.host);
    proc.signals.length = 0;
    withSelf.signal("SIGKILL");
    assert.equal(readFileSync(join(withSelf.path, "cgroup.kill"), "utf8"), "", "cgroup.kill would kill the caller");
    assert.deepEqual(proc.signals, [[100, "SIGKILL"]], "neither the caller nor PID 1");
  });

  it("populated follows cgroup.events (the caller aside); removal waits until it is empty", () => {
    const busy = new Cgroup(proc.cgroup("adapter-command-t6", { procs: [100], populated: true }), proc.host);
    assert.equal(busy.populated(), true);
    const onlyUs = new Cgroup(proc.cgroup("adapter-command-t9", { procs: [proc.self], populated: true }), proc.host);
    assert.equal(onlyUs.populated(), false, "the caller standing in it does not count");
    const idle = new Cgroup(proc.cgroup("adapter-command-t7", { populated: false }), proc.host);
    assert.equal(idle.populated(), false);
    const bare = new Cgroup(join(proc.cgroupMount, "adapter-command-t8"), proc.host);
    bare.create();
    assert.equal(bare.remove(), true);
    assert.equal(bare.remove(), true, "already gone counts as removed");
    assert.equal(idle.remove(), false, "a directory that still holds something stays");
  });

  it("a path read back from a record must be a task cgroup of ours inside a cgroup2 mount", () => {
    const host = proc.host;
    const inside = join(proc.cgroupMount, "system.slice", "adapter-command-abc");
    assert.equal(isTaskCgroupPath(inside, host), true);
    assert.equal(isTaskCgroupPath(join(proc.cgroupMount, "adapter-command-abc"), host), true);
    assert.equal(isTaskCgroupPath(join(proc.cgroupMount, "system.slice"), host), false, "not our name");
    assert.equal(isTaskCgroupPath(proc.cgroupMount, host), false, "the root itself");
    assert.equal(isTaskCgroupPath(`${proc.cgroupMount}/x/../adapter-command-abc`, host), false, "not normalized");
    assert.equal(isTaskCgroupPath("/tmp/adapter-command-abc", host), false, "outside every cgroup2 mount");
    assert.equal(isTaskCgroupPath(join(proc.cgroupMount, "adapter-command-a b"), host), false);
  });
});

describe("choosing the guard (fake /proc and cgroup tree)", () => {
  let proc: FakeProc;
  beforeEach(() => {
    proc = new FakeProc();
  });
  afterEach(() => proc.cleanup());

  it("cgroup where v2 is mounted and the own cgroup takes a child: the process waits in a standby of its own", () => {
    const home = proc.cgroup("svc");
    proc.selfCgroup("/svc");
    assert.equal(ownCgroupDir(proc.host), home);
    const guard = chooseGuard(proc.host, "linux");
    assert.equal(guard.kind, "cgroup");
    const standbys = () => readdirSync(home).filter((name) => name.startsWith("adapter-command-"));
    assert.equal(standbys().length, 1, "a standby below the own cgroup");
    const first = join(home, standbys()[0] as string);
    assert.equal(readFileSync(join(first, "cgroup.procs"), "utf8"), String(proc.self), "the process stands in it");

    // The runner is born in the standby, which becomes the task's cgroup; the process then takes a new standby.
    const confinement = guard.confine({ taskId: "t-1", instanceId: "i" });
    assert.deepEqual(confinement.record, { kind: "cgroup", path: first });
    const during = confinement.spawnInside(() => standbys().length);
    assert.equal(during, 1, "no move before the spawn");
    const second = standbys().find((name) => join(home, name) !== first);
    assert.ok(second, "a new standby after the spawn");
    assert.equal(readFileSync(join(home, second, "cgroup.procs"), "utf8"), String(proc.self));
  });

  it("a standby shared with another process of the tool is not a task's cgroup: a fresh one, entered for the spawn", () => {
    const home = proc.cgroup("svc");
    proc.selfCgroup("/svc");
    const guard = chooseGuard(proc.host, "linux");
    const standby = join(home, readdirSync(home).find((name) => name.startsWith("adapter-command-")) as string);
    writeFileSync(join(standby, "cgroup.procs"), `${proc.self}\n777\n`); // something this process started meanwhile
    const confinement = guard.confine({ taskId: "t-2", instanceId: "i" });
    const path = confinement.record.kind === "cgroup" ? confinement.record.path : "";
    assert.notEqual(path, standby);
    const inside = confinement.spawnInside(() => readFileSync(join(path, "cgroup.procs"), "utf8"));
    assert.equal(inside, String(proc.self), "the process stood in the task's cgroup for the spawn");
    assert.equal(readFileSync(join(standby, "cgroup.procs"), "utf8"), String(proc.self), "and went back after it");
  });

  it("the watchdog is kept out of the standby: moved to the own cgroup", () => {
    const home = proc.cgroup("svc");
    proc.selfCgroup("/svc");
    const guard = chooseGuard(proc.host, "linux");
    guard.exempt?.(31337);
    assert.equal(readFileSync(join(home, "cgroup.procs"), "utf8"), "31337");
  });

  it("marker where the hierarchy can't be written (a cgroup2 mount where no directory can be made)", () => {
    writeFileSync(join(proc.dir, "not-a-dir"), "");
    const mountinfo = `41 31 0:38 / ${join(proc.dir, "not-a-dir")} rw - cgroup2 cgroup2 rw\n`;
    proc.selfCgroup("/", mountinfo);
    assert.equal(chooseGuard(proc.host, "linux").kind, "marker");
  });

  it("marker where the own cgroup refuses the move (cgroup.procs not writable)", (t) => {
    if (process.getuid?.() === 0) {
      t.skip("as root, file permissions do not stop writes (the case above covers a hierarchy that can't be written)");
      return;
    }
    const dir = proc.cgroup("ro");
    proc.selfCgroup("/ro");
    chmodSync(join(dir, "cgroup.procs"), 0o444);
    assert.equal(chooseGuard(proc.host, "linux").kind, "marker");
  });

  it("marker on Linux without cgroup v2; the group guard without /proc or elsewhere than Linux", () => {
    proc.selfCgroup("/", HYBRID.split("\n")[1]);
    assert.equal(chooseGuard(proc.host, "linux").kind, "marker");
    assert.equal(chooseGuard(proc.host, "darwin").kind, "group");
    const host = { ...proc.host, procRoot: join(proc.dir, "no-proc") };
    mkdirSync(host.procRoot);
    assert.equal(chooseGuard(host, "linux").kind, "group");
  });

  it("the marker guard confines by the spawn's marks; without them, the group only", () => {
    proc.selfCgroup("/", "");
    const guard = chooseGuard(proc.host, "linux");
    assert.deepEqual(guard.confine({ taskId: "t", instanceId: "i" }).record, {
      kind: "marker",
      taskId: "t",
      instanceId: "i",
    });
    assert.deepEqual(guard.confine(undefined).record, { kind: "group" });
  });
});
