import { expect, it } from "vitest";
import { MAX_GROUPS_PER_ORGANIZATION, MAX_MEMBERS_PER_GROUP } from "../../src/areas/user-groups/schemas.js";
import { forEachDialect, type TestServer } from "../support/server.js";

const G = "/v2/organizations/usergroups";

async function ok(server: TestServer, path: string, data: unknown) {
  const res = await server.call(path, data);
  expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.result;
}

async function fails(server: TestServer, path: string, data: unknown, status: string, message: string) {
  const res = await server.call(path, data);
  expect(res.body.error, JSON.stringify(res.body)).toMatchObject({ status, message });
  return res;
}

const userIdsOf = (result: { data: { userId: string }[] }) => result.data.map((u) => u.userId);

let orgs = 0;
const freshOrg = () => `ug-${++orgs}`;

forEachDialect("user groups", (server) => {
  it("adds groups (v1 and v2), refusing an unknown organization unless createOrganization", async () => {
    const org = freshOrg();
    const groups = [{ groupId: "eng", groupName: "Engineering" }];
    await fails(
      server(),
      `${G}/add`,
      { organizationId: org, organizationUserGroups: groups },
      "NOT_FOUND",
      "Organization not found.",
    );
    expect(
      await ok(server(), `${G}/add`, {
        organizationId: org,
        organizationUserGroups: groups,
        createOrganization: true,
      }),
    ).toEqual({
      status: "success",
      message: "Organization User Groups added successfully.",
      data: { eng: { success: true, id: "eng", message: "Organization user group added." } },
    });
    // v1 path, same operation; re-adding renames and keeps members.
    await ok(server(), `${G}/users/add`, {
      organizationId: org,
      organizationUserGroupId: "eng",
      userIds: ["a"],
    });
    const v1 = await ok(server(), "/v1/organizations/usergroups/add", {
      organizationId: org,
      organizationUserGroups: [{ groupId: "eng", groupName: "R&D" }, { groupId: "ops" }],
    });
    expect(Object.keys(v1.data)).toEqual(["eng", "ops"]);
    const members = await ok(server(), "/v2/users/get", {
      organizationId: org,
      organizationUserGroupIds: ["eng"],
    });
    expect(members.data).toEqual([]); // "a" is a member of eng but no user of the organization
    await fails(
      server(),
      `${G}/add`,
      { organizationId: org, organizationUserGroups: [{ groupId: "x" }, { groupId: "x" }] },
      "INVALID_ARGUMENT",
      "data.organizationUserGroups[1].groupId repeats data.organizationUserGroups[0].groupId.",
    );
  });

  it("means its members at read time in users get, with userIds matching either", async () => {
    const org = freshOrg();
    await ok(server(), "/v2/users/add", {
      organizationId: org,
      users: [{ userId: "ada" }, { userId: "bob" }, { userId: "cy" }, { userId: "dee" }],
    });
    await ok(server(), `${G}/add`, {
      organizationId: org,
      organizationUserGroups: [{ groupId: "g1" }, { groupId: "g2" }],
    });
    const added = await ok(server(), `${G}/users/add`, {
      organizationId: org,
      organizationUserGroupId: "g1",
      userIds: ["ada", "cy", "ada"],
    });
    expect(added).toEqual({
      status: "success",
      message: "Added organization users to group successfully.",
      data: {
        ada: {
          success: true,
          organizationUserGroupId: "g1",
          message: "User added to organization user group.",
        },
        cy: {
          success: true,
          organizationUserGroupId: "g1",
          message: "User added to organization user group.",
        },
      },
    });
    await ok(server(), `${G}/users/add`, {
      organizationId: org,
      organizationUserGroupId: "g2",
      userIds: ["dee"],
    });
    const get = (data: Record<string, unknown>) =>
      ok(server(), "/v2/users/get", { organizationId: org, ...data });
    expect(userIdsOf(await get({ organizationUserGroupIds: ["g1"] }))).toEqual(["ada", "cy"]);
    expect(userIdsOf(await get({ organizationUserGroupIds: ["g1", "g2"] }))).toEqual(["ada", "cy", "dee"]);
    expect(userIdsOf(await get({ organizationUserGroupIds: ["g2"], userIds: ["bob"] }))).toEqual([
      "bob",
      "dee",
    ]);
    // Members removed are gone at once: nothing else stored them.
    const removed = await ok(server(), `${G}/users/delete`, {
      organizationId: org,
      organizationUserGroupId: "g1",
      userIds: ["cy", "bob"],
    });
    expect(removed).toEqual({
      status: "success",
      message: "Deleted users from group successfully.",
      data: {
        cy: {
          success: true,
          organizationUserGroupId: "g1",
          message: "User deleted from organization user group.",
        },
        bob: {
          success: false,
          organizationUserGroupId: "g1",
          message: "User is not in organization user group.",
        },
      },
    });
    expect(userIdsOf(await get({ organizationUserGroupIds: ["g1"] }))).toEqual(["ada"]);
    const all = await ok(server(), "/v1/organizations/usergroups/users/delete", {
      organizationId: org,
      organizationUserGroupId: "g1",
      deleteAll: true,
    });
    expect(Object.keys(all.data)).toEqual(["ada"]);
    expect(userIdsOf(await get({ organizationUserGroupIds: ["g1"] }))).toEqual([]);
  });

  it("refuses unknown groups, both or neither of userIds and deleteAll, and in another workspace", async () => {
    const org = freshOrg();
    await ok(server(), `${G}/add`, {
      organizationId: org,
      createOrganization: true,
      organizationUserGroups: [{ groupId: "g" }],
    });
    const missing = { status: "NOT_FOUND", message: "Organization user group not found." };
    for (const path of ["users/add", "users/delete"]) {
      const res = await server().call(`${G}/${path}`, {
        organizationId: org,
        organizationUserGroupId: "nope",
        userIds: ["a"],
      });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject(missing);
    }
    const exactlyOne = "Send exactly one of data.userIds and data.deleteAll: true.";
    const base = { organizationId: org, organizationUserGroupId: "g" };
    await fails(server(), `${G}/users/delete`, base, "INVALID_ARGUMENT", exactlyOne);
    await fails(
      server(),
      `${G}/users/delete`,
      { ...base, userIds: ["a"], deleteAll: true },
      "INVALID_ARGUMENT",
      exactlyOne,
    );
    const other = await server().newWorkspace();
    const res = await server().call(`${G}/users/add`, { ...base, userIds: ["a"] }, { creds: other });
    expect(res.body.error).toMatchObject(missing);
  });

  it("bounds groups per organization and members per group, writing nothing of a refused request", async () => {
    const org = freshOrg();
    const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    await ok(server(), `${G}/add`, {
      organizationId: org,
      createOrganization: true,
      organizationUserGroups: ids("g", MAX_GROUPS_PER_ORGANIZATION).map((groupId) => ({ groupId })),
    });
    await fails(
      server(),
      `${G}/add`,
      { organizationId: org, organizationUserGroups: [{ groupId: "one-more" }] },
      "INVALID_ARGUMENT",
      `data.organizationUserGroups would give the organization more than ${MAX_GROUPS_PER_ORGANIZATION} groups.`,
    );
    await fails(
      server(),
      `${G}/users/add`,
      { organizationId: org, organizationUserGroupId: "one-more", userIds: ["a"] },
      "NOT_FOUND",
      "Organization user group not found.",
    );
    const base = { organizationId: org, organizationUserGroupId: "g0" };
    await ok(server(), `${G}/users/add`, { ...base, userIds: ids("u", MAX_MEMBERS_PER_GROUP) });
    await fails(
      server(),
      `${G}/users/add`,
      { ...base, userIds: ["u0", "late"] },
      "INVALID_ARGUMENT",
      `data.userIds would give the group more than ${MAX_MEMBERS_PER_GROUP} members.`,
    );
    const all = await ok(server(), `${G}/users/delete`, { ...base, deleteAll: true });
    expect(Object.keys(all.data)).toHaveLength(MAX_MEMBERS_PER_GROUP);
    expect(all.data.late).toBeUndefined();
  });

  it("removes an erased user from every group, and goes with a deleted organization", async () => {
    const org = freshOrg();
    await ok(server(), "/v2/users/add", {
      organizationId: org,
      users: [{ userId: "gone" }, { userId: "stays" }],
    });
    await ok(server(), `${G}/add`, {
      organizationId: org,
      organizationUserGroups: [{ groupId: "a" }, { groupId: "b", groupName: "B" }],
    });
    for (const group of ["a", "b"])
      await ok(server(), `${G}/users/add`, {
        organizationId: org,
        organizationUserGroupId: group,
        userIds: ["gone", "stays"],
      });
    const exported = await ok(server(), "/v2/users/data/get", { organizationId: org, userId: "gone" });
    expect(exported.data.userGroups).toEqual([
      { groupId: "a", addedAt: server().clock.now() },
      { groupId: "b", groupName: "B", addedAt: server().clock.now() },
    ]);
    const job = await server().call("/v2/users/data/delete", { userIds: ["gone"] });
    expect(job.status).toBe(202);
    await server().services.jobs.settled();
    const { database } = server().services;
    const rows = await database.db
      .selectFrom("user_group_members")
      .select(["group_id", "user_id"])
      .where("organization_id", "=", org)
      .orderBy("group_id")
      .execute();
    expect(rows).toEqual([
      { group_id: "a", user_id: "stays" },
      { group_id: "b", user_id: "stays" },
    ]);
    await ok(server(), "/v2/organizations/delete", { organizationIds: [org] });
    const left = await database.db
      .selectFrom("user_groups")
      .select("group_id")
      .where("organization_id", "=", org)
      .execute();
    expect(left).toEqual([]);
  });
});
