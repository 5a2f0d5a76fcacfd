#!/usr/bin/env node
// A complete collabd webhook receiver: verifies the Standard Webhooks signature, checks the
// Authorization header, unwraps encodeData / encryptData bodies, and ignores redeliveries.
//
//   npm install standardwebhooks          (the only dependency)
//   node webhook-receiver.mjs keygen      writes private.pem, prints the publicKey to configure
//   WEBHOOK_SECRET=whsec_... [AUTH_TOKEN=...] [PRIVATE_KEY_FILE=private.pem] [PORT=3000] \
//     node webhook-receiver.mjs
//
// Every accepted event is printed as one JSON line on stdout: {"webhookId", "payload"}.
import {
  constants,
  createDecipheriv,
  generateKeyPairSync,
  privateDecrypt,
  timingSafeEqual,
} from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";

if (process.argv[2] === "keygen") {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  writeFileSync("private.pem", privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
  console.log("Wrote private.pem. Configure this as webhookServiceConfig.publicKey:");
  console.log(publicKey.export({ type: "spki", format: "der" }).toString("base64"));
  process.exit(0);
}

const secret = process.env.WEBHOOK_SECRET; // from /v2/workspace/webhookconfig/get → signingSecret
if (!secret) throw new Error("Set WEBHOOK_SECRET to the workspace's whsec_ signing secret.");
const webhook = new Webhook(secret);
const authToken = process.env.AUTH_TOKEN; // webhookServiceConfig.authToken, if you set one
const privateKey = process.env.PRIVATE_KEY_FILE ? readFileSync(process.env.PRIVATE_KEY_FILE) : null;
const seen = new Set(); // webhook-ids already handled: delivery is at least once

/** Undoes encodeData and encryptData (AES-256-CBC, key wrapped with RSA-OAEP-SHA256). */
function unwrap(body) {
  if ("encryptedData" in body) {
    if (!privateKey) throw new Error("Encrypted delivery but no PRIVATE_KEY_FILE.");
    const key = privateDecrypt(
      { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" },
      Buffer.from(body.encryptedKey, "base64"),
    );
    const decipher = createDecipheriv("aes-256-cbc", key, Buffer.from(body.iv, "base64"));
    const text = Buffer.concat([
      decipher.update(Buffer.from(body.encryptedData, "base64")),
      decipher.final(),
    ]).toString("utf8");
    // With encodeData as well, the encrypted text is base64 of the JSON.
    return JSON.parse(text.startsWith("{") ? text : Buffer.from(text, "base64").toString("utf8"));
  }
  if ("encodedPayload" in body)
    return JSON.parse(Buffer.from(body.encodedPayload, "base64").toString("utf8"));
  return body;
}

function sameText(a, b) {
  const x = Buffer.from(a ?? "");
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const raw = Buffer.concat(chunks).toString("utf8"); // verify the exact bytes, before parsing
    try {
      if (authToken && !sameText(req.headers.authorization, `Basic ${authToken}`)) {
        res.writeHead(401).end();
        return;
      }
      const body = webhook.verify(raw, req.headers); // throws on a bad or stale signature
      const webhookId = req.headers["webhook-id"];
      if (!seen.has(webhookId)) {
        seen.add(webhookId);
        console.log(JSON.stringify({ webhookId, payload: unwrap(body) }));
      }
      res.writeHead(204).end(); // answer fast; do slow work after acknowledging
    } catch (error) {
      console.error(`rejected: ${error.message}`);
      res.writeHead(400).end();
    }
  });
});

server.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? "127.0.0.1", () => {
  const { address, port } = server.address();
  console.error(`webhook receiver listening on http://${address}:${port}`);
});
