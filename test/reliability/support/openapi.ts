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
}

/** One operation as the service documents it: its path and the schema of `data`. */
export interface DocumentedOperation {
  readonly path: string;
  readonly data: Schema;
}

/**
 * Every POST operation listed in the service's own `/openapi.json`, so the reliability
 * suites cover an operation the day it is added, without being told about it.
 */
export async function documentedOperations(baseUrl: string): Promise<DocumentedOperation[]> {
  const res = await fetch(`${baseUrl}/openapi.json`);
  if (res.status !== 200) throw new Error(`/openapi.json answered ${res.status}`);
  const doc = (await res.json()) as {
    paths: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: Schema }> } } }>;
  };
  const operations: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const body = item.post?.requestBody?.content?.["application/json"]?.schema;
    const data = body?.properties?.data;
    if (!data) throw new Error(`${path}: no documented request body with a data object`);
    operations.push({ path, data });
  }
  return operations;
}
