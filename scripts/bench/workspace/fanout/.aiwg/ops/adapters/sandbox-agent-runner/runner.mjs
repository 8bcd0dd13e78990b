// Bench runner: prints nothing until the file BENCH_GO_FILE exists (so that every subscriber of its task is there
// before its first byte), then the number of lines its message text names (default 2000), "line N of M", and exits
// 0; exits 3 if the file has not appeared within 60 s.
import { existsSync, watch } from "node:fs";
import { basename, dirname } from "node:path";

const total = Number(process.env.AIWG_A2A_MESSAGE) || 2000;
const go = process.env.BENCH_GO_FILE ?? "";
const giveUp = setTimeout(() => process.exit(3), 60_000);

function print() {
  clearTimeout(giveUp);
  let text = "";
  for (let n = 1; n <= total; n++) text += `line ${n} of ${total}\n`;
  process.stdout.write(text, () => process.exit(0));
}

if (existsSync(go)) print();
else {
  const watcher = watch(dirname(go), (_event, name) => {
    if (name === basename(go) && existsSync(go)) {
      watcher.close();
      print();
    }
  });
  // The file may have come between the first look and the watch.
  if (existsSync(go)) {
    watcher.close();
    print();
  }
}
