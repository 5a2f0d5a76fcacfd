import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { countAnnotations, getAnnotations } from "./annotations.js";
import { addAnnotations } from "./annotations-add.js";
import { deleteAnnotations, updateAnnotations } from "./annotations-update.js";
import { addComments, deleteComments, getComments, updateComments } from "./comments.js";
import { EXAMPLES } from "./examples.js";
import { react } from "./reactions.js";
import {
  AddAnnotations,
  AddComments,
  AddedAnnotation,
  AnnotationList,
  CommentList,
  CountAnnotations,
  Counts,
  DeleteAnnotations,
  DeleteComments,
  GetAnnotations,
  GetComments,
  IdItem,
  Reaction,
  UpdateAnnotations,
  UpdateComments,
} from "./schemas.js";

const TAG = "Comments";
const Items = (description: string) => Type.Record(Type.String(), IdItem, { description });
const Acknowledged = Type.Object(
  { success: Type.Boolean(), message: Type.String() },
  { additionalProperties: false, description: "The reaction was applied (idempotent)." },
);

export const commentOperations = [
  operation({
    path: "/v2/commentannotations/add",
    operationId: "commentAnnotationsAdd",
    tag: TAG,
    summary: "Add comment threads",
    description:
      "Adds threads with their comments to one document. Per-thread outcomes keyed by annotationId " +
      "(`__svc_denied:<index>` for a denied thread sent without one). Comments with `triggerNotification` emit " +
      "`comment_annotation.add` (first comment) or `comment.add` and notify subscribers; `triggerActivities` writes activities.",
    data: AddAnnotations,
    result: Type.Record(Type.String(), AddedAnnotation, { description: "Keyed by annotationId." }),
    example: EXAMPLES.annotationsAdd,
    handle: async (ctx, data) => ({
      message: "Comment Annotation(s) added successfully.",
      data: await addAnnotations(ctx, data),
    }),
  }),
  operation({
    path: "/v2/commentannotations/get",
    operationId: "commentAnnotationsGet",
    tag: TAG,
    summary: "Get comment threads",
    description:
      "Threads of an organization narrowed by the filters given (AND), ordered by lastUpdated (default desc), " +
      "keyset-paged. With annotationIds: those threads in request order, null for unknown ones, one page.",
    data: GetAnnotations,
    result: AnnotationList,
    list: true,
    nextPageToken: true,
    example: EXAMPLES.annotationsGet,
    handle: async (ctx, data) => {
      const page = await getAnnotations(ctx, data);
      return { message: "Annotation(s) fetched successfully.", data: null, ...page };
    },
  }),
  operation({
    path: "/v2/commentannotations/count/get",
    operationId: "commentAnnotationsCount",
    tag: TAG,
    summary: "Count comment threads",
    description:
      "Per requested document: threads, and threads whose latest comment is not by `userId` (unread).",
    data: CountAnnotations,
    result: Counts,
    example: EXAMPLES.annotationsCount,
    handle: async (ctx, data) => ({
      message: "Comment count retrieved successfully.",
      data: await countAnnotations(ctx, data),
    }),
  }),
  operation({
    path: "/v2/commentannotations/comments/add",
    operationId: "commentsAdd",
    tag: TAG,
    summary: "Add comments to a thread",
    description:
      "Appends comments to a thread; the new commentIds in order. An author without access under " +
      "`verifyUserPermissions`: PERMISSION_DENIED, nothing written. Unknown thread: NOT_FOUND.",
    data: AddComments,
    result: Type.Array(Type.Integer(), { description: "The new commentIds." }),
    example: EXAMPLES.commentsAdd,
    handle: async (ctx, data) => ({
      message: "Comment(s) added successfully.",
      data: await addComments(ctx, data),
    }),
  }),
  operation({
    path: "/v2/commentannotations/comments/get",
    operationId: "commentsGet",
    tag: TAG,
    summary: "Get the comments of a thread",
    description:
      "Oldest first, narrowed by author; with commentIds, in that order with null for unknown ids.",
    data: GetComments,
    result: CommentList,
    example: EXAMPLES.commentsGet,
    handle: async (ctx, data) => ({
      message: "Comments retrieved successfully.",
      data: await getComments(ctx, data),
    }),
  }),
  operation({
    path: "/v2/commentannotations/comments/update",
    operationId: "commentsUpdate",
    tag: TAG,
    summary: "Update comments",
    description:
      "Sets the fields on each comment (status `updated`, `isEdited`); emits `comment.update` per comment.",
    data: UpdateComments,
    result: Items("Keyed by commentId as text."),
    example: EXAMPLES.commentsUpdate,
    handle: async (ctx, data) => ({
      message: "Comment updated successfully.",
      data: await updateComments(ctx, data),
    }),
  }),
  operation({
    path: "/v2/commentannotations/comments/reactions/add",
    operationId: "commentReactionsAdd",
    tag: TAG,
    summary: "Add a reaction (extension)",
    description:
      "Adds the user to the comment's reaction for `icon` (idempotent); emits `comment.reaction_add`.",
    data: Reaction,
    result: Acknowledged,
    example: EXAMPLES.reactionsAdd,
    handle: async (ctx, data) => {
      const outcome = await react(ctx, data, true);
      return { message: outcome.message, data: outcome };
    },
  }),
  operation({
    path: "/v2/commentannotations/comments/reactions/delete",
    operationId: "commentReactionsDelete",
    tag: TAG,
    summary: "Remove a reaction (extension)",
    description:
      "Removes the user from the comment's reaction for `icon` (idempotent); emits `comment.reaction_delete`.",
    data: Reaction,
    result: Acknowledged,
    example: EXAMPLES.reactionsDelete,
    handle: async (ctx, data) => {
      const outcome = await react(ctx, data, false);
      return { message: outcome.message, data: outcome };
    },
  }),
  operation({
    path: "/v2/commentannotations/update",
    operationId: "commentAnnotationsUpdate",
    tag: TAG,
    summary: "Update comment threads",
    description:
      "Applies updatedData (in order) and updateUsers to the selected threads of a document (at most 1000). " +
      "Emits status_change, assign, priority_change and suggestion events per changed aspect unless triggerNotification is false.",
    data: UpdateAnnotations,
    result: Items("Keyed by annotationId."),
    example: EXAMPLES.annotationsUpdate,
    handle: async (ctx, data) => ({
      message: "Annotations updated successfully.",
      data: await updateAnnotations(ctx, data),
    }),
  }),
  operation({
    path: "/v2/commentannotations/comments/delete",
    operationId: "commentsDelete",
    tag: TAG,
    summary: "Delete comments",
    description:
      "Deletes the given comments, or all of them; the thread stays. Emits `comment.delete` per comment.",
    data: DeleteComments,
    result: Items("Keyed by commentId as text."),
    example: EXAMPLES.commentsDelete,
    handle: async (ctx, data) => ({
      message: "Comments(s) deleted successfully.",
      data: await deleteComments(ctx, data),
    }),
  }),
  operation({
    path: "/v2/commentannotations/delete",
    operationId: "commentAnnotationsDelete",
    tag: TAG,
    summary: "Delete comment threads",
    description:
      "Deletes the selected threads of a document (all without filters; without organizationId in every organization), " +
      "at most 1000 per organization per request: repeat until nothing is left. Emits `comment.delete` per thread.",
    data: DeleteAnnotations,
    result: Items("Keyed by annotationId."),
    example: EXAMPLES.annotationsDelete,
    handle: async (ctx, data) => ({
      message: "Annotations deleted successfully.",
      data: await deleteAnnotations(ctx, data),
    }),
  }),
];
