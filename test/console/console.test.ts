import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { issueToken, revokeToken } from "../../src/areas/workspaces/service.js";
import { forEachDialect, type TestServer } from "../support/server.js";
import { ALLOW_PRIVATE } from "../webhooks/support/hooks.js";
import { Receiver } from "../webhooks/support/receiver.js";
import { hashOf, launch, open, openPage, screenshot, signIn } from "./support/browser.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/** Text that would run if any view rendered API values as markup or as a link. */
const SCRIPT = "<script>window.__pwned = 1</script>";
const IMG = '<img src="x" onerror="window.__pwned = 1">';
const JS_URL = "javascript:window.__pwned=1";

forEachDialect(
  "console in a browser",
  (server) => {
    let page: Page;
    let problems: string[];
    let receiver: Receiver;
    const s = (): TestServer => server();
    const api = async (path: string, data: unknown) => {
      const res = await s().call(path, data);
      if (res.status !== 200) throw new Error(`${path}: ${JSON.stringify(res.body)}`);
      return res.body.result;
    };
    const shot = (name: string, fullPage = true) => screenshot(page, s().dialect, name, fullPage);

    beforeAll(async () => {
      ({ page, problems } = await openPage(browser));
      receiver = await Receiver.start();
    });
    afterAll(async () => {
      await page?.context().close();
      await receiver?.close();
    });
    afterEach(() => {
      expect(problems.splice(0)).toEqual([]);
    });

    it("refuses wrong credentials, signs in with the right ones and keeps the token out of storage and cookies", async () => {
      await page.goto(`${s().url}/console`);
      await page.getByLabel("API key").fill(s().creds.apiKey);
      await page.getByLabel("Auth token").fill("at_wrong-token");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("alert").filter({ hasText: "UNAUTHENTICATED" }).waitFor();
      expect(await page.getByRole("navigation", { name: "Views" }).count()).toBe(0);
      await shot("sign-in-refused");

      await signIn(page, s().url, s().creds);
      expect(await page.evaluate("localStorage.length")).toBe(0);
      expect(await page.evaluate("document.cookie")).toBe("");
      expect(await page.context().cookies()).toEqual([]);
      // The session lives in this tab's sessionStorage only, and dies with it.
      expect(await page.evaluate("JSON.stringify(sessionStorage)")).toContain(s().creds.authToken);
    });

    it("is keyboard navigable: skip link first, then the views", async () => {
      // A reload starts focus at the top of the page; the session survives it (sessionStorage).
      await page.reload();
      await page.getByRole("navigation", { name: "Views" }).waitFor();
      await page.keyboard.press("Tab");
      expect(await page.evaluate("document.activeElement?.textContent")).toBe("Skip to content");
      await page.keyboard.press("Tab");
      await page.keyboard.press("Tab");
      expect(await page.evaluate("document.activeElement?.textContent")).toBe("Deliveries");
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "Webhook deliveries" }).waitFor();
      expect(hashOf(page)).toBe("#/deliveries");
    });

    it("sends a Content-Security-Policy without inline script, which the browser enforces", async () => {
      const res = await fetch(`${s().url}/console`);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).not.toContain("unsafe-eval");
      // Page-side code as text: it runs in the browser, whose globals the test's types do not know.
      const ran = await page.evaluate(`(async () => {
        const violation = new Promise((resolve) =>
          document.addEventListener("securitypolicyviolation", (e) => resolve(e.violatedDirective), { once: true }),
        );
        const script = document.createElement("script");
        script.textContent = "window.__inline = 1";
        document.body.append(script);
        const directive = await violation;
        script.remove();
        return { inline: window.__inline ?? null, directive };
      })()`);
      expect(ran).toEqual({ inline: null, directive: "script-src-elem" });
      // The browser reports the refusal on the console: expected here, and only here.
      const refused = problems.splice(0);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatch(/Content Security Policy/);
    });

    it("finds deliveries a receiver failed with 500, retries them once it is fixed and sees them delivered", async () => {
      await api("/v2/workspace/webhookconfig/update", {
        useWebhookService: true,
        webhookServiceConfig: { rawNotificationUrl: `${receiver.url}/raw`, processedNotificationUrl: "" },
      });
      receiver.script("/raw", ...Array.from({ length: 6 }, () => ({ status: 500, body: "receiver broken" })));
      for (const id of ["c1", "c2"]) {
        await api("/v2/activities/add", {
          organizationId: "org-1",
          documentId: "doc-1",
          activities: [
            {
              id,
              featureType: "comment",
              actionType: "comment.add",
              actionUser: { userId: "u-1", name: "Ada" },
              targetEntityId: "thread-1",
              displayMessageTemplate: "{{user}} commented",
              displayMessageTemplateData: { user: "Ada" },
            },
          ],
        });
      }
      for (const delay of [0, 1_000, 2_000]) {
        s().clock.advance(delay);
        expect(await s().worker!.runOnce()).toBe(2);
      }
      const failed = (await api("/v2/workspace/webhooks/deliveries/get", { status: "failed" })).data;
      expect(failed).toHaveLength(2);
      const [first, second] = failed.map((d: { webhookId: string }) => d.webhookId);

      await open(page, "#/overview");
      await page.locator('[data-metric="failed"]').filter({ hasText: "2" }).waitFor();
      await page.locator('[data-metric="total"]').waitFor();
      expect(Number(await page.locator('[data-metric="total"]').textContent())).toBeGreaterThan(0);
      // A second sample turns the counters into rates.
      await page.getByRole("button", { name: "Sample now" }).click();
      await page
        .locator('[data-metric="rate"]')
        .filter({ hasText: /^\d+\.\d\d \/s$/ })
        .waitFor();
      await page.locator('[data-metric="error-rate"]').filter({ hasText: /%$/ }).waitFor();
      await shot("overview");

      await page.locator('[data-metric="failed"] a').click();
      const row = page.locator(`tr[data-id="${first}"]`);
      await row.waitFor();
      expect(await row.locator(".badge").textContent()).toBe("failed");
      expect(await row.textContent()).toContain("HTTP 500");
      await row.getByRole("button", { name: "Details" }).click();
      const details = page.locator(".delivery-details");
      await details.locator("table.attempts tbody tr").nth(2).waitFor();
      expect(await details.locator("table.attempts tbody tr").count()).toBe(3);
      expect(await details.locator("table.attempts").textContent()).toContain("HTTP 500: receiver broken");
      await details.locator("pre.json").filter({ hasText: '"documentId": "doc-1"' }).waitFor();
      await details.getByRole("link", { name: "Activity of this document" }).waitFor();
      await shot("deliveries-failed");
      await page.setViewportSize({ width: 390, height: 844 });
      await shot("deliveries-phone");
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
      await page.setViewportSize({ width: 1280, height: 860 });

      // The receiver's script is used up: it answers 200 from now on.
      await row.getByRole("button", { name: "Retry" }).click();
      await page.getByRole("status").filter({ hasText: "Delivery queued for retry." }).waitFor();
      await page.getByLabel(`Select delivery ${second}`).check();
      await page.getByRole("button", { name: "Retry selected (1)" }).click();
      await page.getByRole("status").filter({ hasText: second }).waitFor();
      expect(await s().worker!.runOnce()).toBe(2);

      await page.getByLabel("Status").selectOption("succeeded");
      await page.getByRole("button", { name: "Apply" }).click();
      for (const id of [first, second]) {
        await page.locator(`tr[data-id="${id}"] .badge`).filter({ hasText: "succeeded" }).waitFor();
      }
      expect(hashOf(page)).toBe("#/deliveries?status=succeeded");
      const after = (await api("/v2/workspace/webhooks/deliveries/get", { deliveryIds: [first, second] }))
        .data;
      expect(after.map((d: { status: string }) => d.status)).toEqual(["succeeded", "succeeded"]);
      expect(receiver.at("/raw")).toHaveLength(8);
      await shot("deliveries-succeeded");
    });

    it("edits the webhook configuration, the API sees the change, and shows the API's validation messages", async () => {
      await open(page, "#/webhook");
      const form = page.getByRole("form", { name: "Webhook configuration" });
      await form.waitFor();
      await form.getByLabel("Processed notification URL").fill(`${receiver.url}/processed`);
      await form.getByLabel("comment.delete", { exact: true }).uncheck();
      await form.getByRole("button", { name: "Save configuration" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: "Webhook configuration updated successfully." })
        .waitFor();
      const stored = (await api("/v2/workspace/webhookconfig/get", {})).data;
      expect(stored.webhookServiceConfig).toMatchObject({
        rawNotificationUrl: `${receiver.url}/raw`,
        processedNotificationUrl: `${receiver.url}/processed`,
        encryptData: false,
      });
      expect(stored.webhookServiceConfig.triggers["comment.delete"]).toBe(false);
      expect(stored.webhookServiceConfig.triggers["comment.add"]).toBe(true);

      await form.getByLabel(/Encrypt payloads/).check();
      await form.getByLabel("Raw notification URL").fill("ftp://example.com/hook");
      await form.getByRole("button", { name: "Save configuration" }).click();
      const alert = form.getByRole("alert");
      await alert.filter({ hasText: "Invalid webhook service configuration." }).waitFor();
      expect(await alert.textContent()).toContain("webhookServiceConfig.rawNotificationUrl");
      expect(await alert.textContent()).toContain("Must be an absolute http or https URL.");
      await form.getByLabel("Raw notification URL").fill(`${receiver.url}/raw`);
      await form.getByRole("button", { name: "Save configuration" }).click();
      await alert.filter({ hasText: "Required when encryptData is true." }).waitFor();
      expect(await alert.textContent()).toContain("webhookServiceConfig.publicKey");
      const unchanged = (await api("/v2/workspace/webhookconfig/get", {})).data;
      expect(unchanged.webhookServiceConfig).toEqual(stored.webhookServiceConfig);
      await shot("webhook-settings-invalid");

      await page.getByRole("button", { name: "Reveal" }).click();
      await page.locator(".secret code").filter({ hasText: stored.signingSecret }).waitFor();

      // Rotation: choose a grace, confirm, and the new secret is shown and stored.
      await page.getByLabel("Grace period for the old secret").selectOption({ label: "1 hour" });
      await page.getByRole("button", { name: "Rotate secret" }).click();
      await page.getByRole("button", { name: "Cancel" }).click();
      expect((await api("/v2/workspace/webhookconfig/get", {})).data.signingSecret).toBe(
        stored.signingSecret,
      );
      await page.getByRole("button", { name: "Rotate secret" }).click();
      await shot("webhook-secret-confirm");
      await page.getByRole("button", { name: "Confirm rotation" }).click();
      const shown = page.locator(".rotate-secret [role=status] code");
      await shown.waitFor();
      const fresh = await shown.textContent();
      const rotated = (await api("/v2/workspace/webhookconfig/get", {})).data;
      expect(fresh).toMatch(/^whsec_/);
      expect(fresh).not.toBe(stored.signingSecret);
      expect(rotated.signingSecret).toBe(fresh);
      expect(rotated.previousSigningSecretExpiresAt).toBe(s().clock.now() + 3_600_000);
      await page.locator(".secret code").filter({ hasText: fresh! }).waitFor();
      expect(await page.textContent("body")).toContain("The previous secret still signs too until");
      await shot("webhook-secret-rotated");
    });

    it("browses 1 000 activities a page at a time, with changes as from → to and links to timelines", async () => {
      const activities = Array.from({ length: 1000 }, (_, i) => ({
        id: `act-${String(i).padStart(4, "0")}`,
        featureType: "custom",
        actionType: "statusChanged",
        actionUser: { userId: `u-${i % 3}`, name: `User ${i % 3}` },
        targetEntityId: `task-${i % 10}`,
        displayMessageTemplate: "{{user.name}} moved {{task}}",
        displayMessageTemplateData: { user: { name: `User ${i % 3}` }, task: `task-${i % 10}` },
        changes: { status: { from: "open", to: `done-${i}` } },
      }));
      await api("/v2/activities/add", { organizationId: "org-2", documentId: "doc-big", activities });

      await open(page, "#/activities?organizationId=org-2&documentId=doc-big&pageSize=250");
      const items = page.locator("li.activity");
      await items.nth(249).waitFor();
      expect(await items.count()).toBe(250);
      await shot("activities", false);
      for (const shown of [500, 750, 1000]) {
        await page.getByRole("button", { name: "Load more" }).click();
        await items.nth(shown - 1).waitFor();
      }
      await page.getByText("1000 activities shown.").waitFor();
      expect(await page.getByRole("button", { name: "Load more" }).count()).toBe(0);
      const ids = await items.evaluateAll((els) => els.map((el) => el.getAttribute("data-id")));
      expect(new Set(ids).size).toBe(1000);
      const one = page.locator('li.activity[data-id="act-0007"]');
      expect(await one.locator(".changes").textContent()).toBe("statusopen → done-7");
      expect(await one.locator(".message").textContent()).toBe("User 1 moved task-7");

      const filters = page.getByRole("form", { name: "Activity filters" });
      await filters.getByLabel("User id").fill("u-1");
      await filters.getByLabel("Action types").fill("statusChanged, comment.add");
      await filters.getByLabel("custom").check();
      await filters.locator('select[name="order"]').selectOption("asc");
      await filters.getByRole("button", { name: "Apply" }).click();
      await page.getByText("250 activities shown; more exist.").waitFor();
      expect(hashOf(page)).toBe(
        "#/activities?organizationId=org-2&documentId=doc-big&userId=u-1&actionTypes=statusChanged%2C+comment.add&featureTypes=custom&order=asc&pageSize=250",
      );
      const byUser1 = await items.evaluateAll((els) => els.map((el) => el.getAttribute("data-id")));
      expect(byUser1.slice(0, 3)).toEqual(["act-0001", "act-0004", "act-0007"]);
      expect(await page.locator("li.activity .headline").first().textContent()).toContain("by User 1");

      await one.getByRole("link", { name: "Entity timeline" }).click();
      await page.getByText("100 activities shown.").waitFor();
      expect(hashOf(page)).toBe("#/activities?organizationId=org-2&targetEntityId=task-7");
      const entities = await items.evaluateAll((els) => els.map((el) => el.getAttribute("data-id")));
      expect(entities.every((id) => Number(id?.slice(4)) % 10 === 7)).toBe(true);
    });

    it("expands a folder tree with access and inheritance, lists a folder's documents and grants per user", async () => {
      await api("/v2/organizations/folders/add", {
        organizationId: "org-3",
        createOrganization: true,
        folders: [
          { folderId: "f-a", folderName: "Alpha", accessType: "restricted" },
          { folderId: "f-b", folderName: "Beta", parentFolderId: "f-a" },
          { folderId: "f-c", folderName: "Gamma", parentFolderId: "f-b" },
        ],
      });
      await api("/v2/organizations/documents/add", {
        organizationId: "org-3",
        folderId: "f-b",
        documents: [{ documentId: "spec", documentName: "Spec" }],
      });
      await api("/v2/auth/permissions/add", {
        userId: "u-9",
        permissions: {
          resources: [{ type: "folder", id: "f-b", organizationId: "org-3", accessRole: "editor" }],
        },
      });

      await open(page, "#/folders?organizationId=no-such-org");
      await page.getByRole("alert").filter({ hasText: "Organization not found." }).first().waitFor();

      await open(page, "#/folders");
      await page.getByRole("link", { name: "org-3" }).click();
      const alpha = page.locator('li[data-folder="f-a"]');
      await alpha.waitFor();
      expect(await alpha.locator(":scope > .badge").textContent()).toBe("restricted (own)");
      expect(await page.locator('li[data-folder="f-b"]').count()).toBe(0);
      await page.getByRole("button", { name: "Expand Alpha" }).click();
      const beta = page.locator('li[data-folder="f-b"]');
      await beta.waitFor();
      expect(await beta.locator(":scope > .badge").textContent()).toBe("restricted (inherited)");
      await page.getByRole("button", { name: "Expand Beta" }).click();
      await page.locator('li[data-folder="f-c"]').waitFor();
      expect(await page.getByRole("button", { name: "Collapse Beta" }).getAttribute("aria-expanded")).toBe(
        "true",
      );

      await beta.getByRole("link", { name: "Beta", exact: true }).click();
      const panel = page.locator(".panel");
      await panel.getByRole("heading", { name: "Beta" }).waitFor();
      await panel.locator(".documents li").filter({ hasText: "Spec" }).waitFor();
      expect(await panel.locator(".facts").textContent()).toContain("root / f-a / f-b");
      await panel.getByLabel("User ids").fill("u-9, u-10");
      await panel.getByRole("button", { name: "Look up" }).click();
      const grant = panel.locator(".grants tbody tr");
      await grant.first().waitFor();
      expect(await grant.allTextContents()).toEqual(["u-9foldersf-beditor—"]);
      await shot("folders");

      await panel.getByRole("link", { name: "Activity" }).click();
      await page.getByText("No activities match these filters.").waitFor();
      expect(hashOf(page)).toBe("#/activities?organizationId=org-3&documentId=spec");
    });

    it("shows a document's notifications, and its comment threads below them", async () => {
      await api("/v2/notifications/add", {
        organizationId: "org-1",
        documentId: "doc-1",
        notificationId: "n-1",
        displayHeadlineMessageTemplate: "{{actionUser.name}} mentioned you",
        displayHeadlineMessageTemplateData: { actionUser: { name: "Ada" } },
        notifyUsers: [{ userId: "u-2" }],
      });
      await open(page, "#/notifications?organizationId=org-1&documentId=doc-1");
      await page.locator('li.notification[data-id="n-1"]').filter({ hasText: "Ada mentioned you" }).waitFor();
      await page.getByRole("heading", { name: "Comment threads" }).waitFor();
      await shot("notifications");
    });

    it("renders every value from the API as text: script, markup and javascript: payloads never run", async () => {
      await api("/v2/activities/add", {
        organizationId: "org-x",
        documentId: JS_URL,
        activities: [
          {
            id: "evil",
            featureType: "comment",
            actionType: SCRIPT,
            actionUser: { userId: JS_URL, name: IMG, email: SCRIPT },
            targetEntityId: JS_URL,
            displayMessageTemplate: `${SCRIPT} {{x}}`,
            displayMessageTemplateData: { x: IMG },
            actionIcon: JS_URL,
            changes: { [IMG]: { from: SCRIPT, to: JS_URL } },
          },
        ],
      });
      await api("/v2/organizations/folders/add", {
        organizationId: "org-x",
        createOrganization: true,
        folders: [{ folderId: JS_URL, folderName: IMG }],
      });
      await api("/v2/organizations/documents/add", {
        organizationId: "org-x",
        folderId: JS_URL,
        documents: [{ documentId: "d-x", documentName: SCRIPT }],
      });
      await api("/v2/notifications/add", {
        organizationId: "org-x",
        documentId: JS_URL,
        displayHeadlineMessageTemplate: SCRIPT,
        displayBodyMessage: IMG,
        notifyUsers: [{ userId: JS_URL }],
      });
      await api("/v2/workspace/webhookconfig/update", {
        webhookServiceConfig: {
          processedNotificationUrl: `${receiver.url}/p?q=<script>window.__pwned=1</script>`,
          triggers: { [IMG]: true },
        },
      });

      const safe = async () => {
        const state = await page.evaluate(`({
          pwned: window.__pwned ?? null,
          jsLinks: [...document.querySelectorAll("a")].filter((a) => /^\\s*javascript:/i.test(a.getAttribute("href") ?? "")).length,
          scripts: document.querySelectorAll("script").length,
          images: document.querySelectorAll("img").length,
        })`);
        expect(state).toEqual({ pwned: null, jsLinks: 0, scripts: 1, images: 0 });
      };
      await open(page, `#/activities?organizationId=org-x`);
      await page.locator('li.activity[data-id="evil"]').waitFor();
      expect(await page.locator(".message").first().textContent()).toBe(`${SCRIPT} ${IMG}`);
      expect(await page.locator(".changes").first().textContent()).toBe(`${IMG}${SCRIPT} → ${JS_URL}`);
      await safe();
      // The entity's timeline link is a hash link that carries the id as data.
      await page.getByRole("link", { name: "Entity timeline" }).click();
      await page.getByText("1 activities shown.").waitFor();
      await safe();

      await open(page, "#/folders?organizationId=org-x");
      await page.getByRole("link", { name: IMG }).click();
      await page.locator(".documents li").filter({ hasText: SCRIPT }).waitFor();
      await safe();

      await open(page, `#/notifications?organizationId=org-x`);
      await page.locator("li.notification").filter({ hasText: SCRIPT }).waitFor();
      await safe();

      await open(page, "#/webhook");
      await page.getByLabel(IMG, { exact: true }).waitFor();
      await safe();
      await open(page, "#/deliveries");
      await page.locator("tr.delivery").first().waitFor();
      await safe();
    });

    it("signs out with a clear message when its token is revoked", async () => {
      const { db } = s().services.database;
      const token = await issueToken(db, s().clock, s().creds.apiKey);
      const { page: other, problems: seen } = await openPage(browser);
      try {
        await signIn(other, s().url, { apiKey: s().creds.apiKey, authToken: token });
        await open(other, "#/deliveries");
        await other.locator("tr.delivery").first().waitFor();
        await revokeToken(db, s().creds.apiKey, token);
        await other.getByRole("button", { name: "Refresh" }).click();
        await other.getByRole("status").filter({ hasText: "You were signed out" }).waitFor();
        expect(await other.getByRole("status").textContent()).toContain("refused the API key or auth token");
        expect(await other.evaluate("sessionStorage.length")).toBe(0);
        await screenshot(other, s().dialect, "signed-out");
        expect(seen).toEqual([]);
      } finally {
        await other.context().close();
      }
    });
  },
  {
    env: { ...ALLOW_PRIVATE, COLLABD_WEBHOOK_RETRY_SCHEDULE: "0,1s,2s" },
    webhooks: { random: () => 0 },
  },
);
