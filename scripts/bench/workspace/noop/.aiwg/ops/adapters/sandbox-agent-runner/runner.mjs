// Bench runner: exits at once, printing nothing (dispatch overhead, concurrency, direct-spawn baselines).
