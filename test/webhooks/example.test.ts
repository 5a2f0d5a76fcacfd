import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { forEachDialect } from "../support/server.js";
import {
  ALLOW_PRIVATE,
  comment,
  keyPair,
  NO_JITTER,
  publicDerBase64,
  signingSecret,
  tenant,
} from "./support/hooks.js";

const EXAMPLE = resolve(import.meta.dirname, "../../examples/webhook-receiver.mjs");

/** Starts the README's example receiver; resolves with its URL and everything it printed. */
async function startExample(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [EXAMPLE], {
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => {
    stdout += chunk;
  });
  const url = await new Promise<string>((done, fail) => {
    child.stderr!.on("data", (chunk) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) done(match[1]!);
    });
    child.once("exit", (code) => fail(new Error(`example exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    lines: () =>
      stdout
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    stderr: () => stderr,
    stop: async () => {
      child.kill();
      await once(child, "exit");
    },
  };
}

forEachDialect(
  "the example webhook receiver",
  (server) => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "collabd-example-"));
      // The example checks signature age against the real clock.
      server().clock.set(Date.now());
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("verifies, decrypts and prints deliveries, and rejects a wrong signature", async () => {
      const { publicKey, privateKey } = keyPair("rsa");
      const keyFile = join(dir, "private.pem");
      writeFileSync(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }));
      const t = await tenant(server(), {
        processedNotificationUrl: "",
        authToken: "example-token",
        encodeData: true,
        encryptData: true,
        publicKey: publicDerBase64(publicKey),
      });
      const example = await startExample({
        WEBHOOK_SECRET: await signingSecret(t),
        AUTH_TOKEN: "example-token",
        PRIVATE_KEY_FILE: keyFile,
      });
      try {
        await t.configure({ webhookServiceConfig: { rawNotificationUrl: `${example.url}/hooks` } });
        await t.addActivities([comment({ id: "from-example" })]);
        await server().worker!.runOnce();
        const [log] = (await t.deliveries()).body.result.data;
        expect(log).toMatchObject({ status: "succeeded", lastHttpStatus: 204 });
        expect(example.lines()).toEqual([
          {
            webhookId: log.webhookId,
            payload: expect.objectContaining({ webhookId: log.webhookId, event: "comment.add" }),
          },
        ]);
        expect(example.lines()[0].payload.activity.id).toBe("from-example");

        const stranger = await tenant(server(), { processedNotificationUrl: "", authToken: "example-token" });
        await stranger.configure({ webhookServiceConfig: { rawNotificationUrl: `${example.url}/hooks` } });
        await stranger.addActivities([comment()]);
        await server().worker!.runOnce();
        const [rejected] = (await stranger.deliveries()).body.result.data;
        expect(rejected).toMatchObject({ status: "pending", lastHttpStatus: 400 });
        expect(example.stderr()).toContain("rejected: No matching signature found");
        await stranger.close();
      } finally {
        await example.stop();
        await t.close();
      }
    });
  },
  { env: ALLOW_PRIVATE, webhooks: NO_JITTER },
);
