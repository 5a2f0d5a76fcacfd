import { expect, it } from "vitest";
import { PRIVATE_REFUSED } from "../../src/webhooks/egress.js";
import { forEachDialect } from "../support/server.js";

/** What someone trying collabd for the first time meets at its address, in its document and its first refusal. */
forEachDialect("a first visit", (server) => {
  it("leads GET / to the console instead of a 404", async () => {
    for (const method of ["GET", "HEAD"]) {
      const res = await fetch(`${server().url}/`, { method, redirect: "manual" });
      expect(res.status, method).toBe(302);
      expect(res.headers.get("location")).toBe("/console");
    }
    const followed = await fetch(`${server().url}/`);
    expect(followed.url).toBe(`${server().url}/console`);
  });

  it("names this server in /openapi.json, whatever its port: a relative server URL resolving to where the document came from", async () => {
    const documentUrl = `${server().url}/openapi.json`;
    const doc = (await (await fetch(documentUrl)).json()) as { servers: { url: string }[] };
    expect(doc.servers).toHaveLength(1);
    // The test server listens on a random port, never 8080.
    expect(new URL(server().url).port).not.toBe("8080");
    const base = new URL(doc.servers[0]!.url, documentUrl);
    expect(base.origin).toBe(server().url);
    expect(JSON.stringify(doc)).not.toContain("127.0.0.1:8080");
    // A client taking its base from the document reaches this server.
    const res = await fetch(new URL("v2/activities/get", base), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-svc-api-key": server().creds.apiKey,
        "x-svc-auth-token": server().creds.authToken,
      },
      body: JSON.stringify({ data: { organizationId: "org-1" } }),
    });
    expect(res.status).toBe(200);
  });

  it("refuses a loopback webhook URL saying which setting allows a local receiver", async () => {
    const res = await server().call("/v2/workspace/webhookconfig/update", {
      useWebhookService: true,
      webhookServiceConfig: { rawNotificationUrl: "http://127.0.0.1:9000/hook" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { field: "data.webhookServiceConfig.rawNotificationUrl", message: PRIVATE_REFUSED },
    ]);
    expect(PRIVATE_REFUSED).toContain("COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS=true");
  });
});
