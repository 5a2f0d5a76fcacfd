import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { DeleteLocationData, UpdateLocation } from "./schemas.js";
import * as service from "./service.js";

const TAG = "Documents";
const BOUNDED =
  "One batch (COLLABD_ERASURE_BATCH_ROWS records of each kind) is done in the request; a document with more " +
  "is finished by a background job in bounded batches that survives restarts. Body `apiKey`/`authToken`, " +
  "when sent, must match the headers (else UNAUTHENTICATED). Without `organizationId`: every organization " +
  "holding comment threads of the document.";

/** Locations inside a document (docs/compatibility.md): rename one, or delete what is tied to it. */
export const locationOperations = [
  operation({
    path: "/v2/organizations/documents/locations/update",
    operationId: "documentLocationsUpdate",
    tag: TAG,
    summary: "Rename a location inside a document",
    description:
      "Every comment thread of the document whose `location` has each field of `migrate.oldLocation` gets " +
      "`migrate.newLocation`, merged into it with `merge: true` or in its place (with its `locationId`); " +
      "notifications stored under the old location's id move to the new one's. Recordings and activities carry " +
      `no location. ${BOUNDED}`,
    data: UpdateLocation,
    result: Type.Null(),
    example: {
      data: {
        organizationId: "org-1",
        documentId: "doc-1",
        migrate: {
          oldLocation: { id: "page-1", locationName: "Page 1" },
          newLocation: { id: "page-1", locationName: "Introduction" },
        },
        merge: true,
      },
      message: "Location updated.",
      result: null,
    },
    handle: async (ctx, data) => {
      await service.updateLocation(ctx, data);
      return { message: "Location updated.", data: null };
    },
  }),
  operation({
    path: "/v2/organizations/documents/locations/data/delete",
    operationId: "documentLocationsDataDelete",
    tag: TAG,
    summary: "Delete what a location inside a document holds",
    description:
      "Deletes the comment threads of the document whose `location` has each field of `location`, and the " +
      `notifications stored under its id; usage is released. ${BOUNDED}`,
    data: DeleteLocationData,
    result: Type.Null(),
    example: {
      data: { organizationId: "org-1", documentId: "doc-1", location: { id: "page-9" } },
      message: "Data deleted successfully.",
      result: null,
    },
    handle: async (ctx, data) => {
      await service.deleteLocationData(ctx, data);
      return { message: "Data deleted successfully.", data: null };
    },
  }),
];
