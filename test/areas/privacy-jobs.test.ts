import { describe, expect, it } from "vitest";
import { claimJob, nextTask } from "../../src/jobs/store.js";
import { createErasureJob } from "../../src/privacy/jobs.js";
import { scrub } from "../../src/privacy/scrub.js";
import { forEachDialect } from "../support/server.js";

const LEASE = 1_000;

forEachDialect(
  "erasure job claims",
  (server) => {
    it("lets one process claim a job at a time, and another take it over once the lease lapses", async () => {
      const { database } = server().services;
      const { clock } = server();
      const workspaceId = server().creds.apiKey;
      const id = `job-${Math.random()}`;
      // Written directly: no kick, and this server's own worker does not poll (below), so only A and B contend.
      await database.write((trx) =>
        createErasureJob(trx, { workspaceId, id, userIds: ["x"], organizationIds: null, now: 0 }),
      );
      const claim = (token: string) => database.write((trx) => claimJob(trx, token, clock.now(), LEASE));
      const [a, b] = await Promise.all([claim("A"), claim("B")]);
      const held = [a, b].filter((c) => c !== null);
      expect(held).toHaveLength(1);
      expect(held[0]).toMatchObject({ workspaceId, id });
      const holder = held[0]!;
      const other = { ...holder, claim: holder.claim === "A" ? "B" : "A" };
      // The other process finds the job held, and cannot run a batch of it.
      expect(await claim(other.claim)).toBeNull();
      expect((await database.write((trx) => nextTask(trx, other, clock.now(), LEASE))).lost).toBe(true);
      // The holder stops renewing (a crash): after the lease, the other takes over and the first is out.
      clock.advance(LEASE + 1);
      expect(await claim(other.claim)).toMatchObject({ id });
      const first = await database.write((trx) => nextTask(trx, holder, clock.now(), LEASE));
      expect(first.lost).toBe(true);
      const second = await database.write((trx) => nextTask(trx, other, clock.now(), LEASE));
      expect(second).toMatchObject({
        lost: false,
        task: { seq: 0, kind: "users", subject: { userId: "x", organizationIds: null }, cursor: null },
      });
      await server().services.jobs.settled();
    });
  },
  { env: { COLLABD_ERASURE_POLL_MS: "0" } },
);

describe("scrub", () => {
  const P = "erased-0";
  it.each([
    [
      "a User object anywhere",
      { actionUser: { userId: "u", email: "e" } },
      { actionUser: { userId: P, name: "Deleted user" } },
    ],
    [
      "recipients and readers",
      { notifyUsers: [{ userId: "u" }, { userId: "v" }], readByUserIds: ["u", "v"] },
      { notifyUsers: [{ userId: "v" }], readByUserIds: ["v"] },
    ],
    [
      "maps keyed by user id",
      { notifyUsersByUserId: { u: true, v: true } },
      { notifyUsersByUserId: { v: true } },
    ],
    [
      "a bare id",
      { displayHeadlineMessageTemplateData: { recipientUser: "u" } },
      { displayHeadlineMessageTemplateData: { recipientUser: P } },
    ],
  ])("removes the user from %s", (_, record, expected) => {
    expect(scrub(record, "u", P)).toEqual(expected);
  });

  it("returns the same object when nothing names the user", () => {
    const record = { actionUser: { userId: "v" }, text: "u is not a user id here", n: 1 };
    expect(scrub(record, "u", P)).toBe(record);
  });
});
