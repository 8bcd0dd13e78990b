// The layering of docs/architecture.md ("Layers"), checked by `npm run check` (dependency-cruiser). Paths are
// relative to where it runs, so test/unit/layering.test.ts runs these same rules over a fixture tree.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "core-stays-inside",
      comment:
        "The core (src/core) knows nothing of A2A, JSON-RPC, HTTP, stdio, screens, stores or commands: they are passed in.",
      severity: "error",
      from: { path: "^src/core/" },
      to: {
        path: "^src/(a2a|operations|jsonrpc|gate|serve|stdio|http|grpc|ui|web|store|commands|io|client)/|^src/cli\\.ts$",
      },
    },
    {
      name: "no-command-below-cli",
      comment:
        "Bindings and front ends take nothing from src/commands: what they share lives beside them (src/exit-codes.ts).",
      severity: "error",
      from: { path: "^src/(operations|jsonrpc|gate|serve|stdio|http|grpc|ui|web)/" },
      to: { path: "^src/commands/|^src/cli\\.ts$" },
    },
    {
      name: "service-binding-free",
      comment: "The service and codecs (src/a2a) are transport-free: they import no binding.",
      severity: "error",
      from: { path: "^src/a2a/" },
      to: { path: "^src/(operations|jsonrpc|gate|serve|stdio|http|grpc|ui|web|commands)/|^src/cli\\.ts$" },
    },
    {
      name: "operations-binding-free",
      comment:
        "The operations table (src/operations) is what every binding calls: it imports none of them, so REST and gRPC never go through JSON-RPC.",
      severity: "error",
      from: { path: "^src/operations/" },
      to: { path: "^src/(jsonrpc|gate|serve|stdio|http|grpc|ui|web|commands)/|^src/cli\\.ts$" },
    },
    {
      name: "rest-grpc-not-jsonrpc",
      comment:
        "REST and gRPC call the operations table, never JSON-RPC: of src/http only its JSON-RPC route (src/http/jsonrpc.ts) and of src/grpc nothing imports src/jsonrpc.",
      severity: "error",
      from: { path: "^src/(http|grpc)/", pathNot: "^src/http/jsonrpc\\.ts$" },
      to: { path: "^src/jsonrpc/" },
    },
    {
      name: "gate-before-bindings",
      comment:
        "The request gate (src/gate) judges bytes before any binding reads them: it imports no binding, operation or serve root, so every binding can use it.",
      severity: "error",
      from: { path: "^src/gate/" },
      to: { path: "^src/(a2a|operations|jsonrpc|serve|stdio|http|grpc|ui|web|store|commands|client)/|^src/cli\\.ts$" },
    },
    {
      name: "client-serves-commands",
      comment:
        "The A2A client (src/client) is used by commands only: no binding, service or front end depends on it, and it takes nothing from the commands.",
      severity: "error",
      from: { path: "^src/(a2a|operations|jsonrpc|gate|serve|stdio|http|grpc|ui|web|store|io)/" },
      to: { path: "^src/client/" },
    },
    {
      name: "client-below-commands",
      comment: "The client takes nothing from src/commands or the CLI: the commands wire it up.",
      severity: "error",
      from: { path: "^src/client/" },
      to: { path: "^src/commands/|^src/cli\\.ts$" },
    },
    {
      name: "no-unresolvable",
      comment: "An import the check cannot follow would hide a broken rule.",
      severity: "error",
      from: { path: "^src/" },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
      extensions: [".ts", ".tsx", ".js"],
    },
  },
};
