import fc from "fast-check";
import { expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

/**
 * Random sequences of folder adds, moves, access changes and deletes, checked after
 * every step: each folder's stored `ancestors` equals the path recomputed from the
 * parents, its access equals the one recomputed from its own setting and its parent's,
 * and the tree equals a plain in-memory model of the same steps.
 */

const IDS = ["a", "b", "c", "d", "e", "f", "g", "h"];
const ACCESS = ["organizationPrivate", "restricted", "public"] as const;

const id = fc.constantFrom(...IDS);
const parent = fc.constantFrom("root", ...IDS);
const access = fc.option(fc.constantFrom(...ACCESS), { nil: undefined });

type Command =
  | { kind: "add"; folders: { folderId: string; parentFolderId: string; accessType?: string | undefined }[] }
  | { kind: "move"; folderId: string; parentFolderId: string }
  | { kind: "access"; folderId: string; accessType?: string | undefined }
  | { kind: "delete"; folderId: string };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .uniqueArray(fc.record({ folderId: id, parentFolderId: parent, accessType: access }), {
        minLength: 1,
        maxLength: 4,
        selector: (f) => f.folderId,
      })
      .map((folders) => ({ kind: "add" as const, folders })),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("move" as const), folderId: id, parentFolderId: parent }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("access" as const), folderId: id, accessType: access }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), folderId: id }) },
);

interface ModelFolder {
  parent: string;
  own: string | undefined;
}

/** The model: parents and own access settings; everything else is derived. */
class Model {
  readonly folders = new Map<string, ModelFolder>();
  isUnder(folderId: string, ancestor: string): boolean {
    for (let at: string | undefined = folderId; at && at !== "root"; at = this.folders.get(at)?.parent) {
      if (at === ancestor) return true;
    }
    return false;
  }
  remove(folderId: string): void {
    const doomed = [...this.folders.keys()].filter((other) => this.isUnder(other, folderId));
    for (const other of doomed) this.folders.delete(other);
  }
}

async function step(s: TestServer, org: string, model: Model, c: Command): Promise<void> {
  const base = { organizationId: org };
  if (c.kind === "add") {
    const res = await s.call("/v2/organizations/folders/add", { ...base, folders: c.folders });
    if (res.status === 400) {
      // Only a self-parented item or a cycle among new items is bad input here.
      expect(res.body.error.message).toMatch(/must not be the folder itself|makes a cycle/);
      return;
    }
    expect(res.status).toBe(200);
    const existed = new Set(model.folders.keys());
    for (const f of c.folders) {
      if (res.body.result.data[f.folderId].success) {
        expect(existed.has(f.folderId)).toBe(false);
        model.folders.set(f.folderId, { parent: f.parentFolderId, own: f.accessType });
      }
    }
    for (const f of c.folders) {
      const { success, message } = res.body.result.data[f.folderId];
      const parentThere = f.parentFolderId === "root" || model.folders.has(f.parentFolderId);
      if (success) expect(parentThere).toBe(true);
      else if (existed.has(f.folderId)) expect(message).toBe("Folder already exists.");
      else expect([message, parentThere]).toEqual(["Parent folder not found.", false]);
    }
    return;
  }
  if (c.kind === "move") {
    const res = await s.call("/v2/organizations/folders/update", {
      ...base,
      folderId: c.folderId,
      parentFolderId: c.parentFolderId,
    });
    const folder = model.folders.get(c.folderId);
    const outcome = res.body.result.data[c.folderId];
    if (!folder) {
      expect(outcome.message).toBe("Folder not found.");
    } else if (c.parentFolderId !== "root" && !model.folders.has(c.parentFolderId)) {
      expect(outcome.message).toBe("Parent folder not found.");
    } else if (c.folderId === c.parentFolderId || model.isUnder(c.parentFolderId, c.folderId)) {
      expect(outcome.message).toBe("A folder cannot be moved under itself or one of its descendants.");
    } else {
      expect(outcome.success).toBe(true);
      folder.parent = c.parentFolderId;
    }
    return;
  }
  if (c.kind === "access") {
    const change = c.accessType ? { accessType: c.accessType } : { inheritAccessFromParent: true };
    const res = await s.call("/v2/organizations/folders/update", {
      ...base,
      folderId: c.folderId,
      ...change,
    });
    const folder = model.folders.get(c.folderId);
    expect(res.body.result.data[c.folderId].success).toBe(folder !== undefined);
    if (folder) folder.own = c.accessType;
    return;
  }
  const res = await s.call("/v2/organizations/folders/delete", { ...base, folderId: c.folderId });
  expect(res.status).toBe(model.folders.has(c.folderId) ? 200 : 404);
  model.remove(c.folderId);
}

