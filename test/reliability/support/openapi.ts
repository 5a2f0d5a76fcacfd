/** The subset of JSON Schema the operations' request bodies use (TypeBox output). */
export interface Schema {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | Schema;
  readonly items?: Schema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly if?: Schema;
  readonly then?: Schema;
  readonly else?: Schema;
  readonly oneOf?: readonly Schema[];
}

/** One operation as the service documents it: its path and the schema of `data`. */
export interface DocumentedOperation {
  readonly path: string;
  readonly data: Schema;
  /** A v1 path served by the v2 operation at this path (docs/compatibility.md "Version 1 paths", `x-alias-of`). */
  readonly aliasOf?: string;
  /** The body may be left out (`requestBody.required: false`): no body and `{}` are valid. */
  readonly bodyOptional?: boolean;
  /**
   * The credentials it takes: a workspace's (the document's default), the operator's
   * (docs/contract.md "Operator API"), or none (a path served only to refuse).
   */
  readonly credentials: "workspace" | "operator" | "none";
}

/**
 * Every POST operation listed in the service's own `/openapi.json`, so the reliability
 * suites cover an operation the day it is added, without being told about it.
 */
export async function documentedOperations(baseUrl: string): Promise<DocumentedOperation[]> {
  const res = await fetch(`${baseUrl}/openapi.json`);
  if (res.status !== 200) throw new Error(`/openapi.json answered ${res.status}`);
  const doc = (await res.json()) as {
    paths: Record<
      string,
      {
        post?: {
          "x-alias-of"?: string;
          security?: readonly Record<string, unknown>[];
          requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
        };
      }
    >;
    components: { schemas: Record<string, Schema> };
  };
  const operations: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const schema = item.post?.requestBody?.content?.["application/json"]?.schema;
    const body = schema && (inline(schema, doc.components.schemas) as Schema);
    const data = body?.properties?.data;
    if (!data) throw new Error(`${path}: no documented request body with a data object`);
    const aliasOf = item.post?.["x-alias-of"];
    const bodyOptional = item.post?.requestBody?.required === false;
    const security = item.post?.security;
    const credentials =
      security === undefined ? "workspace" : security.some((s) => "workspaceId" in s) ? "operator" : "none";
    operations.push({
      path,
      data,
      credentials,
      ...(aliasOf ? { aliasOf } : {}),
      ...(bodyOptional ? { bodyOptional } : {}),
    });
  }
  return operations;
}

/**
 * The schema with every `$ref` replaced by the component it names; `JsonValue` (any JSON, the
 * one recursive component of request bodies) becomes `{}`, as the arbitraries read it.
 */
function inline(value: unknown, components: Record<string, Schema>): unknown {
  if (Array.isArray(value)) return value.map((v) => inline(v, components));
  if (typeof value !== "object" || value === null) return value;
  const ref = (value as { $ref?: string }).$ref;
  if (ref !== undefined) {
    const name = ref.replace("#/components/schemas/", "");
    return name === "JsonValue" ? {} : inline(components[name], components);
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inline(v, components)]));
}
