// How the GetTask groups (http-rps, grpc-rps) take turns between servers. Pure of any server: its unit test drives it
// with stand-ins.

/**
 * Rounds that take turns between servers, each run on a server started for it and stopped after it: `targets` maps a
 * name to `start()` (resolving with a server that has `stop()`), and `measure(name, server, round)` is one run. A
 * server kept between its runs idles while the others are measured, and a node server that idled half a minute
 * spent 30-90 % more CPU a call for at least the next 11 s, warm-up included; the baselines, alone in their
 * processes, idled longer than our server of two targets, so kept servers flattered ours (docs/benchmarks.md, "How
 * the figures are taken").
 */
export async function freshRounds(targets, rounds, measure) {
  for (let round = 0; round < rounds; round++)
    for (const [name, start] of Object.entries(targets)) {
      const server = await start();
      try {
        await measure(name, server, round);
      } finally {
        await server.stop();
      }
    }
}