async function check(s: TestServer, org: string, model: Model): Promise<void> {
  const res = await s.call("/v2/organizations/folders/get", { organizationId: org });
  const byId = new Map<string, any>(res.body.result.data.map((f: any) => [f.folderId, f]));
  const path = (folderId: string): string[] => {
    const f = byId.get(folderId);
    return f.parentFolderId === "root" ? ["root"] : [...path(f.parentFolderId), f.parentFolderId];
  };
  const effective = (folderId: string): string => {
    const f = byId.get(folderId);
    if (!f.inheritAccessFromParent) return f.accessType;
    return f.parentFolderId === "root" ? "organizationPrivate" : effective(f.parentFolderId);
  };
  for (const f of byId.values()) {
    expect(f.ancestors).toEqual(path(f.folderId));
    expect(f.accessType).toBe(effective(f.folderId));
  }
  const actual = Object.fromEntries(
    [...byId.values()].map((f) => [
      f.folderId,
      [f.parentFolderId, f.inheritAccessFromParent ? undefined : f.accessType],
    ]),
  );
  const expected = Object.fromEntries([...model.folders].map(([k, v]) => [k, [v.parent, v.own]]));
  expect(actual).toEqual(expected);
}

/** Every folder's ancestors equal the chain of parents, whatever order concurrent writes ran in. */
async function checkInvariant(s: TestServer, org: string): Promise<number> {
  const res = await s.call("/v2/organizations/folders/get", { organizationId: org });
  const byId = new Map<string, any>(res.body.result.data.map((f: any) => [f.folderId, f]));
  const path = (f: any): string[] =>
    f.parentFolderId === "root" ? ["root"] : [...path(byId.get(f.parentFolderId)), f.parentFolderId];
  for (const f of byId.values()) expect(f.ancestors).toEqual(path(f));
  return byId.size;
}

forEachDialect(
  "folders property",
  (server) => {
    it("keeps ancestors consistent when moves and adds of one organization run concurrently", async () => {
      const s = server();
      const org = "concurrent";
      const ids = Array.from({ length: 12 }, (_, i) => `c${i}`);
      await s.call("/v2/organizations/folders/add", {
        organizationId: org,
        createOrganization: true,
        folders: ids.map((folderId) => ({ folderId })),
      });
      for (let round = 0; round < 5; round++) {
        const writes = ids.map((folderId, i) =>
          i % 3 === 0
            ? s.call("/v2/organizations/folders/add", {
                organizationId: org,
                folders: [{ folderId: `${folderId}-r${round}`, parentFolderId: ids[(i + 5) % ids.length] }],
              })
            : s.call("/v2/organizations/folders/update", {
                organizationId: org,
                folderId,
                parentFolderId: ids[(i * 7 + round) % ids.length],
              }),
        );
        for (const res of await Promise.all(writes)) expect([200, 400]).toContain(res.status);
        expect(await checkInvariant(s, org)).toBe(ids.length + 4 * (round + 1));
      }
    });

    it("keeps ancestors and inherited access equal to what the parents say, step by step", async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 25 }), async (commands) => {
          const s = server();
          const org = `prop-${++run}-${Math.random().toString(36).slice(2)}`;
          await s.call("/v2/organizations/add", { organizations: [{ organizationId: org }] });
          const model = new Model();
          for (const c of commands) {
            await step(s, org, model, c);
            await check(s, org, model);
          }
        }),
        { numRuns: 60 },
      );
    });
  },
  { defaultAccessType: "organizationPrivate" },
);
