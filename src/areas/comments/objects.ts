import { type Static, Type } from "typebox";
import {
  AnyValue,
  Closed,
  documentedAs,
  FreeObject,
  Id,
  JSON_VALUE_REF,
  MAX_BYTES,
  MAX_ID_BYTES,
  MAX_INTEGER,
  MAX_TIMESTAMP_MS,
  named,
  Text,
} from "../../http/schemas.js";
import { User } from "../../http/user.js";

/**
 * The comment objects (docs/contract.md "Comments") that requests carry (statuses, priorities, comments …) and
 * that answers return. Closed unless the original documents them as open (docs/contract.md "Requests").
 */

/** Comments one thread may receive in one request, and tags and attachments per comment. */
export const MAX_COMMENTS_PER_REQUEST = 100;
export const MAX_TAGS = 100;
/** `commentText` and `commentHtml`, each, in characters; a thread is also bounded by the record limit. */
export const MAX_COMMENT_CHARS = 65_536;
/** Id lists the original limits to 30 (docs/compatibility.md "Policy"). */
export const MAX_IDS = 30;

const short = (description: string) => Type.Optional(Text(description, 1024));

export const AnnotationIdInput = Type.String({
  minLength: 1,
  maxLength: 256,
  [MAX_BYTES]: MAX_ID_BYTES,
  pattern: "^[^:\\u0000-\\u001F\\u007F\\uD800-\\uDFFF]*$",
  description: "Thread id; generated when absent. Must not contain `:`.",
});

export const Timestamp = (description: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_TIMESTAMP_MS, description });

export const CommentId = Type.Integer({ minimum: 0, maximum: MAX_INTEGER, description: "Comment id." });

export const Status = named(
  "CommentStatus",
  Closed(
    {
      id: Id("e.g. `OPEN`, `IN_PROGRESS`, `RESOLVED`."),
      name: Text("Display name.", 1024),
      type: Type.Enum(["default", "ongoing", "terminal"], { description: "`terminal` resolves the thread." }),
      color: short("Color."),
      lightColor: short("Light color."),
      svg: Type.Optional(Text("Icon as SVG.", 65_536)),
      iconUrl: Type.Optional(Text("Icon URL.", 2048)),
    },
    "A thread's status.",
  ),
);

/**
 * A status as an update may send it: `type` alone is enough (the original's v1 update examples
 * send `{"type": "ongoing"}`); src/areas/comments/palette.ts says which status it becomes.
 */
export const StatusPatch = named(
  "CommentStatusPatch",
  Closed(
    {
      id: Type.Optional(
        Id(
          "e.g. `OPEN`, `IN_PROGRESS`, `RESOLVED`; absent: the thread's status of this type, or its default.",
        ),
      ),
      name: Type.Optional(Text("Display name.", 1024)),
      type: Type.Enum(["default", "ongoing", "terminal"], { description: "`terminal` resolves the thread." }),
      color: short("Color."),
      lightColor: short("Light color."),
      svg: Type.Optional(Text("Icon as SVG.", 65_536)),
      iconUrl: Type.Optional(Text("Icon URL.", 2048)),
    },
    "A status to set: `type` required; without `id` the default status of the type (`default` OPEN, `ongoing` IN_PROGRESS, `terminal` RESOLVED) unless the thread already has one of that type.",
  ),
);

export const Priority = named(
  "CommentPriority",
  Closed(
    {
      id: Id("e.g. `P0`."),
      name: Text("Display name.", 1024),
      color: short("Color."),
      lightColor: short("Light color."),
    },
    "A thread's priority.",
  ),
);

const LOCATION_FIELDS = {
  id: Type.Optional(
    Type.Union([Type.String({ maxLength: 256, [MAX_BYTES]: MAX_ID_BYTES }), Type.Number()], {
      description: "Location id.",
    }),
  ),
  locationName: short("Location name."),
};

/** Open (docs/contract.md "Requests"): `id` and `locationName` typed, other keys kept. */
export const Location = named(
  "CommentLocation",
  documentedAs(
    Type.Object(LOCATION_FIELDS, { additionalProperties: true, description: "Where the thread is (open)." }),
    Type.Unsafe({
      ...Type.Object(LOCATION_FIELDS),
      additionalProperties: JSON_VALUE_REF,
      description: "Where the thread is (open).",
    }),
  ),
);

