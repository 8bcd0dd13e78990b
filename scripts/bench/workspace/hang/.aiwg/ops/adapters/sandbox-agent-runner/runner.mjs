// Bench runner: prints nothing and never exits (a task that stays running until it is canceled).
setInterval(() => {}, 60_000);
