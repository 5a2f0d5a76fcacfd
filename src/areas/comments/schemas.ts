import { type Static, type TSchema, Type } from "typebox";
import {
  Closed,
  documentedAs,
  FreeObject,
  Id,
  MAX_ITEMS,
  named,
  OneOf,
  PageSize,
  PageToken,
  Text,
} from "../../http/schemas.js";
import { User } from "../../http/user.js";
import {
  Annotation,
  AnnotationIdInput,
  Comment,
  CommentId,
  Location,
  MAX_COMMENTS_PER_REQUEST,
  MAX_IDS,
  NewComment,
  Priority,
  StatusPatch,
  TargetElement,
  Timestamp,
  Visibility,
} from "./objects.js";

/** Requests and answers of the comment operations (docs/contract.md "Comments"). */

const Ids = (description: string) => Type.Array(Id(), { minItems: 1, maxItems: MAX_IDS, description });
const Flag = (description: string) => Type.Optional(Type.Boolean({ description }));
const NullableId = (description: string) => Type.Optional(Type.Union([Id(), Type.Null()], { description }));

const CommentData = Type.Array(NewComment, { minItems: 1, maxItems: MAX_COMMENTS_PER_REQUEST });

export const NewAnnotation = named(
  "NewCommentAnnotation",
  Closed(
    {
      annotationId: Type.Optional(AnnotationIdInput),
      location: Type.Optional(Location),
      targetElement: Type.Optional(TargetElement),
      commentData: CommentData,
      status: Type.Optional(StatusPatch),
      assignedTo: Type.Optional(User),
      context: Type.Optional(FreeObject("Open; `access` adds `accessFields`.")),
      createdAt: Type.Optional(Timestamp("ms; default now (imports).")),
      lastUpdated: Type.Optional(Timestamp("ms; default createdAt.")),
      priority: Type.Optional(Priority),
      type: Type.Optional(Type.Enum(["comment", "suggestion"], { description: "Default comment." })),
      suggestion: Type.Optional(FreeObject("Only for type suggestion; its status starts pending.")),
      commentType: Type.Optional(
        Type.Enum(["manual", "chart", "suggestion"], { description: "Default manual." }),
      ),
      visibility: Type.Optional(Visibility),
    },
    "One thread to add.",
  ),
);

const CreateFlags = {
  createOrganization: Flag("Create the organization record first when missing."),
  createDocument: Flag("Create the document record first when missing."),
  verifyUserPermissions: Flag("Authors must have access to the document."),
};

export const AddAnnotations = Closed({
  organizationId: Id(),
  documentId: Id(),
  ...CreateFlags,
  commentAnnotations: Type.Array(NewAnnotation, { minItems: 1, maxItems: MAX_ITEMS }),
});

export const GetAnnotations = Closed({
  organizationId: Id(),
  documentId: Type.Optional(Id()),
  documentIds: Type.Optional(Ids("Threads of these documents.")),
  groupByDocumentId: Flag("`data` becomes `{documentId: annotation[]}`."),
  locationIds: Type.Optional(Ids("Match `location.id` as text.")),
  folderId: Type.Optional(Id("Documents directly in this folder now.")),
  annotationIds: Type.Optional(Ids("In request order, null for unknown ids; no paging.")),
  userIds: Type.Optional(Ids("Thread author.")),
  mentionedUserIds: Type.Optional(Ids("Any of these tagged in a comment.")),
  resolvedBy: Type.Optional(Id("Equals resolvedByUserId.")),
  statusIds: Type.Optional(Ids("`status.id`.")),
  statusId: Type.Optional(Id("One status id (the original's examples).")),
  agentId: Type.Optional(Id("Threads of this agent. At most one agent filter per request.")),
  executionId: Type.Optional(Id("Threads of this agent execution.")),
  agentType: Type.Optional(
    Type.Enum(["built-in", "custom", "external"], {
      description: "Threads of agents of this type (collabd: by agentSource).",
    }),
  ),
  agentSource: Type.Optional(Id("Threads of agents of this source.")),
  agentSuggestions: Flag("true: suggestion threads written by agents."),
  agentComments: Flag("true: comment threads written by agents."),
  updatedAfter: Type.Optional(Timestamp("Exclusive, ms.")),
  updatedBefore: Type.Optional(Timestamp("Exclusive, ms.")),
  createdAfter: Type.Optional(Timestamp("Exclusive, ms.")),
  createdBefore: Type.Optional(Timestamp("Exclusive, ms.")),
  order: Type.Optional(Type.Enum(["asc", "desc"], { description: "By lastUpdated; default desc." })),
  pageSize: Type.Optional(PageSize),
  pageToken: Type.Optional(PageToken),
});