export const TargetElement = named(
  "CommentTargetElement",
  Closed(
    {
      elementId: Type.Optional(Text("Element id.", 1024)),
      targetText: Type.Optional(Text("Selected text.")),
      occurrence: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_INTEGER })),
      selectAllContent: Type.Optional(Type.Boolean()),
    },
    "The element the thread is attached to.",
  ),
);

export const Visibility = named(
  "CommentVisibility",
  Closed(
    {
      type: Type.Enum(["public", "organizationPrivate", "restricted"], {
        description: "Who sees the thread.",
      }),
      organizationId: Type.Optional(Id("Required for organizationPrivate.")),
      userIds: Type.Optional(
        Type.Array(Id(), {
          maxItems: 1000,
          description: "For restricted: the users who see it (this or organizationUserGroupIds non-empty).",
        }),
      ),
      organizationUserGroupIds: Type.Optional(
        Type.Array(Id(), {
          maxItems: 30,
          description:
            "collabd extra, for restricted: user groups of the organization whose members (at read time) see it.",
        }),
      ),
    },
    "Visibility of a thread; default public.",
  ),
);

const Reason = named(
  "AgentReason",
  documentedAs(
    Type.Object(
      {
        title: Text("Finding title.", 1024),
        description: Text("Finding description."),
        severity: Type.Enum(["critical", "high", "medium", "low", "info"]),
      },
      { additionalProperties: true, description: "Why the agent commented (open)." },
    ),
    Type.Unsafe({
      type: "object",
      required: ["title", "description", "severity"],
      properties: {
        title: { type: "string", maxLength: 1024 },
        description: { type: "string", maxLength: 65_536 },
        severity: { enum: ["critical", "high", "medium", "low", "info"] },
      },
      additionalProperties: JSON_VALUE_REF,
      description: "Why the agent commented (open).",
    }),
  ),
);

export const Agent = named(
  "CommentAgent",
  Closed(
    {
      agentSource: Id("`external`; the original's built-in source fails the item."),
      agentId: Id(),
      executionId: Type.Optional(Id()),
      agentName: Type.Optional(Text("Required for external agents.", 1024)),
      url: Type.Optional(Text("URL.", 2048)),
      reason: Reason,
    },
    "The agent that wrote the comment.",
  ),
);

export const TaggedContact = named(
  "TaggedUserContact",
  Closed(
    {
      userId: Type.Optional(Id("The tagged user's id; default `contact.userId`.")),
      contact: User,
      text: Type.Optional(Text("The mention's text.", 1024)),
    },
    "A mentioned user.",
  ),
);

const ATTACHMENT_FIELDS = {
  attachmentId: Type.Integer({ minimum: 0, maximum: MAX_INTEGER }),
  name: short("File name."),
  bucketPath: Type.Optional(Text("Storage path.", 2048)),
  size: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_INTEGER })),
  type: short("File type."),
  url: Type.Optional(Text("URL.", 2048)),
  thumbnail: Type.Optional(Text("Thumbnail URL.", 2048)),
  mimeType: short("MIME type."),
  metadata: Type.Optional(FreeObject("Open.")),
};

export const Attachment = named("CommentAttachment", Closed(ATTACHMENT_FIELDS, "A file on a comment."));

/** Fields a comment is written with (`commentData`: docs/contract.md "Comments"). */
export const COMMENT_FIELDS = {
  commentId: Type.Optional(
    Type.Integer({ ...CommentId, description: "Unique in the thread; generated when absent." }),
  ),
  commentText: Type.Optional(Text("Plain text; `{{userId}}` marks a mention.", MAX_COMMENT_CHARS)),
  commentHtml: Type.Optional(Text("HTML.", MAX_COMMENT_CHARS)),
  context: Type.Optional(FreeObject("Open.")),
  isCommentResolverUsed: Type.Optional(Type.Boolean()),
  isCommentTextAvailable: Type.Optional(Type.Boolean({ description: "Default true." })),
  triggerNotification: Type.Optional(
    Type.Boolean({ description: "Emit the webhook and notify subscribers; default false." }),
  ),
  triggerActivities: Type.Optional(Type.Boolean({ description: "Write activity records; default false." })),
  from: User,
  createdAt: Type.Optional(Timestamp("ms; default now.")),
  lastUpdated: Type.Optional(Timestamp("ms; default createdAt.")),
  taggedUserContacts: Type.Optional(Type.Array(TaggedContact, { maxItems: MAX_TAGS })),
  attachments: Type.Optional(Type.Array(Attachment, { maxItems: MAX_TAGS })),
  metadata: Type.Optional(FreeObject("Open.")),
  agent: Type.Optional(Agent),
};

