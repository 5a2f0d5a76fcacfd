import { expect, it } from "vitest";
import { forEachDialect } from "../support/server.js";

const P = "/v2/commentannotations";
const ada = { userId: "u1", name: "Ada" };
const bob = { userId: "u2", name: "Bob" };
const cy = { userId: "u3", name: "Cy" };

let orgs = 0;
const freshOrg = () => `cm-fx-${++orgs}`;

forEachDialect("comment effects", (server) => {
  it("writes activities with from/to changes when triggerActivities asks, and none otherwise", async () => {
    const s = server();
    const org = freshOrg();
    const ref = { organizationId: org, documentId: "d" };
    await s.call(`${P}/add`, {
      ...ref,
      commentAnnotations: [
        {
          annotationId: "t",
          commentData: [
            { commentId: 1, commentText: "a", from: ada, triggerActivities: true },
            { commentId: 2, commentText: "b", from: bob },
          ],
        },
      ],
    });
    await s.call(`${P}/update`, {
      ...ref,
      triggerActivities: true,
      updatedData: {
        status: { id: "DONE", name: "Done", type: "terminal" },
        statusUpdatedByUserId: "u2",
        assignedTo: cy,
      },
    });
    await s.call(`${P}/comments/reactions/add`, {
      ...ref,
      annotationId: "t",
      commentId: 2,
      icon: "+1",
      from: cy,
      triggerActivities: true,
    });
    const res = await s.call("/v2/activities/get", { organizationId: org, order: "asc" });
    // One request's activities share a timestamp: ordered here by actionType.
    const activities = res.body.result.data.sort((a: { actionType: string }, b: { actionType: string }) =>
      a.actionType < b.actionType ? -1 : 1,
    );
    expect(activities.map((a: { actionType: string }) => a.actionType)).toEqual([
      "comment.reaction_add",
      "comment_annotation.add",
      "comment_annotation.assign",
      "comment_annotation.status_change",
    ]);
    expect(
      activities.every(
        (a: { featureType: string; targetEntityId: string }) =>
          a.featureType === "comment" && a.targetEntityId === "t",
      ),
    ).toBe(true);
    expect(activities[1]).toMatchObject({ actionUser: ada, targetSubEntityId: "1" });
    expect(activities[3]).toMatchObject({
      actionUser: { userId: "u2" },
      changes: { status: { from: { id: "OPEN" }, to: { id: "DONE" } } },
    });
    expect(activities[2].changes).toEqual({ assignedTo: { from: null, to: cy } });
  });

  it("notifies subscribers other than the author, mentioned users included, and a new assignee", async () => {
    const s = server();
    const org = freshOrg();
    const ref = { organizationId: org, documentId: "d" };
    await s.call(`${P}/add`, {
      ...ref,
      commentAnnotations: [
        {
          annotationId: "t",
          commentData: [
            {
              commentText: "hi {{u2}}",
              from: ada,
              taggedUserContacts: [{ contact: bob }],
              triggerNotification: true,
            },
          ],
        },
      ],
    });
    await s.call(`${P}/update`, { ...ref, updatedData: { assignedTo: cy } });
    const forUser = async (userId: string) =>
      (await s.call("/v2/notifications/get", { organizationId: org, userId })).body.result.data;
    const [toBob] = await forUser("u2");
    expect(toBob).toMatchObject({
      notificationSource: "comment",
      actionUser: ada,
      notifyUsers: { [bob.userId]: true },
      notifyUserObjects: [bob],
      notificationSourceData: { annotationId: "t" },
      metadata: { organizationId: org, documentId: "d" },
    });
    expect(await forUser("u1")).toEqual([]);
    const [toCy] = await forUser("u3");
    expect(toCy.notifyUsers).toEqual({ [cy.userId]: true });
    expect(toCy.notifyUserObjects).toEqual([cy]);
  });
});
