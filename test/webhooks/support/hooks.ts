import {
  constants,
  createDecipheriv,
  generateKeyPairSync,
  type KeyObject,
  privateDecrypt,
} from "node:crypto";
import { Webhook } from "standardwebhooks";
import { vi } from "vitest";
import type { NewWorkspace } from "../../../src/areas/workspaces/service.js";
import type { Credentials, Response, TestServer } from "../../support/server.js";
import { type Received, Receiver } from "./receiver.js";

/** Tests deliver to 127.0.0.1, which only this setting permits. */
export const ALLOW_PRIVATE = { COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true" };

/** Jitter pinned to the middle, so every retry lands exactly on the schedule. */
export const NO_JITTER = { random: () => 0.5 };

/** A fresh workspace with its own receiver, so tests in one suite never see each other's deliveries. */
export interface Tenant {
  readonly creds: Credentials;
  readonly receiver: Receiver;
  readonly rawUrl: string;
  readonly processedUrl: string;
  configure(data: unknown): Promise<Response>;
  getConfig(): Promise<Response>;
  addActivities(
    activities: unknown[],
    target?: { organizationId?: string; documentId?: string },
  ): Promise<Response>;
  deliveries(data?: Record<string, unknown>): Promise<Response>;
  close(): Promise<void>;
}

export async function tenant(
  server: TestServer,
  config: Record<string, unknown> = {},
  workspace: NewWorkspace = {},
): Promise<Tenant> {
  const creds = await server.newWorkspace(workspace);
  const receiver = await Receiver.start();
  const rawUrl = `${receiver.url}/raw`;
  const processedUrl = `${receiver.url}/processed`;
  const call = (path: string, data: unknown) => server.call(path, data, { creds });
  const t: Tenant = {
    creds,
    receiver,
    rawUrl,
    processedUrl,
    configure: (data) => call("/v2/workspace/webhookconfig/update", data),
    getConfig: () => call("/v2/workspace/webhookconfig/get", {}),
    addActivities: (activities, target = {}) =>
      call("/v2/activities/add", {
        organizationId: target.organizationId ?? "org-1",
        documentId: target.documentId ?? "doc-1",
        activities,
      }),
    deliveries: (data = {}) => call("/v2/workspace/webhooks/deliveries/get", data),
    close: () => receiver.close(),
  };
  const res = await t.configure({
    useWebhookService: true,
    webhookServiceConfig: { rawNotificationUrl: rawUrl, processedNotificationUrl: processedUrl, ...config },
  });
  if (res.status !== 200) throw new Error(`configure failed: ${JSON.stringify(res.body)}`);
  return t;
}

export const comment = (extra: Record<string, unknown> = {}) => ({
  featureType: "comment",
  actionType: "comment.add",
  actionUser: { userId: "u-1", name: "Ada", email: "ada@example.com" },
  targetEntityId: "thread-1",
  displayMessageTemplate: "{{user.name}} commented on {{doc}}",
  displayMessageTemplateData: { user: { name: "Ada" }, doc: "Plan" },
  ...extra,
});

export async function signingSecret(t: Tenant): Promise<string> {
  return (await t.getConfig()).body.result.data.signingSecret;
}

/**
 * Verifies a received request with the `standardwebhooks` library, as an integrator
 * would, with the library's clock set to the server's (it checks the timestamp's age).
 */
export function verify(secret: string, received: Received, now: number): unknown {
  vi.useFakeTimers({ toFake: ["Date"] });
  try {
    vi.setSystemTime(now);
    return new Webhook(secret).verify(received.body, received.headers);
  } finally {
    vi.useRealTimers();
  }
}

const keyPairs = new Map<string, { publicKey: KeyObject; privateKey: KeyObject }>();

/** RSA (or other) key pairs, made once per process: generation is the slow part. */
export function keyPair(type: "rsa" | "ec", bits = 2048) {
  const id = `${type}-${bits}`;
  let pair = keyPairs.get(id);
  if (!pair) {
    pair =
      type === "rsa"
        ? generateKeyPairSync("rsa", { modulusLength: bits })
        : generateKeyPairSync("ec", { namedCurve: "P-256" });
    keyPairs.set(id, pair);
  }
  return pair;
}

export const publicPem = (key: KeyObject) => key.export({ type: "spki", format: "pem" }).toString();
export const publicDerBase64 = (key: KeyObject) =>
  key.export({ type: "spki", format: "der" }).toString("base64");

/** What an integrator does with an encrypted body: unwrap the AES key, then the data. */
export function decrypt(
  body: { encryptedData: string; encryptedKey: string; iv: string },
  privateKey: KeyObject,
) {
  const key = privateDecrypt(
    { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" },
    Buffer.from(body.encryptedKey, "base64"),
  );
  const decipher = createDecipheriv("aes-256-cbc", key, Buffer.from(body.iv, "base64"));
  return Buffer.concat([
    decipher.update(Buffer.from(body.encryptedData, "base64")),
    decipher.final(),
  ]).toString("utf8");
}