export const NewComment = named("NewComment", Closed(COMMENT_FIELDS, "One comment to add."));

const ReactionAnnotation = named(
  "ReactionAnnotation",
  Closed(
    {
      annotationId: Type.String(),
      type: Type.Literal("reaction"),
      icon: Type.String(),
      commentAnnotationId: Type.String(),
      lastUpdated: Type.Integer(),
      fromUsers: Type.Array(Closed({ lastUpdated: Type.Integer(), from: User })),
    },
    "The users who reacted to a comment with one icon.",
  ),
);

export const Comment = named(
  "Comment",
  Closed(
    {
      commentId: Type.Integer(),
      type: Type.Literal("text"),
      status: Type.Enum(["added", "updated"]),
      commentText: Type.Optional(Type.String()),
      commentHtml: Type.Optional(Type.String()),
      from: User,
      to: Type.Array(User),
      taggedUserContacts: Type.Array(TaggedContact),
      attachments: Type.Array(Attachment),
      context: Type.Optional(FreeObject()),
      metadata: Type.Optional(FreeObject()),
      isCommentTextAvailable: Type.Boolean(),
      isCommentResolverUsed: Type.Optional(Type.Boolean()),
      agent: Type.Optional(Agent),
      sourceType: Type.Optional(Type.String()),
      isDraft: Type.Boolean(),
      isEdited: Type.Boolean(),
      createdAt: Type.Integer({ description: "ms." }),
      lastUpdated: Type.String({ description: "ISO 8601." }),
      editedAt: Type.Optional(Type.String({ description: "ISO 8601." })),
      recorders: Type.Array(AnyValue()),
      customList: Type.Array(AnyValue()),
      toOrganizationUserGroup: Type.Array(AnyValue()),
      reactionAnnotationIds: Type.Array(Type.String()),
      reactionAnnotations: Type.Array(ReactionAnnotation),
    },
    "A comment.",
  ),
);

const Subscribers = Type.Record(Type.String(), Closed({ user: User, type: Type.String() }), {
  description: "userId → {user, type}.",
});

export const Annotation = named(
  "CommentAnnotation",
  Closed(
    {
      annotationId: Type.String(),
      annotationNumber: Type.Integer(),
      type: Type.Enum(["comment", "suggestion"]),
      commentType: Type.String(),
      comments: Type.Array(Comment),
      from: User,
      status: Status,
      iam: Type.Optional(
        Closed(
          {
            accessMode: Type.Enum(["public", "private"], {
              description: "`public` unless the thread's visibility restricts it.",
            }),
          },
          "Access mode as the original's client model carries it; on every thread written by this version.",
        ),
      ),
      priority: Type.Optional(Priority),
      assignedTo: Type.Optional(User),
      location: Type.Optional(Location),
      locationId: Type.Optional(Type.Integer()),
      targetElement: Type.Optional(TargetElement),
      context: Type.Optional(FreeObject()),
      visibilityConfig: Visibility,
      suggestion: Type.Optional(FreeObject()),
      agent: Type.Optional(Agent),
      sourceType: Type.String(),
      metadata: Closed({
        apiKey: Type.String(),
        organizationId: Type.String(),
        documentId: Type.String(),
        folderId: Type.Optional(Type.String()),
      }),
      subscribedUsers: Subscribers,
      unsubscribedUsers: Subscribers,
      resolvedByUserId: Type.Optional(Type.String()),
      statusUpdatedByUserId: Type.Optional(Type.String()),
      resolvedByUser: Type.Optional(User),
      involvedUserIds: Type.Array(Type.String()),
      mentionedUserIds: Type.Array(Type.String()),
      hasDraftComments: Type.Boolean(),
      customList: Type.Array(AnyValue()),
      commentCategories: Type.Array(AnyValue()),
      createdAt: Type.Integer({ description: "ms." }),
      lastUpdated: Type.Integer({ description: "ms." }),
    },
    "A comment thread.",
  ),
);

export type StatusValue = Static<typeof Status>;
export type StatusPatchValue = Static<typeof StatusPatch>;
export type NewCommentInput = Static<typeof NewComment>;
export type CommentRecord = Static<typeof Comment>;
export type AnnotationRecord = Static<typeof Annotation>;
