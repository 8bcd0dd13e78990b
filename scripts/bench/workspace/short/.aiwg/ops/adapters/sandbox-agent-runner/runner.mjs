// Bench runner: one short task; prints its task id (or "direct") and exits 0.
process.stdout.write(`short ${process.env.AIWG_A2A_TASK_ID ?? "direct"}\n`);
