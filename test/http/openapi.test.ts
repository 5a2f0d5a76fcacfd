import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/http/openapi-document.js";
import { allOperations } from "../../src/http/operations.js";
import { ContractChecker, ContractViolation } from "../support/contract.js";
import { forEachDialect } from "../support/server.js";

const run = promisify(execFile);
const doc = openApiDocument(allOperations);

/**
 * The order in which the operations' request examples are sent to one fresh server: each
 * example may rely on what an earlier one created (org-1, its folders and documents, …).
 */
const EXAMPLE_ORDER = [
  "organizationsAdd",
  "organizationsGet",
  "organizationsUpdate",
  "organizationsDisableStateUpdate",
  "foldersAdd",
  "foldersAddV1",
  "foldersGet",
  "foldersUpdate",
  "foldersAccessUpdate",
  "documentsAdd",
  "documentsGet",
  "documentsUpdate",
  "documentsAccessUpdate",
  "documentsDisableStateUpdate",
  "documentLocationsUpdate",
  "documentLocationsDataDelete",
  "permissionsAdd",
  "permissionsGet",
  "activitiesAdd",
  "activitiesGet",
  "activitiesUpdate",
  "recordingsAdd",
  "recordingsGet",
  "notificationsAdd",
  "notificationsGet",
  "notificationsUpdate",
  "usersAdd",
  "usersGet",
  "usersUpdate",
  "organizationUserGroupsAdd",
  "organizationUserGroupUsersAdd",
  "organizationUserGroupUsersDelete",
  "commentAnnotationsAdd",
  "commentAnnotationsGet",
  "commentAnnotationsCount",
  "commentsAdd",
  "commentsGet",
  "commentsUpdate",
  "commentReactionsAdd",
  "commentReactionsDelete",
  "commentAnnotationsUpdate",
  "commentsDelete",
  "commentAnnotationsDelete",
  "notificationServiceConfigGet",
  "notificationServiceConfigUpdate",
  "notificationsConfigSet",
  "notificationsConfigGet",
  "usersDataGet",
  "crdtAdd",
  "crdtUpdate",
  "crdtGet",
  "webhookConfigUpdate",
  "webhookConfigGet",
  "webhookDeliveriesGet",
  "webhookDeliveriesRetry",
  "webhookSecretRotate",
  "advancedWebhookConfigUpdate",
  "advancedWebhookConfigGet",
  "advancedWebhookEndpointsCreate",
  "advancedWebhookEndpointsGet",
  "advancedWebhookEndpointsUpdate",
  "advancedWebhookEndpointsSecretGet",
  "advancedWebhookEndpointsDelete",
  "activitiesDelete",
  "activityConfigGet",
  "activityConfigUpdate",
  "apiKeyConfigGet",
  "apiKeyConfigUpdate",
  "authGenerateToken",
  "authGenerateSignature",
  "authTokenGetV1",
  "recordingsDelete",
  "notificationsDelete",
  "usersDelete",
  "usersDataDelete",
  "usersDataDeleteStatus",
  "permissionsRemove",
  "documentsMove",
  "documentsDelete",
  "foldersDelete",
  "organizationsDelete",
  "organizationsDeleteStatus",
  "documentsMigrate",
  "documentsMigrateStatus",
];

/** The endpoint id an advanced webhook answer carries (an endpoint, a page of one, a secret, a delete). */
function endpointIdOf(data: {
  id?: string;
  endpointId?: string;
  endpoints?: { id: string }[];
}): string | null {
  return data.id ?? data.endpointId ?? data.endpoints?.[0]?.id ?? null;
}

/** The example with its endpoint id replaced by the one the server generated. */
function withEndpointId(example: unknown, endpointId: string): unknown {
  return JSON.parse(JSON.stringify(example).replaceAll("ep_2mN4yQ8cKd3vXw9ZbT5rLp", endpointId));
}

