import { beforeAll, expect, it } from "vitest";
import { withAliases } from "../../src/http/aliases.js";
import { allOperations } from "../../src/http/operations.js";
import { type Credentials, forEachDialect } from "../support/server.js";
import { checkTenantIsolation, firstPageToken, type IsolationCase } from "./support/isolation.js";
import { SEEDED as S, seedWorkspace } from "./support/seed.js";
import { report } from "./support/wait.js";

const MARKER = "secret-of-workspace-a";

forEachDialect(
  "tenant isolation",
  (server) => {
    let a: Credentials;
    let b: Credentials;
    let deliveryIds: string[];
    let jobOfA: string;
    let endpointOfA: string;
    let endpointIteratorOfA: string;

    beforeAll(async () => {
      a = await server().newWorkspace({ name: "a" });
      b = await server().newWorkspace({ name: "b" });
      const asA = (path: string, data: unknown) => server().call(path, data, { creds: a });
      deliveryIds = await seedWorkspace(asA, MARKER, "http://127.0.0.1:9");
      // Second rows, so A's lists have a next page and a page token to steal.
      for (const [path, data] of [
        ["/v2/organizations/add", { organizations: [{ organizationId: "org-2" }] }],
        [
          "/v2/organizations/documents/add",
          { organizationId: S.organizationId, documents: [{ documentId: "doc-2" }] },
        ],
        [
          "/v2/recordings/add",
          {
            organizationId: S.organizationId,
            documentId: S.documentId,
            recordings: [{ annotationId: "rec-2", recordingType: "audio", recordedTime: { duration: 1 } }],
          },
        ],
        [
          "/v2/notifications/add",
          {
            organizationId: S.organizationId,
            notificationId: "n-2",
            displayHeadlineMessageTemplate: MARKER,
            notifyUsers: [{ userId: S.userId }],
          },
        ],
        [
          "/v2/commentannotations/add",
          {
            organizationId: S.organizationId,
            documentId: S.documentId,
            commentAnnotations: ["thread-1", "thread-2"].map((annotationId) => ({
              annotationId,
              commentData: [{ commentId: 1, commentText: MARKER, from: { userId: S.userId } }],
            })),
          },
        ],
      ] as const) {
        const res = await asA(path, data);
        if (res.status !== 200) throw new Error(`${path}: ${JSON.stringify(res.body)}`);
      }
      // A's activity log immutable and its API key settings changed: none of it reaches B.
      await asA("/v2/workspace/activityconfig/update", { activityServiceConfig: { isEnabled: true } });
      await asA("/v2/workspace/apikeyconfig/update", { enablePrivateComments: false, requireJwtToken: true });
      // Advanced webhook endpoints of A's: two, so A's list has an iterator to steal.
      await asA("/v2/workspace/advancedwebhookconfig/update", { isEnabled: true });
      for (const uid of ["seed-endpoint", "seed-endpoint-2"]) {
        const made = await asA("/v2/workspace/advancedwebhook/endpoints/create", {
          url: "http://127.0.0.1:9/advanced",
          uid,
          metadata: { note: MARKER },
        });
        if (made.status !== 200) throw new Error(JSON.stringify(made.body));
        endpointOfA ??= made.body.result.data.id;
      }
      endpointIteratorOfA = (await asA("/v2/workspace/advancedwebhook/endpoints/get", { limit: 1 })).body
        .result.data.iterator;
      // An erasure job of A's (of a user A never had), finished before the checks start.
      jobOfA = (await asA("/v2/users/data/delete", { userIds: ["nobody-of-a"] })).body.data.jobId;
      await server().services.jobs.settled();
    });

    it("keeps every operation from seeing or changing another workspace's data", async () => {
      const org = S.organizationId;
      const token = (path: string, data: Record<string, unknown>) => firstPageToken(server(), a, path, data);
      const cases: IsolationCase[] = [
        // Reads: nothing of A is listed, and A's page tokens are worthless to B.
        { path: "/v2/activities/get", data: { organizationId: org }, expect: "empty" },
        {
          path: "/v2/activities/get",
          data: { organizationId: org, activityIds: [S.activityId, S.customActivityId] },
          expect: "empty",
        },
        {
          path: "/v2/activities/get",
          data: {
            organizationId: org,
            pageSize: 1,
            pageToken: await token("/v2/activities/get", { organizationId: org }),
          },
          expect: "badPageToken",
        },
        // Comments: A's threads are not B's; B's thread lookups find nothing.
        { path: "/v2/commentannotations/get", data: { organizationId: org }, expect: "empty" },
        {
          path: "/v2/commentannotations/get",
          data: {
            organizationId: org,
            pageSize: 1,
            pageToken: await token("/v2/commentannotations/get", { organizationId: org }),
          },
          expect: "badPageToken",
        },
        {
          path: "/v2/commentannotations/count/get",
          data: { organizationId: org, documentIds: [S.documentId], userId: "b" },
          expect: "zeroCounts",
        },
        ...commentCases(org),
        { path: "/v2/organizations/get", data: { organizationIds: [org, "org-2"] }, expect: "empty" },
        {
          path: "/v2/organizations/get",
          data: { pageSize: 1, pageToken: await token("/v2/organizations/get", {}) },
          expect: "badPageToken",
        },
        { path: "/v2/organizations/folders/get", data: { organizationId: org }, expect: "notFound" },
        {
          path: "/v2/organizations/folders/get",
          data: { organizationId: org, folderId: S.folderId, maxDepth: 3 },
          expect: "notFound",
        },
        { path: "/v2/recordings/get", data: { organizationId: org }, expect: "empty" },
        {
          path: "/v2/recordings/get",
          data: { organizationId: org, recordingIds: [S.annotationId] },
          expect: "empty",
        },
        {
          path: "/v2/recordings/get",
          data: {
            organizationId: org,
            pageSize: 1,
            pageToken: await token("/v2/recordings/get", { organizationId: org }),
          },
          expect: "badPageToken",
        },
        { path: "/v2/notifications/get", data: { organizationId: org }, expect: "empty" },
        {
          path: "/v2/notifications/get",
          data: { organizationId: org, userId: S.userId, forYou: true },
          expect: "empty",
        },
        {
          path: "/v2/notifications/get",
          data: {
            organizationId: org,
            pageSize: 1,
            pageToken: await token("/v2/notifications/get", { organizationId: org }),
          },
          expect: "badPageToken",
        },
        { path: "/v2/organizations/documents/get", data: { organizationId: org }, expect: "notFound" },
        {
          path: "/v2/auth/permissions/get",
          data: { organizationId: org, userIds: [S.userId] },
          expect: "empty",
        },
        { path: "/v2/workspace/webhooks/deliveries/get", data: { deliveryIds }, expect: "empty" },
        { path: "/v2/users/get", data: { organizationId: org }, expect: "empty" },
        {
          path: "/v2/users/get",
          data: { organizationId: org, allDocuments: true, groupByDocumentId: true },
          expect: "empty",
        },
        {
          path: "/v2/users/get",
          data: {
            organizationId: org,
            pageSize: 1,
            pageToken: await token("/v2/users/get", { organizationId: org }),
          },
          expect: "badPageToken",
        },
        {
          path: "/v2/workspace/webhooks/deliveries/get",
          data: { pageSize: 1, pageToken: await token("/v2/workspace/webhooks/deliveries/get", {}) },
          expect: "badPageToken",
        },
        { path: "/v2/workspace/webhookconfig/get", data: {}, expect: "ownWrite" },
        ...advancedWebhookCases(endpointOfA, endpointIteratorOfA),
        // B's own (default) configuration; A's enabled service is not seen.
        { path: "/v2/workspace/notificationconfig/get", data: {}, expect: "ownWrite" },
        ...workspaceConfigCases(b),
        {
          path: "/v2/users/get",
          data: { organizationId: org, organizationUserGroupIds: [S.groupId] },
          expect: "empty",
        },
        // A's groups do not exist for B (nor does A's organization).
        {
          path: "/v2/organizations/usergroups/add",
          data: { organizationId: org, organizationUserGroups: [{ groupId: S.groupId }] },
          expect: "notFound",
        },
        {
          path: "/v2/organizations/usergroups/users/add",
          data: { organizationId: org, organizationUserGroupId: S.groupId, userIds: [S.userId] },
          expect: "notFound",
        },
        {
          path: "/v2/organizations/usergroups/users/delete",
          data: { organizationId: org, organizationUserGroupId: S.groupId, deleteAll: true },
          expect: "notFound",
        },
        { path: "/v2/users/data/get", data: { organizationId: org, userId: S.userId }, expect: "empty" },
        // A's CRDT stores: not listed, not updatable.
        { path: "/v2/crdt/get", data: { organizationId: org, documentId: S.documentId }, expect: "empty" },
        {
          path: "/v2/crdt/get",
          data: {
            organizationId: org,
            documentId: S.documentId,
            editorId: S.editorId,
            encoding: "yjs-update",
          },
          expect: "empty",
        },
        {
          path: "/v2/crdt/update",
          data: {
            organizationId: org,
            documentId: S.documentId,
            editorId: S.editorId,
            data: "B",
            type: "text",
          },
          expect: "notFound",
        },
        { path: "/v2/users/data/delete/status", data: { jobId: jobOfA }, expect: "notFound" },
        // No sweep of B's holds the id: complete, and nothing of A's job shows.
        { path: "/v2/organizations/delete/status", data: { organizationId: org }, expect: "empty" },
        {
          path: "/v2/notifications/config/get",
          data: { organizationId: org, userId: S.userId, getOrganizationConfig: true },
          expect: "ownWrite",
        },
        // Rotates B's own secret; A's (sealed in its row) stays as it was.
        { path: "/v2/workspace/webhooks/secret/rotate", data: { graceSeconds: 0 }, expect: "ownWrite" },
        // Changes by id: each of A's ids fails as if absent.
        {
          path: "/v2/activities/update",
          data: { organizationId: org, activities: [{ id: S.activityId, displayMessageTemplate: "B" }] },
          expect: "itemsFailed",
        },
        {
          path: "/v2/notifications/update",
          data: {
            organizationId: org,
            notifications: [{ id: S.notificationId, readByUserIds: [S.userId], displayBodyMessage: "B" }],
          },
          expect: "itemsFailed",
        },
        {
          path: "/v2/organizations/folders/update",
          data: { organizationId: org, folderId: S.folderId, folderName: "B", parentFolderId: "root" },
          expect: "notFound",
        },
        {
          path: "/v2/workspace/webhooks/deliveries/retry",
          data: { deliveryIds: deliveryIds.slice(0, 100) },
          expect: "itemsFailed",
        },
        {
          path: "/v2/users/update",
          data: { organizationId: org, users: [{ userId: S.userId, name: "B" }] },
          expect: "itemsFailed",
        },
        {
          path: "/v2/users/update",
          data: { organizationId: org, documentId: S.documentId, users: [{ userId: S.userId, name: "B" }] },
          expect: "itemsFailed",
        },
        // Deletes: by id each fails; by scope nothing goes.
        {
          path: "/v2/users/delete",
          data: { organizationId: org, userIds: [S.userId, "u-2"] },
          expect: "itemsFailed",
        },
        {
          path: "/v2/activities/delete",
          data: { organizationId: org, activityIds: [S.activityId, S.customActivityId] },
          expect: "itemsFailed",
        },
        {
          path: "/v2/activities/delete",
          data: { organizationId: org, documentId: S.documentId },
          expect: "nothingDeleted",
        },
        {
          path: "/v2/recordings/delete",
          data: { organizationId: org, recordingIds: [S.annotationId] },
          expect: "itemsFailed",
        },
        {
          path: "/v2/recordings/delete",
          data: { organizationId: org, documentId: S.documentId },
          expect: "nothingDeleted",
        },
        {
          path: "/v2/notifications/delete",
          data: { organizationId: org, notificationIds: [S.notificationId] },
          expect: "itemsFailed",
        },
        {
          path: "/v2/notifications/delete",
          data: { organizationId: org, userId: S.userId },
          expect: "nothingDeleted",
        },
        {
          path: "/v2/notifications/delete",
          data: { organizationId: org, locationId: S.locationId },
          expect: "nothingDeleted",
        },
        {
          path: "/v2/organizations/folders/delete",
          data: { organizationId: org, folderId: S.folderId },
          expect: "notFound",
        },
        {
          path: "/v2/organizations/folders/access/update",
          data: { organizationId: org, folderIds: [S.folderId], accessType: "public" },
          expect: "notFound",
        },
        {
          path: "/v2/organizations/update",
          data: { organizations: [{ organizationId: org, organizationName: "B" }] },
          expect: "itemsFailed",
        },
        {
          path: "/v2/organizations/documents/update",
          data: { organizationId: org, documents: [{ documentId: S.documentId, documentName: "B" }] },
          expect: "itemsFailed",
        },
        {
          path: "/v2/organizations/documents/move",
          data: { organizationId: org, documentIds: [S.documentId, "doc-2"], folderId: "root" },
          expect: "itemsFailed",
        },
        {
          path: "/v2/organizations/documents/delete",
          data: { organizationId: org, documentIds: [S.documentId, "doc-2"] },
          expect: "itemsFailed",
        },
        // B has no organization of that id yet: nothing to migrate, and A's migration is not B's.
        {
          path: "/v2/organizations/documents/migrate",
          data: { organizationId: org, documentId: S.documentId, newDocumentId: "doc-moved" },
          expect: "notFound",
        },
        {
          path: "/v2/organizations/documents/migrate/status",
          data: { organizationId: org, migrationId: "migration-of-a" },
          expect: "notFound",
        },
        // Locations of A's document: B's own (empty) document is rewritten, A's rows stay.
        {
          path: "/v2/organizations/documents/locations/update",
          data: {
            organizationId: org,
            documentId: S.documentId,
            migrate: { oldLocation: { id: "loc-1" }, newLocation: { id: "loc-2" } },
          },
          expect: "ownWrite",
        },
        {
          path: "/v2/organizations/documents/locations/data/delete",
          data: { documentId: S.documentId, location: { id: "loc-1" } },
          expect: "ownWrite",
        },
        {
          path: "/v2/organizations/delete",
          data: { organizationIds: [org, "org-2"] },
          expect: "itemsFailed",
        },
        {
          path: "/v2/auth/permissions/remove",
          data: {
            userId: S.userId,
            permissions: { resources: [{ type: "folder", id: S.folderId, organizationId: org }] },
          },
          expect: "nothingDeleted",
        },
        // Writes naming A's records need B's own: A's organization does not exist for B.
        {
          path: "/v2/organizations/folders/add",
          data: { organizationId: org, folders: [{ folderId: "f-new", parentFolderId: S.folderId }] },
          expect: "notFound",
        },
        {
          path: "/v1/organizations/folders/add",
          data: { organizationId: org, folders: [{ folderId: "f-new" }] },
          expect: "notFound",
        },
        {
          path: "/v2/organizations/documents/add",
          data: { organizationId: org, folderId: S.folderId, documents: [{ documentId: "doc-new" }] },
          expect: "notFound",
        },
        // Grants need no record (docs/contract.md "Access"): B's grant on A's ids is B's own row.
        {
          path: "/v2/auth/permissions/add",
          data: {
            user: { userId: "intruder" },
            permissions: { resources: [{ type: "document", id: S.documentId, organizationId: org }] },
          },
          expect: "ownWrite",
        },
        {
          path: "/v2/auth/permissions/remove",
          data: { userId: S.userId, permissions: { resources: [{ type: "folder", id: S.folderId }] } },
          expect: "nothingDeleted",
        },
        // Writes with A's ids create B's own rows; A's same ids neither block nor change.
        {
          path: "/v2/activities/add",
          data: {
            organizationId: org,
            documentId: S.documentId,
            activities: [
              {
                id: S.activityId,
                featureType: "comment",
                actionType: "comment.add",
                actionUser: { userId: "b" },
              },
            ],
          },
          expect: "ownWrite",
        },
        {
          path: "/v2/recordings/add",
          data: {
            organizationId: org,
            documentId: S.documentId,
            recordings: [
              { annotationId: S.annotationId, recordingType: "video", recordedTime: { duration: 5 } },
            ],
          },
          expect: "ownWrite",
        },
        {
          path: "/v2/notifications/add",
          data: {
            organizationId: org,
            notificationId: S.notificationId,
            displayHeadlineMessageTemplate: "B",
            notifyUsers: [{ userId: S.userId }],
          },
          expect: "ownWrite",
        },
        {
          path: "/v2/workspace/webhookconfig/update",
          data: { useWebhookService: false },
          expect: "ownWrite",
        },
        {
          path: "/v2/crdt/add",
          data: {
            organizationId: org,
            documentId: S.documentId,
            editorId: S.editorId,
            data: "B",
            type: "text",
          },
          expect: "ownWrite",
        },
        {
          path: "/v2/commentannotations/add",
          data: {
            organizationId: org,
            documentId: S.documentId,
            commentAnnotations: [
              { annotationId: "thread-1", commentData: [{ commentText: "B", from: { userId: "b" } }] },
            ],
          },
          expect: "ownWrite",
        },
        {
          path: "/v2/organizations/add",
          data: { organizations: [{ organizationId: org }] },
          expect: "ownWrite",
        },
        {
          path: "/v2/organizations/folders/add",
          data: { organizationId: org, folders: [{ folderId: S.folderId }, { folderId: S.childFolderId }] },
          expect: "ownWrite",
        },
        {
          path: "/v2/organizations/documents/add",
          data: { organizationId: org, documents: [{ documentId: S.documentId }] },
          expect: "ownWrite",
        },
        {
          path: "/v2/auth/permissions/add",
          data: { userId: S.userId, permissions: { resources: [{ type: "organization", id: org }] } },
          expect: "ownWrite",
        },
        {
          path: "/v2/users/add",
          data: { organizationId: org, documentId: S.documentId, users: [{ userId: S.userId }] },
          expect: "ownWrite",
        },
        {
          path: "/v2/notifications/config/set",
          data: { organizationId: org, userIds: [S.userId], config: { inbox: "NONE" } },
          expect: "ownWrite",
        },
        {
          path: "/v2/workspace/notificationconfig/update",
          data: { useNotificationService: true },
          expect: "ownWrite",
        },
        // B's organization exists now: B's group of A's id is B's own.
        {
          path: "/v2/organizations/usergroups/add",
          data: { organizationId: org, organizationUserGroups: [{ groupId: S.groupId }] },
          expect: "ownWrite",
        },
        // B erases a user id A also has: B's job runs to its end, and A's rows stay as they were.
        {
          path: "/v2/users/data/delete",
          data: { userIds: [S.userId] },
          expect: "ownWrite",
          settle: () => server().services.jobs.settled(),
        },
        // Backends name documents and organizations they never added: B gets its own records.
        {
          path: "/v2/organizations/documents/access/update",
          data: { organizationId: org, documentIds: [S.documentId], accessType: "public" },
          expect: "ownWrite",
        },
        {
          path: "/v2/organizations/documents/access/disablestate/update",
          data: { organizationId: org, documentIds: [S.documentId], disabled: true },
          expect: "ownWrite",
        },
        {
          path: "/v2/organizations/access/disablestate/update",
          data: { organizationIds: [org, "org-2"], disabled: true },
          expect: "ownWrite",
        },
        // B's own organization now exists and is empty of A's folders.
        {
          path: "/v2/organizations/folders/get",
          data: { organizationId: org, folderId: "f-new" },
          expect: "notFound",
        },
        ...operatorCases(a.apiKey),
      ];
      const outcome = await checkTenantIsolation(server(), a, b, MARKER, withV1Paths(cases));
      expect(outcome.failures).toEqual([]);
      report(
        `tenant isolation ${server().dialect}: ${outcome.checks} checks over all ${outcome.operations} ` +
          "operations; workspace A's rows unchanged after each, nothing of A revealed",
      );
    });
  },
  { env: { COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true" } },
);

/**
 * Each case again on every v1 path that aliases its v2 path (docs/compatibility.md "Version 1 paths", src/http/aliases.ts),
 * right after it: the alias is the same operation, so it must isolate the same way.
 */
function withV1Paths(cases: readonly IsolationCase[]): IsolationCase[] {
  const aliases = withAliases(allOperations).filter((op) => op.aliasOf !== undefined);
  return cases.flatMap((c) => [
    c,
    ...aliases
      .filter((op) => op.aliasOf!.path === c.path)
      .map(
        (op): IsolationCase => ({
          ...c,
          path: op.path,
          // B's own rows exist after the v2 case: a repeated add may meet them, never A's.
          expect: c.expect === "ownWrite" ? "ownWriteAgain" : c.expect,
        }),
      ),
  ]);
}

/**
 * B's own activity and API key configurations (A's immutable log and settings unseen and
 * unchanged); B's tokens and signatures under B's key, the v1 form with B's body credentials.
 */
function workspaceConfigCases(b: Credentials): IsolationCase[] {
  const W = "/v2/workspace";
  return [
    { path: `${W}/activityconfig/get`, data: {}, expect: "ownWrite" },
    { path: `${W}/apikeyconfig/get`, data: {}, expect: "ownWrite" },
    // B's log stays editable and its threads may stay private: the cases after these write them.
    {
      path: `${W}/activityconfig/update`,
      data: { activityServiceConfig: { isEnabled: true, immutable: false } },
      expect: "ownWrite",
    },
    { path: `${W}/apikeyconfig/update`, data: { requireJwtToken: true }, expect: "ownWrite" },
    {
      path: "/v2/auth/generate_token",
      data: {
        userId: S.userId,
        userProperties: { name: "B", email: "b@example.com" },
        permissions: { resources: [] },
      },
      expect: "ownWrite",
    },
    {
      path: "/v2/auth/generate_signature",
      data: {
        permissions: [{ userId: S.userId, resourceId: S.documentId, type: "document", hasAccess: true }],
      },
      expect: "ownWrite",
    },
    { path: "/v1/auth/token/get", data: { ...b, userId: S.userId }, expect: "ownWrite" },
  ];
}

/**
 * The operator API (docs/contract.md "Operator API") is no tenant's: B's API key and token open
 * none of it, whatever A's key it names, and the paths served only to refuse refuse B alike.
 */
function operatorCases(apiKeyOfA: string): IsolationCase[] {
  const P = "/v2/workspace";
  return [
    { path: `${P}/get`, data: {}, expect: "refused" },
    { path: `${P}/apikeys/get`, data: { apiKeys: [apiKeyOfA] }, expect: "refused" },
    { path: `${P}/apikey/create`, data: { ownerEmail: "b@example.com", type: "testing" }, expect: "refused" },
    { path: `${P}/apikey/update`, data: { apiKey: apiKeyOfA, apiKeyName: "B" }, expect: "refused" },
    { path: `${P}/authtokens/get`, data: { apiKey: apiKeyOfA }, expect: "refused" },
    { path: `${P}/authtoken/reset`, data: { apiKey: apiKeyOfA }, expect: "refused" },
    { path: `${P}/create`, data: { ownerEmail: "b@example.com" }, expect: "refused" },
    ...["v1", "v2"].flatMap((v): IsolationCase[] => {
      const doc = { organizationId: S.organizationId, documentId: S.documentId };
      return [
        { path: `/${v}/presence/add`, data: { ...doc, users: [{ userId: S.userId }] }, expect: "refused" },
        { path: `/${v}/presence/update`, data: { ...doc, users: [{ userId: S.userId }] }, expect: "refused" },
        { path: `/${v}/presence/delete`, data: { ...doc, userIds: [S.userId] }, expect: "refused" },
        {
          path: `/${v}/livestate/broadcast`,
          data: { ...doc, liveStateDataId: "x", data: {} },
          expect: "refused",
        },
      ];
    }),
  ];
}

/** B enables its own advanced webhooks; A's endpoints, by id or uid, and A's iterator are unknown to B. */
function advancedWebhookCases(endpointId: string, iterator: string): IsolationCase[] {
  const P = "/v2/workspace/advancedwebhook/endpoints";
  return [
    { path: "/v2/workspace/advancedwebhookconfig/update", data: { isEnabled: true }, expect: "ownWrite" },
    { path: "/v2/workspace/advancedwebhookconfig/get", data: {}, expect: "ownWrite" },
    { path: `${P}/get`, data: {}, expect: "empty" },
    { path: `${P}/get`, data: { limit: 1, iterator }, expect: "badPageToken" },
    { path: `${P}/update`, data: { endpointId, description: "B" }, expect: "notFound" },
    { path: `${P}/update`, data: { endpointId: "seed-endpoint", disabled: true }, expect: "notFound" },
    { path: `${P}/secret/get`, data: { endpointId }, expect: "notFound" },
    { path: `${P}/secret/get`, data: { endpointId: "seed-endpoint" }, expect: "notFound" },
    { path: `${P}/delete`, data: { endpointId }, expect: "notFound" },
    // A's uid is B's to take.
    { path: `${P}/create`, data: { url: "http://127.0.0.1:9/b", uid: "seed-endpoint" }, expect: "ownWrite" },
  ];
}

/** Comment operations naming A's threads: updates and deletes fail per item, thread lookups are NOT_FOUND. */
function commentCases(org: string): IsolationCase[] {
  const thread = { organizationId: org, documentId: S.documentId, annotationId: "thread-1" };
  const reaction = { ...thread, commentId: 1, icon: "x", from: { userId: "b" } };
  const P = "/v2/commentannotations";
  return [
    {
      path: `${P}/update`,
      data: {
        organizationId: org,
        documentId: S.documentId,
        annotationIds: ["thread-1"],
        updatedData: { context: {} },
      },
      expect: "itemsFailed",
    },
    {
      path: `${P}/delete`,
      data: { organizationId: org, documentId: S.documentId, annotationIds: ["thread-1"] },
      expect: "itemsFailed",
    },
    {
      path: `${P}/comments/add`,
      data: { ...thread, commentData: [{ commentText: "B", from: { userId: "b" } }] },
      expect: "notFound",
    },
    { path: `${P}/comments/get`, data: thread, expect: "notFound" },
    {
      path: `${P}/comments/update`,
      data: { ...thread, commentIds: [1], updatedData: { commentText: "B" } },
      expect: "notFound",
    },
    { path: `${P}/comments/delete`, data: thread, expect: "notFound" },
    { path: `${P}/comments/reactions/add`, data: reaction, expect: "notFound" },
    { path: `${P}/comments/reactions/delete`, data: reaction, expect: "notFound" },
  ];
}
