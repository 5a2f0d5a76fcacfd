import { readFileSync } from "node:fs";
import { request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.js";
import { DIALECTS, scratchDatabase } from "../support/databases.js";
import { startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";
import { report, until, within } from "./support/wait.js";

/**
 * The loss of any one process is not an outage (docs/architecture.md "Processes"): with
 * COLLABD_WORKERS=2, a SIGKILLed worker is forked again while the other serves, and on
 * SQLite a SIGKILLed writer is replaced by the spare writer while writes are held (or, held
 * too long, refused with 503 and Retry-After), and a new spare is forked. Under 8 concurrent
 * writers throughout, every acknowledged write is stored afterwards. Recovery times are
 * reported (RELIABILITY.md), not asserted.
 */
const creds = {
  apiKey: "supervision-test-api-key-0123456789abcdef",
  authToken: "supervision-test-auth-token-0123456789abcdef",
};
const WRITERS = 8;
/** A request unanswered this long counts as cut off (its outcome unknown), like a reset. */
const POST_TIMEOUT_MS = 20_000;

interface Answer {
  readonly status: number;
  readonly body: any;
  readonly retryAfter: string | undefined;
}

/** One POST on a connection of its own: node:cluster deals each to the next worker. */
function post(url: string, path: string, data: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url + path,
      {
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          "x-svc-api-key": creds.apiKey,
          "x-svc-auth-token": creds.authToken,
        },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => {
          try {
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(text),
              retryAfter: res.headers["retry-after"],
            });
          } catch (error) {
            reject(error);
          }
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    // A connection node:cluster handed to a worker as it was killed is never answered.
    req.setTimeout(POST_TIMEOUT_MS, () => req.destroy(new Error("no answer")));
    req.end(JSON.stringify({ data }));
  });
}

/** Writers adding one activity a request, each with an id of its own, through every kill. */
class Load {
  readonly acked: string[] = [];
  /** When each acknowledged request was sent and answered, to measure recovery. */
  readonly ackTimes: { sent: number; answered: number }[] = [];
  refused = 0;
  refusedWithoutRetryAfter = 0;
  unknown = 0;
  readonly unexpected: string[] = [];
  private stopped = false;
  private readonly loops: Promise<void>[];

  constructor(private readonly url: string) {
    this.loops = Array.from({ length: WRITERS }, (_, w) => this.loop(w));
  }

  async ackedAtLeast(count: number, ms: number): Promise<void> {
    await until(() => (this.acked.length >= count ? true : undefined), ms, `${count} acknowledged writes`);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  private async loop(w: number): Promise<void> {
    for (let seq = 0; !this.stopped; seq++) {
      const id = `s-${w}-${seq}`;
      let answer: Answer;
      const sent = Date.now();
      try {
        answer = await post(this.url, "/v2/activities/add", {
          organizationId: "org-supervision",
          documentId: `doc-${w}`,
          activities: [
            { id, featureType: "comment", actionType: "comment.add", actionUser: { userId: "u" } },
          ],
        });
      } catch {
        // The worker holding this connection was killed: the write may or may not be stored.
        this.unknown += 1;
        continue;
      }
      if (answer.status === 200) {
        this.acked.push(id);
        this.ackTimes.push({ sent, answered: Date.now() });
      } else if (answer.status === 503 && answer.body?.error?.status === "UNAVAILABLE") {
        this.refused += 1;
        if (answer.retryAfter === undefined) this.refusedWithoutRetryAfter += 1;
        await sleep(20);
      } else if (answer.status === 500 && /may have been applied/.test(answer.body?.error?.message ?? "")) {
        this.unknown += 1;
      } else this.unexpected.push(`${answer.status} ${JSON.stringify(answer.body)}`);
    }
  }

  /** Ms from `at` to the first acknowledgement of a request sent after it (undefined: none yet). */
  answeringAfter(at: number): number | undefined {
    const first = this.ackTimes.find((t) => t.sent >= at);
    return first === undefined ? undefined : first.answered - at;
  }
}

const childrenOf = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);

const environ = (pid: number): string[] => {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  } catch {
    return [];
  }
};
/** The writer and the spare writer (a promoted spare keeps the environment it was forked with). */
const isWriter = (pid: number) => environ(pid).includes("COLLABD_PROCESS_ROLE=writer");
const isSpare = (pid: number) => environ(pid).includes("COLLABD_WRITER_STANDBY=1");

