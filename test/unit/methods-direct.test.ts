// The JSON-RPC methods call the operation of a request's name directly (src/jsonrpc/methods.ts). Their answers are
// the ones json-rpc-2.0's server gave over the same operations, which this test builds as the methods once were.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JSONRPCErrorException, type JSONRPCRequest, JSONRPCServer } from "json-rpc-2.0";
import { A2aService } from "../../src/a2a/service.js";
import { createMethods } from "../../src/jsonrpc/methods.js";
import type { CallContext } from "../../src/operations/context.js";
import { rpcErrorOfFailure } from "../../src/operations/rpc-failure.js";
import { createOperations } from "../../src/operations/table.js";
import { endedEcho, memoryDispatcher } from "../helpers/methods.js";

describe("a request straight to its operation", () => {
  it("answers every request as json-rpc-2.0's server did", async () => {
    const dispatcher = memoryDispatcher();
    const echo = await endedEcho(dispatcher);
    const operations = createOperations({ service: new A2aService(dispatcher), version: "0", log: () => {} });
    const direct = createMethods(operations);
    const reference = new JSONRPCServer<CallContext>({ errorListener: () => {} });
    for (const operation of operations.all)
      reference.addMethod(operation.name, async (params, context) => {
        try {
          return await operation.call(params, context);
        } catch (error) {
          const { code, message, data } = rpcErrorOfFailure(operation.family, error as never);
          throw new JSONRPCErrorException(message, code, data);
        }
      });
    reference.handleMethodNotFound = async (request) => (await direct.receive(request, {})) as never;
    const requests: unknown[] = [
      { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: echo.id } },
      { jsonrpc: "2.0", id: "a", method: "tasks/get", params: { id: echo.id } },
      { jsonrpc: "2.0", id: null, method: "tasks/get", params: { id: echo.id } },
      { jsonrpc: "2.0", method: "tasks/get", params: { id: echo.id } },
      { jsonrpc: "2.0", id: 2, method: "GetTask", params: { id: "no-such-task" } },
      { jsonrpc: "2.0", id: 3, method: "tasks/get", params: {} },
      { jsonrpc: "2.0", method: "tasks/get", params: {} },
      { jsonrpc: "2.0", id: 4, method: "GetTask" },
      { jsonrpc: "2.0", id: 5, method: "GetTask", result: 1 },
      { jsonrpc: "2.0", id: 6, method: "GetTask", error: {} },
      { jsonrpc: "2.0", id: { not: "an id" }, method: "GetTask", result: 1 },
    ];
    for (const request of requests) {
      const ours = await direct.receive(request as JSONRPCRequest, {});
      const theirs = await reference.receive(request as JSONRPCRequest, {});
      assert.deepEqual(JSON.parse(JSON.stringify(ours)), JSON.parse(JSON.stringify(theirs)), JSON.stringify(request));
    }
  });

  it("answers an unknown method with -32601 and the method meant, also to a notification", async () => {
    const direct = createMethods(
      createOperations({ service: new A2aService(memoryDispatcher()), version: "0", log: () => {} }),
    );
    const answer = await direct.receive({ jsonrpc: "2.0", method: "gettask" } as JSONRPCRequest, {});
    assert.equal(answer?.id, null);
    assert.equal(answer?.error?.code, -32601);
    assert.match(answer?.error?.message ?? "", /did you mean "GetTask"\?/);
  });
});
