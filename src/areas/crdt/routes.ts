import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { CrdtData, GetCrdt, WriteCrdt } from "./schemas.js";
import { addCrdt, CRDT_MESSAGES, getCrdt, updateCrdt } from "./service.js";

const LIMITS =
  "The state is at most COLLABD_MAX_RECORD_BYTES (a write that would exceed it changes nothing), and so is " +
  "its JSON rendering; a Yjs update is refused (INVALID_ARGUMENT) when it is malformed or over the limits " +
  'of docs/decisions.md "CRDT". Emits `crdt.update_data`, debounced 5 s per store.';

export const crdtOperations = [
  operation({
    path: "/v2/crdt/add",
    operationId: "crdtAdd",
    tag: "CRDT",
    summary: "Add CRDT data",
    description:
      "Creates the Yjs store of one editor of a document (at most 1000 per document) holding `data` under " +
      '`contentKey` (default "content") as a Yjs shared `type`; with `encoding: "yjs-update"`, `data` is a ' +
      `base64 Yjs update. An editorId that has a store is ALREADY_EXISTS. ${LIMITS} The answer has no \`data\`.`,
    data: WriteCrdt,
    result: Type.Null(),
    withoutData: true,
    example: {
      data: {
        organizationId: "org-1",
        documentId: "doc-1",
        editorId: "editor-1",
        data: "Hello world",
        type: "text",
        contentKey: "content",
        userId: "u1",
      },
      message: CRDT_MESSAGES.added,
      result: undefined,
    },
    handle: async (ctx, data) => {
      await addCrdt(ctx, data);
      return { message: CRDT_MESSAGES.added, data: undefined };
    },
  }),
  operation({
    path: "/v2/crdt/update",
    operationId: "crdtUpdate",
    tag: "CRDT",
    summary: "Update CRDT data",
    description:
      "Replaces the store's content: collabd computes the Yjs operations that turn the stored content into " +
      '`data` and stores the merged state, so editors that merge it converge; with `encoding: "yjs-update"` ' +
      "the update is merged as it is. `type` and `contentKey` must be the store's. No store: NOT_FOUND. " +
      `${LIMITS} The answer has no \`data\`.`,
    data: WriteCrdt,
    result: Type.Null(),
    withoutData: true,
    example: {
      data: {
        organizationId: "org-1",
        documentId: "doc-1",
        editorId: "editor-1",
        data: "Hello collabd",
        type: "text",
        userId: "u1",
        sessionId: "session-1",
      },
      message: CRDT_MESSAGES.updated,
      result: undefined,
    },
    handle: async (ctx, data) => {
      await updateCrdt(ctx, data);
      return { message: CRDT_MESSAGES.updated, data: undefined };
    },
  }),
  operation({
    path: "/v2/crdt/get",
    operationId: "crdtGet",
    tag: "CRDT",
    summary: "Get CRDT data",
    description:
      "The stores of a document, or the one of `editorId`, rendered as JSON (XML as markup); with " +
      '`encoding: "yjs-update"` each `data` is the base64 Yjs state. An array, `[]` when there is none; ' +
      "pages of at most COLLABD_MAX_PAGE_BYTES.",
    data: GetCrdt,
    result: CrdtData,
    list: true,
    example: {
      data: { organizationId: "org-1", documentId: "doc-1", editorId: "editor-1" },
      message: CRDT_MESSAGES.retrieved,
      result: [
        {
          data: "Hello collabd",
          id: "editor-1",
          lastUpdate: "2026-01-01T00:00:00.000Z",
          lastUpdatedBy: "u1",
          sessionId: "session-1",
          type: "text",
          contentKey: "content",
        },
      ],
      pageToken: "",
    },
    handle: async (ctx, data) => {
      const page = await getCrdt(ctx, data);
      return {
        message: CRDT_MESSAGES.retrieved,
        data: null,
        rawData: page.rawData,
        pageToken: page.pageToken,
      };
    },
  }),
];
