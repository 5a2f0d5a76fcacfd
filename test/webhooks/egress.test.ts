import { describe, expect, it } from "vitest";
import { embeddedIpv4, expandIpv6, isForbiddenAddress, PRIVATE_REFUSED } from "../../src/webhooks/egress.js";
import { forEachDialect } from "../support/server.js";

/** Every IPv6 form that routes to an IPv4 host is judged by that host. */
const EMBEDDED: [form: string, address: string, embedded: string[], forbidden: boolean][] = [
  ["IPv4-mapped, dotted", "::ffff:127.0.0.1", ["127.0.0.1"], true],
  ["IPv4-mapped, hex", "::ffff:7f00:1", ["127.0.0.1"], true],
  ["IPv4-mapped, public", "::ffff:8.8.8.8", ["8.8.8.8"], false],
  ["IPv4-mapped, metadata", "::ffff:a9fe:a9fe", ["169.254.169.254"], true],
  ["SIIT translated, hex", "::ffff:0:7f00:1", ["127.0.0.1"], true],
  ["SIIT translated, dotted", "::ffff:0:10.1.2.3", ["10.1.2.3"], true],
  ["SIIT translated, public", "::ffff:0:8.8.8.8", ["8.8.8.8"], false],
  ["IPv4-compatible loopback", "::127.0.0.1", ["127.0.0.1"], true],
  ["IPv4-compatible, public (deprecated range, refused)", "::8.8.8.8", ["8.8.8.8"], true],
  ["6to4 of loopback", "2002:7f00:1::", ["127.0.0.1"], true],
  ["6to4 of a private host", "2002:c0a8:101::1", ["192.168.1.1"], true],
  ["6to4 of the metadata address", "2002:a9fe:a9fe::", ["169.254.169.254"], true],
  ["6to4 of a public host", "2002:808:808::1", ["8.8.8.8"], false],
  [
    "Teredo with a loopback client",
    "2001:0:4136:e378:8000:63bf:80ff:fffe",
    ["65.54.227.120", "127.0.0.1"],
    true,
  ],
  [
    "Teredo with a private client",
    "2001:0:4136:e378:8000:63bf:f5fe:fefe",
    ["65.54.227.120", "10.1.1.1"],
    true,
  ],
  ["Teredo with a private server", "2001:0:a00:1:8000:63bf:f7f7:f7f7", ["10.0.0.1", "8.8.8.8"], true],
  ["Teredo, both public", "2001:0:4136:e378:8000:63bf:f7f7:f7f7", ["65.54.227.120", "8.8.8.8"], false],
  ["NAT64 of loopback", "64:ff9b::7f00:1", ["127.0.0.1"], true],
  ["NAT64 of the metadata address, dotted", "64:ff9b::169.254.169.254", ["169.254.169.254"], true],
  ["NAT64 of a public host", "64:ff9b::808:808", ["8.8.8.8"], false],
  ["local-use NAT64 (refused whole)", "64:ff9b:1::808:808", [], true],
  ["plain public IPv6", "2606:4700:4700::1111", [], false],
  ["with a zone", "fe80::1%eth0", [], true],
];

describe("IPv6 forms that embed IPv4", () => {
  it.each(EMBEDDED)("%s: %s", (_form, address, embedded, forbidden) => {
    const groups = expandIpv6(address);
    expect(groups).not.toBeNull();
    expect(embeddedIpv4(groups!)).toEqual(embedded);
    expect(isForbiddenAddress(address)).toBe(forbidden);
  });

  it.each([
    ["::ffff:0:0", ["0.0.0.0"]],
    ["::", ["0.0.0.0"]],
    ["::1", ["0.0.0.1"]],
  ])("decodes the edge %s and refuses it", (address, embedded) => {
    expect(embeddedIpv4(expandIpv6(address)!)).toEqual(embedded);
    expect(isForbiddenAddress(address)).toBe(true);
  });
});

const UPDATE = "/v2/workspace/webhookconfig/update";

forEachDialect("webhook configuration refuses IPv6 forms of private hosts", (server) => {
  it.each([
    "http://[2002:7f00:1::]/hook",
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook",
    "http://[::ffff:0:7f00:1]/hook",
    "http://[64:ff9b::a9fe:a9fe]/latest/meta-data",
  ])("refuses %s and stores nothing", async (url) => {
    const creds = await server().newWorkspace();
    const res = await server().call(UPDATE, { webhookServiceConfig: { rawNotificationUrl: url } }, { creds });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      {
        field: "data.webhookServiceConfig.rawNotificationUrl",
        message: PRIVATE_REFUSED,
      },
    ]);
    const stored = await server().call("/v2/workspace/webhookconfig/get", {}, { creds });
    expect(stored.body.result.data.webhookServiceConfig.rawNotificationUrl).toBe("");
  });

  it("accepts the 6to4 form of a public host", async () => {
    const creds = await server().newWorkspace();
    const res = await server().call(
      UPDATE,
      { webhookServiceConfig: { rawNotificationUrl: "https://[2002:808:808::1]/hook" } },
      { creds },
    );
    expect(res.status).toBe(200);
  });
});
