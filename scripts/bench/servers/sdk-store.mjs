// What both official @a2a-js/sdk baselines (sdk.mjs over express, sdk-grpc.mjs over gRPC) hold: an InMemoryTaskStore
// with the task of a file (a 1.0 Task as JSON), and an executor GetTask never calls.
import { readFileSync } from "node:fs";
import { Task } from "@a2a-js/sdk";
import { InMemoryTaskStore, ServerCallContext } from "@a2a-js/sdk/server";

export async function storeHolding(file) {
  const store = new InMemoryTaskStore();
  await store.save(Task.fromJSON(JSON.parse(readFileSync(file, "utf8"))), new ServerCallContext());
  return store;
}

/** Never called: GetTask reads the store. */
export const unusedExecutor = {
  execute: async () => {
    throw new Error("not used by the benchmark");
  },
  cancelTask: async () => {},
};
