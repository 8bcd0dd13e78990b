// The baseline of `stream_throughput_shapes`: loaded with `node --import` into a bridge, it makes every output chunk
// go the plain way, JSON.stringify of the stream item, by raising src/a2a/wire/encode.ts's byte-path threshold to
// Infinity in the built module as it loads. Everything else is the same bridge, so the two differ only in how a
// chunk is encoded.
import { register } from "node:module";
import { isMainThread } from "node:worker_threads";

const THRESHOLD = /export const BYTES_SPLICED_FROM = \d+;/;

if (isMainThread) register(import.meta.url);

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!url.endsWith("/dist/a2a/wire/encode.js")) return loaded;
  const source = String(loaded.source);
  if (!THRESHOLD.test(source)) throw new Error(`stringify-encoder: no BYTES_SPLICED_FROM in ${url}`);
  return { ...loaded, source: source.replace(THRESHOLD, "export const BYTES_SPLICED_FROM = Infinity;") };
}
