import type { Session } from "../api";
import { href, navigate } from "../route";
import { fillTemplate } from "../template";
import { asText, Empty, formValues, JsonPreview, ListFooter, Time, usePagedList } from "../ui";
import { Threads } from "./threads";

interface Notification {
  id: string;
  notificationSource: string;
  displayHeadlineMessageTemplate: string;
  displayHeadlineMessageTemplateData?: Record<string, unknown>;
  displayBodyMessage?: string;
  actionUser?: { userId?: string; name?: string };
  /** Recipients: userId → true (docs/contract.md "Notifications"). */
  notifyUsers: Record<string, true>;
  readByUserIds: string[];
  notificationSourceData?: unknown;
  metadata: { organizationId: string; documentId?: string; locationId?: string };
  timestamp: number;
}

/** A document's notifications, and with a document id its comment threads (threads.tsx). */
export function Notifications({ session, params }: { session: Session; params: URLSearchParams }) {
  const p = (name: string) => params.get(name) || undefined;
  const organizationId = p("organizationId");
  const query = organizationId
    ? {
        organizationId,
        ...(p("documentId") ? { documentId: p("documentId") } : {}),
        ...(p("locationId") ? { locationId: p("locationId") } : {}),
        ...(p("userId") ? { userId: p("userId") } : {}),
        ...(p("unreadOnly") ? { unreadOnly: true } : {}),
        order: p("order") ?? "desc",
        pageSize: 50,
      }
    : null;
  const list = usePagedList<Notification>(session, "/v2/notifications/get", query);
  const field = (name: string, label: string, required = false) => (
    <label>
      {label}
      <input name={name} required={required} defaultValue={params.get(name) ?? ""} />
    </label>
  );
  return (
    <section aria-labelledby="notifications-title">
      <h1 id="notifications-title">Notifications</h1>
      <p class="muted">A document's notifications and, below them, its comment threads.</p>
      <form
        class="filters"
        key={params.toString()}
        aria-label="Notification filters"
        onSubmit={(e) => {
          e.preventDefault();
          navigate("notifications", formValues(e.currentTarget));
        }}
      >
        {field("organizationId", "Organization id", true)}
        {field("documentId", "Document id")}
        {field("locationId", "Location id")}
        {field("userId", "User id")}
        <label class="check">
          <input type="checkbox" name="unreadOnly" value="1" defaultChecked={Boolean(p("unreadOnly"))} />
          Unread only (needs a user id)
        </label>
        <label>
          Order
          <select name="order">
            <option value="desc" selected={p("order") !== "asc"}>
              newest first
            </option>
            <option value="asc" selected={p("order") === "asc"}>
              oldest first
            </option>
          </select>
        </label>
        <button type="submit">Apply</button>
      </form>
      {!query && <Empty>Enter an organization id (and a document id) to read notifications.</Empty>}
      {organizationId && p("documentId") && (
        <p>
          <a href={href("activities", { organizationId, documentId: p("documentId") })}>
            Activity of this document
          </a>
        </p>
      )}
      <ol class="timeline">
        {list.items.map((n) => (
          <li key={n.id} class="notification" data-id={n.id}>
            <div class="when">
              <Time ms={n.timestamp} />
            </div>
            <div class="what">
              <p class="headline">
                <span class="badge">{n.notificationSource}</span>{" "}
                {fillTemplate(n.displayHeadlineMessageTemplate, n.displayHeadlineMessageTemplateData, {
                  ...n,
                })}
              </p>
              {n.displayBodyMessage && <p class="message">{n.displayBodyMessage}</p>}
              <p class="muted">
                To {Object.keys(n.notifyUsers).join(", ") || "nobody"}; read by{" "}
                {n.readByUserIds.join(", ") || "nobody"}
                {n.metadata.documentId ? `; document ${n.metadata.documentId}` : ""}
                {n.metadata.locationId ? `; location ${n.metadata.locationId}` : ""}
              </p>
              {n.notificationSourceData !== undefined && (
                <details>
                  <summary>Source data</summary>
                  <JsonPreview value={n.notificationSourceData} limit={5000} />
                </details>
              )}
              <p class="links">
                <code>{asText(n.id)}</code>
              </p>
            </div>
          </li>
        ))}
      </ol>
      <ListFooter list={list} noun="notifications" />
      {organizationId && p("documentId") && (
        <Threads session={session} organizationId={organizationId} documentId={p("documentId")!} />
      )}
    </section>
  );
}