export const AnnotationPatch = named(
  "CommentAnnotationPatch",
  Closed(
    {
      location: Type.Optional(Type.Union([Location, Type.Null()])),
      targetElement: Type.Optional(Type.Union([TargetElement, Type.Null()])),
      from: Type.Optional(User),
      status: Type.Optional(StatusPatch),
      statusUpdatedByUserId: NullableId("Who changed the status; null clears."),
      resolvedByUserId: NullableId("Who resolved the thread; null clears."),
      assignedTo: Type.Optional(Type.Union([User, Type.Null()])),
      context: Type.Optional(Type.Union([FreeObject(), Type.Null()])),
      priority: Type.Optional(Type.Union([Priority, Type.Null()])),
      suggestion: Type.Optional(Type.Union([FreeObject("Replaces the stored object whole."), Type.Null()])),
    },
    "Fields to set on the selected threads: null clears, absent keeps.",
  ),
);

const PatchList = Type.Array(AnnotationPatch, { minItems: 1, maxItems: 100 });

/** One patch or a list applied in order; if/then/else reports a bad item at its own path. */
const OneOrMany = documentedAs(
  Type.Unsafe<Static<typeof AnnotationPatch> | Static<typeof PatchList>>({
    if: { type: "array" },
    // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword; this object is never awaited
    then: PatchList,
    else: AnnotationPatch,
    description: "A patch, or an array of patches applied in order.",
  } as unknown as TSchema),
  OneOf([AnnotationPatch, PatchList], "A patch, or an array of patches applied in order."),
);

const UserRef = Closed({
  userId: Id(),
  name: Type.Optional(Text("", 1024)),
  email: Type.Optional(Text("", 320)),
});

const ThreadSelection = {
  annotationIds: Type.Optional(Ids("These threads.")),
  locationIds: Type.Optional(Ids("Threads at these locations.")),
  userIds: Type.Optional(Ids("Threads these users started.")),
};

const Effects = {
  triggerNotification: Flag("collabd extra: false sends no webhook event; default true."),
  triggerActivities: Flag("collabd extra: write activity records; default false."),
};

export const UpdateAnnotations = Closed({
  organizationId: Id(),
  documentId: Id(),
  ...ThreadSelection,
  updatedData: Type.Optional(OneOrMany),
  updateUsers: Type.Optional(
    Type.Array(Closed({ oldUser: UserRef, newUser: UserRef }), { minItems: 1, maxItems: 100 }),
  ),
  ...Effects,
});

export const DeleteAnnotations = Closed({
  organizationId: Type.Optional(Id("Absent: this document id in every organization.")),
  documentId: Id(),
  ...ThreadSelection,
  agentId: Type.Optional(Id("Threads of this agent.")),
  agentSuggestions: Flag("true: only suggestion threads written by agents."),
  agentUrls: Type.Optional(Type.Array(Text("Agent URL.", 2048), { minItems: 1, maxItems: MAX_IDS })),
  ...Effects,
});

export const CountAnnotations = Closed({
  organizationId: Id(),
  documentIds: Ids("Documents to count."),
  userId: Id("The viewer, for unread."),
  statusIds: Type.Optional(Ids("Only threads with these statuses.")),
});