/** Values that differ from run to run (keys, clock, secrets) blanked, and keys in one order. */
const VOLATILE = new Set([
  "apiKey",
  "timestamp",
  "createdAt",
  "lastUpdated",
  "lastUpdate",
  "updatedAt",
  "signingSecret",
  "jobId",
  "migrationId",
  "lastTaskCompletedTime",
  "secret",
  "token",
  "signature",
]);
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, v]) => [key, VOLATILE.has(key) ? "…" : comparable(v)]),
  );
}

describe("the OpenAPI document", () => {
  it("names every operation once and sends every example in the order above", () => {
    const ids = allOperations.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...EXAMPLE_ORDER].sort()).toEqual([...ids].sort());
  });

  it("holds examples that match their own schemas", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    ajv.addSchema({ ...doc, $id: "doc" });
    const problems: string[] = [];
    const check = (pointer: string, value: unknown, what: string) => {
      const validate = ajv.compile({ $ref: `doc#${pointer}` });
      if (!validate(value)) problems.push(`${what}: ${ajv.errorsText(validate.errors)}`);
    };
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const at = `/paths/${path.replaceAll("/", "~1")}/post`;
      const request = item.post.requestBody.content["application/json"];
      check(`${at}/requestBody/content/application~1json/schema`, request.example, `${path} request`);
      // A path served only to refuse documents its refusal in place of a success.
      const code =
        ["202", "200"].find((c) => item.post.responses[c]) ??
        Object.keys(item.post.responses).find((c) => c !== "default")!;
      const answer = item.post.responses[code].content["application/json"];
      check(`${at}/responses/${code}/content/application~1json/schema`, answer.example, `${path} response`);
    }
    for (const [name, response] of Object.entries<any>(doc.components.responses)) {
      const media = response.content["application/json"];
      check(`/components/responses/${name}/content/application~1json/schema`, media.example, name);
    }
    expect(problems).toEqual([]);
  });

  it("documents errors with their statuses and headers, servers and a licence", () => {
    expect(doc.info.title).toBe("collabd API");
    expect(doc.info.license).toEqual({ name: "MIT", identifier: "MIT" });
    expect(doc.servers.length).toBeGreaterThan(0);
    const limited = doc.components.responses.RateLimited;
    expect(Object.keys(limited.headers)).toEqual(["x-request-id", "Retry-After"]);
    const statusOf = (name: string) =>
      doc.components.responses[name].content["application/json"].schema.properties.error.properties.status;
    expect(statusOf("BadRequest").enum).toEqual(["INVALID_ARGUMENT", "FAILED_PRECONDITION"]);
    expect(statusOf("Unauthenticated").const).toBe("UNAUTHENTICATED");
    expect(statusOf("PayloadTooLarge").const).toBe("RESOURCE_EXHAUSTED");
    for (const item of Object.values<any>(doc.paths)) {
      // Paths served only to refuse (docs/compatibility.md "D22", "D23"): their one answer and `default`.
      if (item.post.responses.default) {
        expect(Object.keys(item.post.responses)).toHaveLength(2);
        continue;
      }
      expect(
        (item.post.responses["200"] ?? item.post.responses["202"]).headers["x-request-id"],
      ).toBeDefined();
      for (const code of ["400", "401", "403", "404", "413", "429", "500", "503"]) {
        expect(item.post.responses[code]?.$ref, code).toMatch(/^#\/components\/responses\//);
      }
    }
    // Every resource has a named schema a client can import.
    for (const name of ["Activity", "Recording", "Folder", "Notification"]) {
      expect(doc.components.schemas[name]?.additionalProperties, name).toBe(false);
    }
    // Open records (docs/contract.md "Organizations", "Documents"): metadata keys sit beside the known fields.
    for (const name of ["Organization", "Document"]) {
      expect(doc.components.schemas[name]?.additionalProperties, name).toEqual({
        $ref: "#/components/schemas/JsonValue",
      });
    }
  });

  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const dir = await mkdtemp(join(tmpdir(), "collabd-openapi-"));
    try {
      const file = join(dir, "openapi.json");
      await writeFile(file, JSON.stringify(doc));
      const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };
      const redocly = await run(
        "node_modules/.bin/redocly",
        ["lint", file, "--extends", "recommended", "--format", "json"],
        { env, maxBuffer: 16 << 20 },
      ).catch((error: { stdout: string }) => error);
      const redoclyReport = JSON.parse(redocly.stdout) as { totals: Record<string, number> };
      expect(redoclyReport.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("catches an answer that breaks the document", () => {
    const checker = new ContractChecker(doc);
    const headers = new Headers({ "x-request-id": "r1" });
    const ok = { result: { status: "success", message: "x", data: { success: true, message: "x" } } };
    expect(checker.problems("POST", "/v2/activities/add", 200, headers, ok)).toEqual([]);
    const extra = { result: { ...ok.result, data: { success: true, message: "x", surprise: 1 } } };
    expect(checker.problems("POST", "/v2/activities/add", 200, headers, extra)).toHaveLength(1);
    const wrongStatus = { error: { status: "NOT_FOUND", message: "x" } };
    expect(checker.problems("POST", "/v2/activities/add", 400, headers, wrongStatus)).toHaveLength(1);
    expect(checker.problems("POST", "/v2/activities/add", 418, headers, wrongStatus)[0]).toMatch(
      /not documented/,
    );
    expect(checker.problems("POST", "/v2/activities/add", 200, new Headers(), ok)[0]).toMatch(/x-request-id/);
    expect(new ContractViolation("x")).toBeInstanceOf(Error);
  });
});

