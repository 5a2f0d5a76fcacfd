import type { Socket } from "node:net";
import { afterAll, expect, it } from "vitest";
import { agentFrom, exchange, openSocket, parseAnswer, post } from "../http/raw.js";
import { forEachDialect, type TestServer } from "../support/server.js";
import { GENEROUS_MS } from "../support/wait.js";
import { report } from "./support/wait.js";

/**
 * Transport attacks from one client address (another loopback address than the victim's,
 * 127.0.0.2 and up), each bounded in count and time, while a well-behaved client on
 * 127.0.0.1 keeps calling. Caps and timeouts are lowered so the attacks stay small.
 */
const CAP = 50;
const FAILURES_PER_MIN = 100;
const HEADERS_TIMEOUT_MS = 3000;
/** Long enough that an answer never loses a race with it on a loaded machine (the chunked-body attack). */
const REQUEST_TIMEOUT_MS = 5000;
/**
 * Polls `done` until it holds (the attack's effect, not luck, ends the wait); `deadlineMs` is
 * only a failure cutoff. Returns the time it took, a figure for the report.
 */
async function until(done: () => boolean, deadlineMs = GENEROUS_MS): Promise<number> {
  const start = performance.now();
  while (!done()) {
    if (performance.now() - start > deadlineMs) throw new Error(`condition not met within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return performance.now() - start;
}

/**
 * The victim: `calls` sequential reads with its own credentials, each answered 200 while the
 * attack runs; returns the slowest, in ms, a figure for the report (how fast depends on the
 * machine: the test asserts that the victim is served, not how quickly).
 */
async function victim(server: TestServer, calls = 10): Promise<number> {
  let slowest = 0;
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    const res = await server.call("/v2/activities/get", { organizationId: "victim" });
    slowest = Math.max(slowest, performance.now() - start);
    expect(res.status).toBe(200);
  }
  return slowest;
}

/** The server's count of connections closed on accept (other tests of the suite add to it too). */
async function refusedConnections(server: TestServer): Promise<number> {
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  return Number(/^collabd_connections_refused_total (\d+)/m.exec(metrics)?.[1] ?? 0);
}

interface Held {
  readonly sockets: Socket[];
  readonly answers: string[];
  closed(): number;
}

/** Opens `count` connections from `localAddress`, writes `prefix` on each and never finishes. */
async function hold(server: TestServer, count: number, localAddress: string, prefix: string): Promise<Held> {
  let closed = 0;
  const answers: string[] = Array(count).fill("");
  const sockets = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const socket = await openSocket(server.url, localAddress);
      socket.on("error", () => {});
      socket.on("data", (chunk: Buffer) => {
        answers[i] += chunk.toString("utf8");
      });
      socket.once("close", () => {
        closed += 1;
      });
      socket.write(prefix);
      return socket;
    }),
  );
  return { sockets, answers, closed: () => closed };
}

/** A different invented key each time, as an attacker rotating keys would send. */
const unknownKey = (i: number) => ({ "x-svc-api-key": `ak_flood-${i}`, "x-svc-auth-token": "at_nothing" });

forEachDialect(
  "transport abuse",
  (server) => {
    const cleanup: (() => void)[] = [];
    afterAll(() => {
      for (const fn of cleanup) fn();
    });

    it("an address holding hundreds of unfinished requests keeps at most 50 connections until the header deadline, and others are served", async () => {
      const attackers = 400;
      const refusedBefore = await refusedConnections(server());
      const held = await hold(
        server(),
        attackers,
        "127.0.0.2",
        "POST /v2/activities/get HTTP/1.1\r\nHost: x\r\n",
      );
      cleanup.push(() => {
        for (const s of held.sockets) s.destroy();
      });
      // Every connection beyond the cap is closed as soon as it is accepted.
      await until(() => held.closed() >= attackers - CAP);
      // Served while the address still holds its 50 connections.
      const slowest = await victim(server());
      // The ones it kept are answered 408 in the error shape once the header deadline passes.
      const waited = await until(() => held.closed() === attackers);
      const timedOut = held.answers.filter((a) => a !== "").map(parseAnswer);
      // At most CAP at a time: a kept connection that times out frees its slot, so when opening
      // the 400 outlasts the header deadline (a loaded machine), later ones are kept too. Every
      // connection was either kept and answered 408, or closed on accept and counted refused.
      expect(timedOut.length).toBeGreaterThanOrEqual(CAP);
      for (const answer of timedOut) {
        expect(answer.status).toBe(408);
        expect(answer.body.error.status).toBe("INVALID_ARGUMENT");
      }
      const refused = attackers - timedOut.length;
      expect(refused).toBeGreaterThan(0);
      expect((await refusedConnections(server())) - refusedBefore).toBe(refused);
      report(
        `abuse ${server().dialect}: ${attackers} half-sent requests from one address: ${refused} refused on ` +
          `accept, ${timedOut.length} answered 408 and closed ${Math.round(waited)} ms later; victim's slowest ` +
          `of 10 calls ${slowest.toFixed(1)} ms`,
      );
    });

    it("chunked bodies that never end, with an unknown key, are answered and closed at once", async () => {
      const attackers = 200;
      const request =
        "POST /v2/activities/add HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        "x-svc-api-key: ak_nobody\r\nx-svc-auth-token: at_nothing\r\n" +
        'Transfer-Encoding: chunked\r\n\r\n5\r\n{"dat\r\n';
      // In waves of at most CAP: however slow the machine, no connection meets the address's
      // connection cap (refused on accept, unanswered), which the first test covers.
      const attack = async () => {
        const answers: string[] = [];
        const start = performance.now();
        for (let sent = 0; sent < attackers; sent += CAP) {
          const wave = await hold(server(), Math.min(CAP, attackers - sent), "127.0.0.3", request);
          cleanup.push(() => {
            for (const s of wave.sockets) s.destroy();
          });
          await until(() => wave.closed() === wave.sockets.length);
          answers.push(...wave.answers);
        }
        return { answers, waited: performance.now() - start };
      };
      const [slowest, { answers, waited }] = await Promise.all([victim(server()), attack()]);
      const statuses = answers.map((a) => parseAnswer(a).status);
      // Answered, not timed out: nothing waits for the rest of the body (the request deadline
      // would have answered 408). The address's budget of failures answers 403; past it, 429
      // without a lookup.
      expect(statuses.filter((s) => s === 403).length).toBe(FAILURES_PER_MIN);
      expect(statuses.filter((s) => s === 429).length).toBe(attackers - FAILURES_PER_MIN);
      report(
        `abuse ${server().dialect}: ${attackers} never-ending chunked bodies with an unknown key: all answered ` +
          `(${FAILURES_PER_MIN} × 403, then 429) and closed within ${Math.round(waited)} ms; victim's slowest ` +
          `${slowest.toFixed(1)} ms`,
      );
    });

    it("a failed authentication answers before a 5 MB body and does not hold the socket past the request deadline", async () => {
      const answer = await exchange(
        server().url,
        "POST /v2/activities/add HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
          "x-svc-api-key: ak_other\r\nx-svc-auth-token: at_nothing\r\nContent-Length: 5000000\r\n\r\n{",
        { localAddress: "127.0.0.5", deadlineMs: GENEROUS_MS },
      );
      // Only "{" of the body was ever sent: any answer came before the body.
      expect(answer.status).toBe(403);
      expect(answer.closed).toBe(true);
    });

    it("an address flooding with unknown keys gets 429 with Retry-After, before any lookup; others are served", async () => {
      const agent = agentFrom("127.0.0.4", 32);
      cleanup.push(() => agent.destroy());
      const flood = async (count: number) => {
        const statuses = new Map<number, number>();
        await Promise.all(
          Array.from({ length: 32 }, async (_, lane) => {
            for (let i = lane; i < count; i += 32) {
              const res = await post(
                `${server().url}/v2/activities/get`,
                unknownKey(i),
                '{"data":{}}',
                agent,
              );
              statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            }
          }),
        );
        return statuses;
      };
      const first = await flood(FAILURES_PER_MIN);
      expect(first.get(403)).toBe(FAILURES_PER_MIN);

      const refused = await post(`${server().url}/v2/activities/get`, unknownKey(-1), '{"data":{}}', agent);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect(refused.body.error).toEqual({
        status: "RESOURCE_EXHAUSTED",
        message: `Too many failed authentications from this address; retry after ${refused.headers["retry-after"]} s.`,
      });
      // Even the right credentials wait: the address is refused before they are looked up.
      const creds = { "x-svc-api-key": server().creds.apiKey, "x-svc-auth-token": server().creds.authToken };
      const body = '{"data":{"organizationId":"victim"}}';
      expect((await post(`${server().url}/v2/activities/get`, creds, body, agent)).status).toBe(429);

      const flooding = 1000;
      const start = performance.now();
      const [statuses, slowest] = await Promise.all([flood(flooding), victim(server(), 20)]);
      const seconds = (performance.now() - start) / 1000;
      expect(statuses.get(429)).toBe(flooding);

      server().clock.advance(60_000);
      expect((await post(`${server().url}/v2/activities/get`, creds, body, agent)).status).toBe(200);
      report(
        `abuse ${server().dialect}: ${flooding} unknown-key requests from one address past its budget: all 429 ` +
          `(${Math.round(flooding / seconds)}/s while the victim ran); victim's slowest of 20 calls ${slowest.toFixed(1)} ms`,
      );
    });

    it("wrong tokens for one key from many addresses: its further failures get 429, its right token still works", async () => {
      const key = server().creds.apiKey;
      const wrong = { "x-svc-api-key": key, "x-svc-auth-token": "at_guess" };
      const statuses: number[] = [];
      for (let a = 0; a < 20; a++) {
        const agent = agentFrom(`127.0.1.${a + 1}`, 1);
        for (let i = 0; i < 6; i++) {
          statuses.push(
            (await post(`${server().url}/v2/activities/get`, wrong, '{"data":{}}', agent)).status,
          );
        }
        agent.destroy();
      }
      expect(statuses.filter((s) => s === 401).length).toBe(FAILURES_PER_MIN);
      expect(statuses.filter((s) => s === 429).length).toBe(20);
      const right = await server().call("/v2/activities/get", { organizationId: "victim" });
      expect(right.status).toBe(200);
    });
  },
  {
    env: {
      COLLABD_MAX_CONNECTIONS_PER_ADDRESS: String(CAP),
      COLLABD_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      COLLABD_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      COLLABD_AUTH_FAILURE_LIMIT_PER_MIN: String(FAILURES_PER_MIN),
      COLLABD_RATE_LIMIT_PER_MIN: "0",
    },
  },
);
