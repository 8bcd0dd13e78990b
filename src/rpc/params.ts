// A method's params checked against a valibot object schema. Every problem is a JSON Pointer into `params` (`/id`,
// like `/message/role` of a send), the one convention of every -32602's `data.errors`.
import { JSONRPCErrorException } from "json-rpc-2.0";
import * as v from "valibot";
import { isRecord } from "../core/json-value.js";
import { type Problem, problemsFromIssues, shown } from "../core/problems.js";
import { RPC } from "./errors.js";

type ParamsSchema = v.LooseObjectSchema<v.ObjectEntries, undefined>;

/**
 * The params as `schema` reads them, else -32602 with `data.errors`. valibot reports a missing key under its
 * object's type ("expected an object"); with every key present (undefined when missing), each field's own schema
 * says what it expected instead ("expected a string, found nothing").
 */
export function parseParams<S extends ParamsSchema>(schema: S, params: unknown): v.InferOutput<S> {
  const given = params ?? {};
  let errors: Problem[];
  if (isRecord(given)) {
    const keys = Object.fromEntries(Object.keys(schema.entries).map((key) => [key, undefined]));
    const parsed = v.safeParse(schema, { ...keys, ...given });
    if (parsed.success) return parsed.output;
    errors = problemsFromIssues(parsed.issues, "");
  } else {
    // valibot takes an array for an object too, and would only miss its keys.
    errors = [{ path: "", code: "wrong_type", message: `expected an object, found ${shown(given)}` }];
  }
  const first = errors[0];
  throw new JSONRPCErrorException(
    `Invalid params: ${first ? `${first.message}${first.path ? ` at ${first.path}` : ""}` : "malformed"}`,
    RPC.invalidParams,
    { errors },
  );
}
