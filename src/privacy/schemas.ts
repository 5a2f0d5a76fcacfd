import { type Static, Type } from "typebox";
import { Closed, FreeObject, Id, named, PageToken } from "../http/schemas.js";

export const GetUserData = Closed({
  organizationId: Id(),
  userId: Id(),
  pageToken: Type.Optional(PageToken),
});
export type GetUserDataInput = Static<typeof GetUserData>;

const Records = (description: string) => Type.Array(FreeObject(), { maxItems: 100, description });

export const UserData = named(
  "UserData",
  Closed(
    {
      comments: Records("Comment threads the user wrote in, is tagged in, assigned to or subscribed to."),
      reactions: Type.Array(FreeObject(), {
        description: "The user's reactions, one per comment and icon, from up to 100 threads.",
      }),
      recordings: Records("Recordings the user made or is named in."),
      notifications: Records("Notifications the user triggered or receives."),
      users: Records("The user's profile and memberships (extra)."),
      activities: Records("Activities the user acted in (extra)."),
      grants: Records("Access grants to the user (extra)."),
      notificationConfigs: Records("The user's notification preferences (extra)."),
      userGroups: Records("The user groups the user is a member of (extra)."),
      crdtStores: Records("CRDT stores the user changed last, without their content (extra)."),
    },
    "Up to 100 records per key and page; `[]` when none (or when the organization or user is unknown).",
  ),
);

export const DeleteUserData = Closed({
  userIds: Type.Array(Id(), { minItems: 1, maxItems: 30, description: "Users whose data is erased." }),
  organizationIds: Type.Optional(
    Type.Array(Id(), { minItems: 1, maxItems: 30, description: "Only these organizations; absent: all." }),
  ),
});
export type DeleteUserDataInput = Static<typeof DeleteUserData>;

export const JobStarted = named(
  "UserDataDeletionJob",
  Closed({
    jobId: Type.String({ description: "Ask /v2/users/data/delete/status with it." }),
    tasksCount: Type.Integer({ description: "One task per user and kind of personal data." }),
  }),
);

export const GetJobStatus = Closed({ jobId: Id() });
export type GetJobStatusInput = Static<typeof GetJobStatus>;

export const JobStatus = named(
  "UserDataDeletionStatus",
  Closed({
    isDeleteCompleted: Type.Boolean(),
    tasksLeft: Type.Integer(),
    lastTaskCompletedTime: Type.Union([Type.Integer(), Type.Null()], {
      description: "When the last task finished (ms); null before the first.",
    }),
  }),
);
