// A2A-SDK-CLIENT: the official A2A client (@a2a-js/sdk) works with the runtime on each binding: made from the card,
// it sends a message and reads the task back. Its HTTP answers pass through a fetch with a deadline and a size
// limit, and it is given only the interface under test, so the token goes nowhere else.
import { randomUUID } from "node:crypto";
import { AgentCard, GetTaskRequest, SendMessageRequest, type Task, TaskState } from "@a2a-js/sdk";
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import type * as grpc from "@grpc/grpc-js";
import { PROTOCOL_BINDING } from "./driver.js";
import { brief, readBounded } from "./http.js";
import { expect, familyScenarios, type Scenario, type ScenarioContext } from "./scenario.js";

async function sdkClient(ctx: ScenarioContext): Promise<Client> {
  const { binding, url } = ctx.driver;
  const token = ctx.driver.token;
  const fetchImpl: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    if (token !== undefined) headers.set("Authorization", `Bearer ${token}`);
    const response = await fetch(input, { ...init, headers, redirect: "manual", signal: AbortSignal.timeout(60_000) });
    return new Response(await readBounded(response), { status: response.status, headers: response.headers });
  };
  const card = AgentCard.fromJSON({
    ...ctx.card.card,
    supportedInterfaces: [{ url, protocolBinding: PROTOCOL_BINDING[binding], protocolVersion: "1.0" }],
  });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({ fetchImpl }),
        new RestTransportFactory({ fetchImpl }),
        new GrpcTransportFactory({ grpcCallOptions: { deadline: Date.now() + 60_000 } }),
      ],
      preferredTransports: [PROTOCOL_BINDING[binding]],
    }),
  );
  return factory.createFromAgentCard(card);
}

const closeGrpc = (client: Client | undefined) =>
  (client?.transport as unknown as { grpcClient?: grpc.Client } | undefined)?.grpcClient?.close();

export const SDK_SCENARIOS: Scenario[] = familyScenarios("A2A", "each", [
  {
    id: "A2A-SDK-CLIENT",
    source: "A2A 1.0.1 §3.1.1, §3.1.3, through the official @a2a-js/sdk client",
    title: "the official client sends a message and reads the task back",
    async run(ctx) {
      let client: Client | undefined;
      try {
        client = await sdkClient(ctx);
        // The SDK carries service parameters as headers (gRPC: metadata), the token too on gRPC.
        const serviceParameters: Record<string, string> = {};
        if (ctx.card.required.length > 0) serviceParameters["A2A-Extensions"] = ctx.card.required.join(", ");
        if (ctx.driver.binding === "grpc" && ctx.driver.token !== undefined)
          serviceParameters.authorization = `Bearer ${ctx.driver.token}`;
        const options = { serviceParameters };
        const request = SendMessageRequest.fromJSON({
          message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "conformance sdk" }] },
        });
        const sent = (await client.sendMessage(request, options)) as Task;
        expect(typeof sent?.id === "string" && sent.status !== undefined, "a Task", () => brief(sent));
        const got = await client.getTask(GetTaskRequest.fromJSON({ id: sent.id }), options);
        expect(got.id === sent.id, `task ${sent.id}`, () => brief(got));
        expect(got.status?.state === TaskState.TASK_STATE_COMPLETED, "TASK_STATE_COMPLETED", () =>
          brief(TaskState[got.status?.state ?? 0]),
        );
      } catch (error) {
        expect(false, "the official client's calls to succeed", () => (error as Error).message);
      } finally {
        closeGrpc(client);
      }
    },
  },
]);
