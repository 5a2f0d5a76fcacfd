import { expect, it } from "vitest";
import { runCli } from "../support/process.js";
import { forEachDialect, TEST_SECRET } from "../support/server.js";

forEachDialect("collabd user export|erase", (server) => {
  it("exports a user's data as JSON and erases it, like the HTTP operations", async () => {
    const creds = await server().newWorkspace();
    const env = { COLLABD_DATABASE_URL: server().databaseUrl, COLLABD_SECRET: TEST_SECRET };
    const add = await server().call(
      "/v2/activities/add",
      {
        organizationId: "o",
        documentId: "d",
        activities: [
          {
            featureType: "comment",
            actionType: "comment.add",
            actionUser: { userId: "cli-user", email: "cli@user.example" },
            targetEntityId: "t",
          },
        ],
      },
      { creds },
    );
    expect(add.status).toBe(200);
    const base = ["--api-key", creds.apiKey, "--user", "cli-user"];
    const exported = await runCli(["user", "export", ...base, "--organization", "o"], env);
    expect(exported.code, exported.stderr).toBe(0);
    const data = JSON.parse(exported.stdout).data;
    expect(data.activities).toHaveLength(1);
    expect(data.activities[0].actionUser.email).toBe("cli@user.example");

    const erased = await runCli(["user", "erase", ...base, "--json"], env);
    expect(erased.code, erased.stderr).toBe(0);
    expect(JSON.parse(erased.stdout)).toMatchObject({
      tasksCount: 16,
      isDeleteCompleted: true,
      tasksLeft: 0,
    });
    const again = await runCli(["user", "export", ...base, "--organization", "o"], env);
    expect(JSON.parse(again.stdout).data.activities).toEqual([]);
  });
});