forEachDialect(
  "the OpenAPI examples against a live server",
  (server) => {
    it("answers every request example, in order, with its response example", async () => {
      const byId = new Map(allOperations.map((op) => [op.operationId, op]));
      let jobId = "";
      let migrationId = "";
      for (const id of EXAMPLE_ORDER) {
        const op = byId.get(id)!;
        // The erasure job's and the migration's ids are generated: their status examples ask about
        // the one just started, once run.
        if (id === "usersDataDeleteStatus" || id === "documentsMigrateStatus")
          await server().services.jobs.settled();
        const data =
          id === "usersDataDeleteStatus"
            ? { jobId }
            : id === "documentsMigrateStatus"
              ? { ...(op.example.data as object), migrationId }
              : id === "authTokenGetV1"
                ? // Its credentials are in the body: the server's own stand for the example's.
                  { ...(op.example.data as object), ...server().creds }
                : op.example.data;
        // `call` fails on any answer that breaks the document (test/support/contract.ts).
        const res = await server().call(op.path, data);
        if (id === "usersDataDelete") jobId = res.body.result.data.jobId;
        if (id === "documentsMigrate") migrationId = res.body.result.data.migrationId;
        expect({ id, status: res.status, body: res.body }).toMatchObject({
          id,
          status: op.httpStatus ?? 200,
          body: { result: { status: "success", message: op.example.message } },
        });
        // The delivery log of a fresh server is empty: its example shows a failed delivery.
        if (id === "webhookDeliveriesGet") continue;
        // An endpoint's id is generated: the examples' one stands for it.
        const endpointId = id.startsWith("advancedWebhookEndpoints")
          ? endpointIdOf(res.body.result.data)
          : null;
        const example = endpointId ? withEndpointId(op.example.result, endpointId) : op.example.result;
        expect({ id, data: comparable(res.body.result.data) }).toEqual({
          id,
          data: comparable(example),
        });
      }
    });

    it("serves the same document at /openapi.json", async () => {
      const res = await fetch(`${server().url}/openapi.json`);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(JSON.parse(JSON.stringify(doc)));
    });
  },
  { env: { COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true" } },
);
