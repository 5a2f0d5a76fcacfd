import { Type } from "typebox";
import type { RefusedOperation } from "../../http/operation.js";
import { Closed, FreeObject, Id } from "../../http/schemas.js";

/**
 * Presence and live state (docs/compatibility.md "D23"): collabd keeps no realtime connections,
 * so there is nobody to show a presence list or push live state to. Each path answers
 * FAILED_PRECONDITION to every request, never a 404 that would read as a wrong URL.
 */
export const REALTIME_REFUSAL = "collabd has no realtime layer; presence and live state are not available.";

const TAG = "Presence and live state";

const PresenceUser = Closed({
  userId: Id(),
  name: Type.Optional(Type.String({ maxLength: 1024 })),
  email: Type.Optional(Type.String({ maxLength: 320 })),
  status: Type.Optional(Type.String({ maxLength: 256 })),
});
const PresenceUsers = Closed({
  organizationId: Id(),
  documentId: Id(),
  users: Type.Array(PresenceUser, { maxItems: 1000 }),
});
const PresenceDelete = Closed({
  organizationId: Id(),
  documentId: Id(),
  userIds: Type.Array(Id(), { maxItems: 1000 }),
});
const Broadcast = Closed({
  organizationId: Id(),
  documentId: Id(),
  liveStateDataId: Id(),
  data: FreeObject("Any JSON object."),
  merge: Type.Optional(Type.Boolean()),
});

const refusal = (
  path: string,
  operationId: string,
  summary: string,
  data: RefusedOperation["data"],
  example: unknown,
): RefusedOperation => ({
  path,
  operationId,
  tag: TAG,
  summary: `${summary}: refused`,
  description:
    "Always FAILED_PRECONDITION: collabd has no realtime layer, so presence and live state are not " +
    'available (docs/compatibility.md "D23").',
  data,
  example,
  status: "FAILED_PRECONDITION",
  message: REALTIME_REFUSAL,
});

const DOCUMENT = { organizationId: "org-1", documentId: "doc-1" };
const USERS = { ...DOCUMENT, users: [{ userId: "u1", name: "Ada", status: "online" }] };

export const realtimeRefusals: readonly RefusedOperation[] = [
  refusal("/v2/presence/add", "presenceAdd", "Add users to a document's presence", PresenceUsers, USERS),
  refusal(
    "/v2/presence/update",
    "presenceUpdate",
    "Update users in a document's presence",
    PresenceUsers,
    USERS,
  ),
  refusal(
    "/v2/presence/delete",
    "presenceDelete",
    "Remove users from a document's presence",
    PresenceDelete,
    {
      ...DOCUMENT,
      userIds: ["u1"],
    },
  ),
  refusal("/v2/livestate/broadcast", "liveStateBroadcast", "Broadcast live state", Broadcast, {
    ...DOCUMENT,
    liveStateDataId: "cursor",
    data: { x: 1 },
    merge: false,
  }),
];
