import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";
import { launch, open, openPage, screenshot, signIn } from "./support/browser.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

forEachDialect("console: comment threads and rendered templates", (server) => {
  let page: Page;
  let problems: string[];
  const s = (): TestServer => server();
  const api = async (path: string, data: unknown) => {
    const res = await s().call(path, data);
    if (res.status !== 200) throw new Error(`${path}: ${JSON.stringify(res.body)}`);
    return res.body.result;
  };

  // A browser context of its own per test, signed in by the test: each passes alone and in any order.
  beforeEach(async () => {
    ({ page, problems } = await openPage(browser));
  });
  afterEach(async () => {
    await page?.context().close();
    expect(problems.splice(0)).toEqual([]);
  });

  it("shows a document's comment threads with their comments, status, priority, assignee and reactions", async () => {
    await signIn(page, s().url, s().creds);
    const where = { organizationId: "org-t", documentId: "doc-t" };
    await api("/v2/commentannotations/add", {
      ...where,
      commentAnnotations: [
        {
          annotationId: "thread-1",
          priority: { id: "P1", name: "High" },
          commentData: [
            { commentId: 1, commentText: "Are these figures final?", from: { userId: "u1", name: "Ada" } },
          ],
        },
        {
          annotationId: "thread-2",
          commentData: [{ commentId: 5, commentText: "Typo here.", from: { userId: "u3" } }],
        },
      ],
    });
    await api("/v2/commentannotations/comments/add", {
      ...where,
      annotationId: "thread-1",
      commentData: [{ commentId: 2, commentText: "<b>Yes.</b>", from: { userId: "u2", name: "Bob" } }],
    });
    for (const userId of ["u1", "u3"]) {
      await api("/v2/commentannotations/comments/reactions/add", {
        ...where,
        annotationId: "thread-1",
        commentId: 2,
        icon: "👍",
        from: { userId },
      });
    }
    await api("/v2/commentannotations/update", {
      ...where,
      annotationIds: ["thread-1"],
      updatedData: {
        status: { id: "RESOLVED", name: "Resolved", type: "terminal" },
        assignedTo: { userId: "u2", name: "Bob" },
      },
    });

    await open(page, `#/notifications?organizationId=org-t&documentId=doc-t`);
    const thread = page.locator('li.thread[data-id="thread-1"]');
    await thread.locator("li.comment").nth(1).waitFor();
    expect(await thread.locator(".status").textContent()).toBe("Resolved");
    expect(await thread.locator(".priority").textContent()).toBe("High");
    expect(await thread.locator(".assignee").textContent()).toBe("assigned to Bob");
    const comments = thread.locator("li.comment");
    expect(await comments.count()).toBe(2);
    expect(await comments.nth(0).textContent()).toContain("Ada: Are these figures final?");
    // As written: markup in a comment is text.
    expect(await comments.nth(1).locator(".text").textContent()).toBe("<b>Yes.</b>");
    expect(await comments.nth(1).locator(".reaction").textContent()).toBe("👍 2");
    const other = page.locator('li.thread[data-id="thread-2"]');
    expect(await other.locator(".status").textContent()).toBe("Open");
    expect(await other.locator(".assignee").textContent()).toBe("unassigned");
    expect(await other.locator("li.comment").textContent()).toContain("u3: Typo here.");
    expect(await page.textContent("body")).not.toContain("no comments area");
    await screenshot(page, s().dialect, "comment-threads");
  });

  it("renders activity and notification templates from the data the record carries", async () => {
    await signIn(page, s().url, s().creds);
    await api("/v2/activities/add", {
      organizationId: "org-r",
      documentId: "doc-r",
      activities: [
        {
          id: "moved",
          featureType: "custom",
          actionType: "moved",
          targetEntityId: "task-6",
          actionUser: { userId: "u1", name: "Ada" },
          displayMessageTemplate: "{{user}} moved task 6",
        },
        {
          id: "untold",
          featureType: "custom",
          actionType: "moved",
          targetEntityId: "task-7",
          actionUser: { userId: "u1" },
          displayMessageTemplate: "{{user}} moved {{task}}",
          displayMessageTemplateData: { task: { id: 7 } },
        },
      ],
    });
    await api("/v2/notifications/add", {
      organizationId: "org-r",
      documentId: "doc-r",
      notificationId: "n-single",
      actionUser: { userId: "u1", name: "Ada" },
      displayHeadlineMessageTemplate: "{actionUser} mentioned {recipientUser} in {doc.name}",
      displayHeadlineMessageTemplateData: {
        recipientUser: { userId: "u2", email: "bob@example.com" },
        doc: { name: "Q3" },
      },
      notifyUsers: [{ userId: "u2" }],
    });

    await open(page, "#/activities?organizationId=org-r&documentId=doc-r");
    await page
      .locator('li.activity[data-id="moved"] .message')
      .filter({ hasText: "Ada moved task 6" })
      .waitFor();
    // The acting user without a name reads as its id; a value that is no user reads as its JSON.
    expect(await page.locator('li.activity[data-id="untold"] .message').textContent()).toBe(
      'u1 moved {"id":7}',
    );

    await open(page, "#/notifications?organizationId=org-r&documentId=doc-r");
    const headline = page.locator('li.notification[data-id="n-single"] .headline');
    await headline.filter({ hasText: "Ada mentioned bob@example.com in Q3" }).waitFor();
    expect(await headline.textContent()).not.toMatch(/[{}]/);
  });
});
