import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { openApiDocument } from "../../src/http/openapi-document.js";
import { allOperations } from "../../src/http/operations.js";

/**
 * Checks answers against `/openapi.json`: every body the test server's `call`/`raw`
 * receive must match the schema documented for its operation and HTTP status, and carry the
 * documented headers. One validator per process: the document is the same for every server.
 */
type Json = any;

const DOC_ID = "collabd-openapi";

export class ContractChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Json = openApiDocument(allOperations)) {
    this.ajv.addSchema({ ...doc, $id: DOC_ID });
  }

  /** The problems of one answer; empty when it matches the document. */
  problems(method: string, path: string, status: number, headers: Headers, body: unknown): string[] {
    const where = `${method} ${path} → ${status}`;
    const out: string[] = [];
    if (!headers.get("x-request-id")) out.push(`${where}: no x-request-id header`);
    // A rate limit says when to come back; a quota refusal does not (waiting does not help).
    const quota = /^Quota exceeded/.test((body as { error?: { message?: string } })?.error?.message ?? "");
    if (status === 429 && !quota && !headers.get("retry-after"))
      out.push(`${where}: 429 without Retry-After`);
    const pointer = this.responsePointer(method, path, status);
    if (pointer === undefined) return out;
    if (pointer === null) return [...out, `${where}: status ${status} is not documented for this operation`];
    const validate = this.validator(pointer);
    if (!validate(body)) {
      const errors = (validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || "/"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`);
      out.push(`${where}: body does not match the documented schema: ${errors.join("; ")}`);
    }
    return out;
  }

  /**
   * JSON pointer of the schema an answer must match; undefined when the document does not
   * cover the route (GET /healthz, /metrics, …), null when the status is undocumented.
   */
  private responsePointer(method: string, path: string, status: number): string | null | undefined {
    const route = path.split("?")[0] ?? "";
    const operation = this.doc.paths[route]?.post;
    if (operation && method === "POST") {
      // `default`: what a path served only to refuse may answer besides its refusal (openapi-document.ts).
      const documented = operation.responses[String(status)] ? String(status) : "default";
      const response = operation.responses[documented];
      if (!response) return null;
      if (response.$ref) return this.pointerOf(response);
      const escaped = route.replaceAll("~", "~0").replaceAll("/", "~1");
      return `/paths/${escaped}/post/responses/${documented}/content/application~1json/schema`;
    }
    // Routes outside the document answer errors in the same shape: 404 unknown route, 405 wrong method.
    if (status === 404) return this.pointerOf({ $ref: "#/components/responses/NotFound" });
    if (status === 405) return this.pointerOf({ $ref: "#/components/responses/BadRequest" });
    return undefined;
  }

  private pointerOf(response: { $ref: string }): string {
    return `${response.$ref.slice(1)}/content/application~1json/schema`;
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }
}

let shared: ContractChecker | undefined;

/** The process-wide checker (compiling the document's schemas once). */
export function contract(): ContractChecker {
  shared ??= new ContractChecker();
  return shared;
}

/** Thrown by `call`/`raw` when an answer breaks the document. */
export class ContractViolation extends Error {}
