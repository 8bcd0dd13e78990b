// One GetTask call, checked whole, before `grpc-rps` loads a target with h2load: h2load counts HTTP statuses and
// bytes but reads no gRPC status, so this call proves that the request it will send is answered with the task
// (grpc-status 0, or a JSON-RPC result holding the task) and gives the bytes of that answer, which every loaded call
// must then receive (scripts/bench/h2load.mjs, judgeH2load).
import { request } from "node:http";
import { connect } from "node:http2";

/** POST `body` (a gRPC frame) to `url` on HTTP/2; resolves with the answer's DATA bytes when grpc-status is 0. */
export function probeGrpcGetTask(url, headers, body) {
  const { origin, pathname } = new URL(url);
  const session = connect(origin);
  return new Promise((resolve, reject) => {
    session.once("error", reject);
    const stream = session.request({ ":method": "POST", ":path": pathname, ...headers });
    let status;
    let grpcStatus;
    let grpcMessage;
    let bytes = 0;
    stream.once("response", (head) => {
      status = head[":status"];
      grpcStatus = head["grpc-status"];
      grpcMessage = head["grpc-message"];
    });
    stream.once("trailers", (trailers) => {
      grpcStatus ??= trailers["grpc-status"];
      grpcMessage ??= trailers["grpc-message"];
    });
    stream.on("data", (chunk) => (bytes += chunk.length));
    stream.once("error", reject);
    stream.once("end", () =>
      status === 200 && grpcStatus === "0" && bytes > 5
        ? resolve(bytes)
        : reject(
            new Error(`GetTask on ${url}: HTTP ${status}, grpc-status ${grpcStatus} (${grpcMessage}), ${bytes} bytes`),
          ),
    );
    stream.end(body);
  }).finally(() => session.close());
}

/** POST a JSON-RPC GetTask to `url`; resolves with the answer's body bytes when it is the task `id`. */
export function probeJsonRpcGetTask(url, headers, body, id) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers }, (answer) => {
      const chunks = [];
      answer.on("data", (chunk) => chunks.push(chunk));
      answer.once("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let result;
        try {
          result = JSON.parse(text).result;
        } catch {}
        if (answer.statusCode === 200 && result?.id === id) resolve(Buffer.byteLength(text));
        else reject(new Error(`GetTask on ${url}: HTTP ${answer.statusCode}, ${text.slice(0, 200)}`));
      });
    });
    req.once("error", reject);
    req.end(body);
  });
}
