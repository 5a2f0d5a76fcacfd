import { type Static, Type } from "typebox";
import {
  AnyValue,
  Closed,
  documentedAs,
  ID_BOUNDS,
  Id,
  JSON_VALUE_REF,
  named,
  PageToken,
} from "../../http/schemas.js";
import { CRDT_TYPES } from "./yjs.js";

/** Stores (editor ids) one document may hold (docs/decisions.md "CRDT"). */
export const MAX_EDITORS_PER_DOCUMENT = 1000;

/** The extension's one encoding: the state as a base64 Yjs update (v1). */
export const YJS_UPDATE = "yjs-update";

const Encoding = Type.Optional(
  Type.Literal(YJS_UPDATE, {
    description:
      "collabd extension: `data` is a base64 Yjs update (v1 encoding) instead of JSON content, so a Yjs " +
      "server can persist through collabd.",
  }),
);

export const WriteCrdt = Closed({
  organizationId: Id("The organization."),
  documentId: Id("The document."),
  editorId: Id("Id of the editor (store) instance."),
  data: documentedAs(
    Type.Unknown({
      description:
        "The content, fitting `type`: a string for text and xml (markup), an object for map, an array for " +
        'array; with `encoding: "yjs-update"` a base64 Yjs update.',
    }),
    Type.Unsafe({
      oneOf: [
        { type: "string" },
        { type: "object", additionalProperties: JSON_VALUE_REF },
        { type: "array", items: JSON_VALUE_REF },
      ],
      description:
        "The content, fitting `type`: a string for text and xml (markup), an object for map, an array for " +
        'array; with `encoding: "yjs-update"` a base64 Yjs update.',
    }),
  ),
  type: Type.Enum([...CRDT_TYPES], { description: "The Yjs shared type: text, map, array or xml." }),
  contentKey: Type.Optional(
    Type.String({
      minLength: 1,
      ...ID_BOUNDS,
      description: 'The Yjs shared-type name; default "content" (TipTap uses "default").',
    }),
  ),
  encoding: Encoding,
  userId: Type.Optional(Id("collabd extension: the user making the change, returned as `lastUpdatedBy`.")),
  sessionId: Type.Optional(Id("collabd extension: the editing session, returned as `sessionId`.")),
});
export type WriteCrdtInput = Static<typeof WriteCrdt>;

export const GetCrdt = Closed({
  organizationId: Id("The organization."),
  documentId: Id("The document."),
  editorId: Type.Optional(Id("One store; without it every store of the document, by editorId.")),
  encoding: Encoding,
  pageToken: Type.Optional(PageToken),
});
export type GetCrdtInput = Static<typeof GetCrdt>;

export const CrdtData = Type.Array(
  named(
    "CrdtData",
    Closed(
      {
        data: AnyValue("The content as JSON (XML as markup), or with `encoding` the base64 Yjs state."),
        id: Type.String({ description: "The editorId." }),
        lastUpdate: Type.String({ description: "When it last changed (ISO 8601)." }),
        lastUpdatedBy: Type.Union([Type.String(), Type.Null()], {
          description: "The `userId` of the last change; null when none was sent.",
        }),
        sessionId: Type.Union([Type.String(), Type.Null()], {
          description: "The `sessionId` of the last change, or null.",
        }),
        type: Type.Enum([...CRDT_TYPES], { description: "collabd extension: the store's type." }),
        contentKey: Type.String({ description: "collabd extension: the store's shared-type name." }),
      },
      "One CRDT store.",
    ),
  ),
  { description: "The stores, by editorId." },
);