async function storedIds(url: string): Promise<Set<string>> {
  const database = await openDatabase(url);
  try {
    const rows = await database.db.selectFrom("activities").select("id").execute();
    return new Set(rows.map((r) => r.id));
  } finally {
    await database.close();
  }
}

/**
 * SIGKILLs `pid`; resolves with the ms until `back` holds (a new process in its place) and
 * until a write sent after the kill was acknowledged.
 */
async function killAndRecover(
  load: Load,
  pid: number,
  back: () => boolean,
): Promise<{ replaced: number; answering: number }> {
  const killedAt = Date.now();
  process.kill(pid, "SIGKILL");
  await until(() => (back() ? true : undefined), 30_000, "the process to be replaced", 10);
  const replaced = Date.now() - killedAt;
  const answering = await until(
    () => load.answeringAfter(killedAt),
    30_000,
    "a write sent after the kill",
    10,
  );
  return { replaced, answering };
}

for (const dialect of DIALECTS) {
  describe(`supervised processes [${dialect}]`, () => {
    it("restarts a SIGKILLed worker (and, on SQLite, the writer) under load; every acknowledged write is stored", async () => {
      const scratch = await scratchDatabase(dialect);
      const server = await startServe({
        ...scratch.env,
        COLLABD_SECRET: TEST_SECRET,
        COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
        COLLABD_RATE_LIMIT_PER_MIN: "0",
        COLLABD_WORKERS: "2",
      });
      const figures: string[] = [];
      let load: Load | null = null;
      try {
        const supervisor = server.child.pid!;
        // On SQLite: two HTTP workers, the writer and the spare writer.
        const processes = dialect === "sqlite" ? 4 : 2;
        expect(childrenOf(supervisor)).toHaveLength(processes);
        load = new Load(server.url);
        await within(load.ackedAtLeast(30, 60_000), 60_000, "30 writes before the first kill");

        const httpWorkers = () => childrenOf(supervisor).filter((pid) => !isWriter(pid));
        const victim = httpWorkers()[0]!;
        const worker = await killAndRecover(
          load,
          victim,
          () => httpWorkers().length === 2 && !httpWorkers().includes(victim),
        );
        figures.push(
          `worker SIGKILLed: replaced in ${worker.replaced} ms; a write acknowledged ${worker.answering} ms after the kill`,
        );
        // The new worker serves: fresh connections reach both workers again.
        await load.ackedAtLeast(load.acked.length + 20, 60_000);

        if (dialect === "sqlite") {
          // The first writer: forked without the spare's standby flag.
          const writerPid = childrenOf(supervisor).find((pid) => isWriter(pid) && !isSpare(pid))!;
          expect(writerPid).toBeDefined();
          const refusedBefore = load.refused;
          // Replaced: the spare promoted, and a new spare forked once it was ready.
          const writer = await killAndRecover(load, writerPid, () => {
            const now = childrenOf(supervisor);
            return now.length === 4 && now.filter(isWriter).length === 2 && !now.includes(writerPid);
          });
          figures.push(
            `writer SIGKILLed: the spare promoted and a new spare forked in ${writer.replaced} ms; writes acknowledged again ${writer.answering} ms after the kill; ${load.refused - refusedBefore} writes refused meanwhile (503, Retry-After)`,
          );
          await load.ackedAtLeast(load.acked.length + 20, 60_000);
        }
        await within(load.stop(), 60_000, "the writers' last requests");
        expect(load.unexpected).toEqual([]);
        expect(load.refusedWithoutRetryAfter).toBe(0);
        const code = await within(server.stop(), 60_000, "a graceful stop");
        const errors = server
          .stdout()
          .split("\n")
          .filter((line) => /"level":(50|60)/.test(line) && !/stopped; starting another/.test(line));
        expect({ code, errors, stderr: server.stderr() }).toEqual({ code: 0, errors: [], stderr: "" });

        const stored = await storedIds(scratch.directUrl);
        const lost = load.acked.filter((id) => !stored.has(id));
        expect(lost).toEqual([]);
        figures.push(
          `${load.acked.length} acknowledged writes, 0 lost; ${load.refused} refused (503), ${load.unknown} cut off or unknown`,
        );
        for (const line of figures) report(`supervision ${dialect}: ${line}`);
        figures.length = 0;
      } finally {
        for (const line of figures) report(`supervision ${dialect} (before the failure): ${line}`);
        await within(load?.stop() ?? Promise.resolve(), 60_000, "the writers to stop").catch(() => {});
        if (server.child.exitCode === null && server.child.signalCode === null) await server.stop("SIGKILL");
        await scratch.drop();
      }
    }, 240_000);
  });
}
