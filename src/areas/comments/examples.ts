import type { OperationExample } from "../../http/operation.js";

/**
 * The comment operations' examples, in the order test/http/openapi.test.ts sends them to a
 * fresh server (after documents add has placed doc-1 in folder `reports`). Comment ids are
 * given, so answers are the same on every run.
 */

const ada = { userId: "u1", name: "Ada", email: "ada@example.com" };
/** Ada as the answers hold her: filled from the users add example's profile (src/areas/users/enrich.ts). */
const storedAda = {
  ...ada,
  initial: "A",
  organizationId: "org-1",
  photoUrl: "",
  name_lowercase: "ada",
  email_lowercase: "ada@example.com",
  color: "#2F80ED",
  textColor: "#FFFFFF",
  type: "signedIn",
  isAdmin: false,
  contacts: [],
  clientUserName: "Ada",
};
const bob = { userId: "u2", name: "Bob" };
const thread = { organizationId: "org-1", documentId: "doc-1", annotationId: "thread-1" };

type Example = OperationExample<unknown>;

const FIRST_COMMENT = {
  commentId: 100001,
  type: "text",
  status: "added",
  commentText: "Can we check {{u2}}'s figures?",
  from: storedAda,
  to: [bob],
  taggedUserContacts: [{ userId: "u2", contact: bob }],
  attachments: [],
  isCommentTextAvailable: true,
  isDraft: false,
  isEdited: false,
  createdAt: 1767225600000,
  lastUpdated: "2026-01-01T00:00:00.000Z",
  recorders: [],
  customList: [],
  toOrganizationUserGroup: [],
  reactionAnnotationIds: [],
  reactionAnnotations: [],
};

export const EXAMPLES = {
  annotationsAdd: {
    data: {
      organizationId: "org-1",
      documentId: "doc-1",
      commentAnnotations: [
        {
          annotationId: "thread-1",
          location: { id: "slide-3", locationName: "Slide 3" },
          priority: { id: "P1", name: "High" },
          commentData: [
            {
              commentId: 100001,
              commentText: "Can we check {{u2}}'s figures?",
              from: ada,
              taggedUserContacts: [{ userId: "u2", contact: bob }],
              triggerNotification: true,
            },
          ],
        },
      ],
    },
    message: "Comment Annotation(s) added successfully.",
    result: {
      "thread-1": {
        success: true,
        annotationId: "thread-1",
        commentIds: [100001],
        message: "Added Successfully",
      },
    },
  },
  annotationsGet: {
    data: { organizationId: "org-1", documentId: "doc-1", statusIds: ["OPEN"], pageSize: 20 },
    message: "Annotation(s) fetched successfully.",
    result: [
      {
        annotationId: "thread-1",
        annotationNumber: 1,
        type: "comment",
        commentType: "manual",
        comments: [FIRST_COMMENT],
        from: storedAda,
        status: { id: "OPEN", name: "Open", type: "default", color: "#625DF5", lightColor: "#E7E8FA" },
        iam: { accessMode: "public" as const },
        priority: { id: "P1", name: "High", color: "#FF9F0A", lightColor: "#FFF0D9" },
        location: { id: "slide-3", locationName: "Slide 3" },
        visibilityConfig: { type: "public" },
        sourceType: "rest-api",
        metadata: { apiKey: "ak_example", organizationId: "org-1", documentId: "doc-1", folderId: "reports" },
        subscribedUsers: { u1: { user: storedAda, type: "auto" }, u2: { user: bob, type: "auto" } },
        unsubscribedUsers: {},
        involvedUserIds: ["u1", "u2"],
        mentionedUserIds: ["u2"],
        hasDraftComments: false,
        customList: [],
        commentCategories: [],
        createdAt: 1767225600000,
        lastUpdated: 1767225600000,
        locationId: 4338125493188208,
      },
    ],
    pageToken: "",
  },
  annotationsCount: {
    data: { organizationId: "org-1", documentIds: ["doc-1", "doc-2"], userId: "u2" },
    message: "Comment count retrieved successfully.",
    result: { "doc-1": { total: 1, unread: 1 }, "doc-2": { total: 0, unread: 0 } },
  },
  commentsAdd: {
    data: {
      ...thread,
      commentData: [{ commentId: 100002, commentText: "Checked, they add up.", from: bob }],
    },
    message: "Comment(s) added successfully.",
    result: [100002],
  },
  commentsGet: {
    data: { ...thread, userIds: ["u2"] },
    message: "Comments retrieved successfully.",
    result: [
      {
        commentId: 100002,
        type: "text",
        status: "added",
        commentText: "Checked, they add up.",
        from: bob,
        to: [],
        taggedUserContacts: [],
        attachments: [],
        isCommentTextAvailable: true,
        isDraft: false,
        isEdited: false,
        createdAt: 1767225600000,
        lastUpdated: "2026-01-01T00:00:00.000Z",
        recorders: [],
        customList: [],
        toOrganizationUserGroup: [],
        reactionAnnotationIds: [],
        reactionAnnotations: [],
      },
    ],
  },
  commentsUpdate: {
    data: { ...thread, commentIds: [100002, 999999], updatedData: { commentText: "Checked: they add up." } },
    message: "Comment updated successfully.",
    result: {
      "100002": { success: true, id: 100002, message: "Updated successfully" },
      "999999": { success: false, id: 999999, message: "Not found" },
    },
  },
  reactionsAdd: {
    data: { ...thread, commentId: 100002, icon: "👍", from: ada },
    message: "Reaction added.",
    result: { success: true, message: "Reaction added." },
  },
  reactionsDelete: {
    data: { ...thread, commentId: 100002, icon: "👍", from: ada },
    message: "Reaction removed.",
    result: { success: true, message: "Reaction removed." },
  },
  annotationsUpdate: {
    data: {
      organizationId: "org-1",
      documentId: "doc-1",
      annotationIds: ["thread-1"],
      updatedData: {
        status: { id: "RESOLVED", name: "Resolved", type: "terminal" as const },
        resolvedByUserId: "u1",
        statusUpdatedByUserId: "u1",
        assignedTo: bob,
      },
    },
    message: "Annotations updated successfully.",
    result: { "thread-1": { success: true, id: "thread-1", message: "Annotations updated successfully" } },
  },
  commentsDelete: {
    data: { ...thread, commentIds: [100002] },
    message: "Comments(s) deleted successfully.",
    result: { "100002": { success: true, id: 100002, message: "Deleted successfully" } },
  },
  annotationsDelete: {
    data: { organizationId: "org-1", documentId: "doc-1", annotationIds: ["thread-1"] },
    message: "Annotations deleted successfully.",
    result: { "thread-1": { success: true, id: "thread-1", message: "Deleted Successfully" } },
  },
} satisfies Record<string, Example>;
