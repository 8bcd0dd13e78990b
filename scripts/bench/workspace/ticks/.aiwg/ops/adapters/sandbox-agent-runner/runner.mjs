// Bench runner: TICKS (default 60) lines "tick <ms since the epoch>", 20 ms apart, then exits 0: each line says when
// it was written, so a reader can tell how long it took to reach it.
const ticks = Number(process.env.TICKS ?? 60);
let sent = 0;
const timer = setInterval(() => {
  process.stdout.write(`tick ${performance.timeOrigin + performance.now()}\n`);
  sent += 1;
  if (sent >= ticks) clearInterval(timer);
}, 20);
