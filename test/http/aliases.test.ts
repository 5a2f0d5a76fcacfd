import { describe, expect, it } from "vitest";
import { V1_ALIASES, withAliases } from "../../src/http/aliases.js";
import { openApiDocument } from "../../src/http/openapi-document.js";
import { allOperations } from "../../src/http/operations.js";
import { forEachDialect } from "../support/server.js";

const doc = openApiDocument(allOperations);
const served = withAliases(allOperations).filter((op) => op.aliasOf !== undefined);

describe("the v1 paths", () => {
  it("serves every v1 alias whose v2 operation exists, and none other", () => {
    const v2 = new Set(allOperations.map((op) => op.path));
    const expected = Object.entries(V1_ALIASES)
      .filter(([, target]) => v2.has(target))
      .map(([path]) => path);
    expect(served.map((op) => op.path).sort()).toEqual(expected.sort());
    // The v1 folders add operation keeps its own path and rules (docs/contract.md "Folders").
    expect(V1_ALIASES["/v1/organizations/folders/add"]).toBeUndefined();
  });

  it("documents each alias as its own path with the same request and response schemas", () => {
    for (const op of served) {
      const alias = doc.paths[op.path]?.post;
      const target = doc.paths[op.aliasOf!.path]?.post;
      expect(alias, op.path).toBeDefined();
      expect(alias["x-alias-of"]).toBe(op.aliasOf!.path);
      expect(alias.operationId).toBe(`${op.aliasOf!.operationId}V1`);
      expect(alias.requestBody).toEqual(target.requestBody);
      expect(alias.responses).toEqual(target.responses);
    }
  });
});

forEachDialect("the v1 paths, served", (server) => {
  it("answers each v1 alias as its v2 operation", async () => {
    const call = async (path: string, data: unknown) => {
      const res = await server().call(path, data);
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
      return res.body.result;
    };
    await call("/v1/organizations/add", { organizations: [{ organizationId: "org-v1" }] });
    const orgs = await call("/v1/organizations/get", { organizationIds: ["org-v1"] });
    expect(orgs.data.map((o: { organizationId: string }) => o.organizationId)).toEqual(["org-v1"]);
    await call("/v1/organizations/folders/add", { organizationId: "org-v1", folders: [{ folderId: "f" }] });
    const folders = await call("/v1/organizations/folders/get", { organizationId: "org-v1" });
    expect(JSON.stringify(folders.data)).toContain('"f"');
    await call("/v1/organizations/documents/add", {
      organizationId: "org-v1",
      documents: [{ documentId: "d" }],
    });
    const docs = await call("/v1/organizations/documents/get", { organizationId: "org-v1" });
    expect(docs.data.map((d: { documentId: string }) => d.documentId)).toEqual(["d"]);
    const notFound = await server().call("/v1/activities/get", { organizationId: "org-v1" });
    expect(notFound.status).toBe(404);
  });
});