const ThreadRef = { organizationId: Id(), documentId: Id(), annotationId: Id() };

export const AddComments = Closed({ ...ThreadRef, ...CreateFlags, commentData: CommentData });

export const GetComments = Closed({
  ...ThreadRef,
  userIds: Type.Optional(Ids("Comments by these users.")),
  commentIds: Type.Optional(Type.Array(CommentId, { minItems: 1, maxItems: MAX_ITEMS })),
});

export const CommentPatch = named(
  "CommentPatch",
  Closed(
    {
      commentText: Type.Optional(NewComment.properties.commentText),
      commentHtml: Type.Optional(NewComment.properties.commentHtml),
      context: Type.Optional(FreeObject("Open.")),
      isCommentResolverUsed: Type.Optional(Type.Boolean()),
      isCommentTextAvailable: Type.Optional(Type.Boolean()),
      from: Type.Optional(User),
      taggedUserContacts: NewComment.properties.taggedUserContacts,
      attachments: NewComment.properties.attachments,
    },
    "Fields to set on the comments.",
  ),
);

export const UpdateComments = Closed({
  ...ThreadRef,
  commentIds: Type.Array(CommentId, { minItems: 1, maxItems: MAX_ITEMS }),
  updatedData: CommentPatch,
  ...Effects,
});

export const DeleteComments = Closed({
  ...ThreadRef,
  commentIds: Type.Optional(Type.Array(CommentId, { minItems: 1, maxItems: MAX_ITEMS })),
  ...Effects,
});

export const Reaction = Closed({
  ...ThreadRef,
  commentId: CommentId,
  icon: Type.String({ minLength: 1, maxLength: 64, description: "The reaction, e.g. an emoji." }),
  from: User,
  triggerActivities: Flag("Write an activity record; default false."),
});

export const AddedAnnotation = named(
  "AddedCommentAnnotation",
  Closed(
    {
      success: Type.Boolean(),
      annotationId: Type.Optional(Type.String()),
      commentIds: Type.Optional(Type.Array(Type.Integer())),
      message: Type.String(),
      findingId: Type.Optional(Type.String()),
      code: Type.Optional(Type.String()),
    },
    "One thread's outcome.",
  ),
);

export const IdItem = named(
  "CommentItemResult",
  Closed(
    { success: Type.Boolean(), id: Type.Union([Type.String(), Type.Integer()]), message: Type.String() },
    "One item's outcome; `id` is a number for comments.",
  ),
);

export const AnnotationList = OneOf(
  [
    Type.Array(Type.Union([Annotation, Type.Null()])),
    Type.Record(Type.String(), Type.Array(Annotation), { description: "groupByDocumentId." }),
  ],
  "Threads (null for unknown annotationIds), or threads by document.",
);

export const CommentList = Type.Array(Type.Union([Comment, Type.Null()]));
export const Counts = Type.Record(
  Type.String(),
  Closed({ total: Type.Integer({ minimum: 0 }), unread: Type.Integer({ minimum: 0 }) }),
  { description: "documentId → counts." },
);

export type NewAnnotationInput = Static<typeof NewAnnotation>;
export type AddAnnotationsInput = Static<typeof AddAnnotations>;
export type GetAnnotationsInput = Static<typeof GetAnnotations>;
export type AnnotationPatchInput = Static<typeof AnnotationPatch>;
export type UpdateAnnotationsInput = Static<typeof UpdateAnnotations>;
export type DeleteAnnotationsInput = Static<typeof DeleteAnnotations>;
export type CountAnnotationsInput = Static<typeof CountAnnotations>;
export type AddCommentsInput = Static<typeof AddComments>;
export type GetCommentsInput = Static<typeof GetComments>;
export type UpdateCommentsInput = Static<typeof UpdateComments>;
export type DeleteCommentsInput = Static<typeof DeleteComments>;
export type ReactionInput = Static<typeof Reaction>;
