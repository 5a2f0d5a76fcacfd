import type { Session } from "../api";
import { href, navigate } from "../route";
import { fillTemplate } from "../template";
import { asText, Empty, formValues, JsonPreview, ListFooter, splitList, Time, usePagedList } from "../ui";

interface Activity {
  id: string;
  featureType: string;
  actionType: string;
  actionUser?: { userId?: string; name?: string; email?: string };
  targetEntityId?: string;
  targetSubEntityId?: string;
  displayMessageTemplate?: string;
  displayMessageTemplateData?: Record<string, unknown>;
  changes?: Record<string, { from?: unknown; to?: unknown }>;
  entityData?: unknown;
  metadata: { organizationId: string; documentId?: string };
  timestamp: number;
}

const FEATURES = ["comment", "reaction", "recorder", "crdt", "custom"];

/** The activity log (docs/contract.md "Activities"): every filter, a timeline per document or entity, changes as from → to. */
export function Activities({ session, params }: { session: Session; params: URLSearchParams }) {
  const organizationId = params.get("organizationId") ?? "";
  const p = (name: string) => params.get(name) || undefined;
  const featureTypes = splitList(params.get("featureTypes"));
  const query = organizationId
    ? {
        organizationId,
        ...(p("documentId") ? { documentId: p("documentId") } : {}),
        ...(p("targetEntityId") ? { targetEntityId: p("targetEntityId") } : {}),
        ...(p("userId") ? { userId: p("userId") } : {}),
        ...(featureTypes ? { featureTypes } : {}),
        ...(splitList(p("actionTypes")) ? { actionTypes: splitList(p("actionTypes")) } : {}),
        ...(splitList(p("activityIds")) ? { activityIds: splitList(p("activityIds")) } : {}),
        order: p("order") ?? "desc",
        pageSize: Number(p("pageSize") ?? 100),
      }
    : null;
  const list = usePagedList<Activity>(session, "/v2/activities/get", query);
  const field = (name: string, label: string, placeholder = "") => (
    <label>
      {label}
      <input name={name} defaultValue={params.get(name) ?? ""} placeholder={placeholder} />
    </label>
  );

  return (
    <section aria-labelledby="activities-title">
      <h1 id="activities-title">Activity log</h1>
      <form
        class="filters"
        key={params.toString()}
        aria-label="Activity filters"
        onSubmit={(e) => {
          e.preventDefault();
          navigate("activities", formValues(e.currentTarget));
        }}
      >
        <label>
          Organization id
          <input name="organizationId" required defaultValue={organizationId} />
        </label>
        {field("documentId", "Document id")}
        {field("targetEntityId", "Entity id")}
        {field("userId", "User id")}
        {field("actionTypes", "Action types", "comment.add, …")}
        {field("activityIds", "Activity ids", "a, b, …")}
        <fieldset class="inline">
          <legend>Features</legend>
          {FEATURES.map((f) => (
            <label class="check" key={f}>
              <input
                type="checkbox"
                name="featureTypes"
                value={f}
                defaultChecked={featureTypes?.includes(f)}
              />
              {f}
            </label>
          ))}
        </fieldset>
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
        <label>
          Page size
          <input name="pageSize" type="number" min={1} max={1000} defaultValue={p("pageSize") ?? "100"} />
        </label>
        <button type="submit">Apply</button>
      </form>
      {!query && <Empty>Enter an organization id to read its activity log.</Empty>}
      {(p("documentId") || p("targetEntityId")) && (
        <p class="muted">
          Timeline of {p("documentId") ? `document ${p("documentId")}` : ""}
          {p("documentId") && p("targetEntityId") ? ", " : ""}
          {p("targetEntityId") ? `entity ${p("targetEntityId")}` : ""}.
        </p>
      )}
      <ol class="timeline">
        {list.items.map((a) => (
          <ActivityItem key={a.id} activity={a} />
        ))}
      </ol>
      <ListFooter list={list} noun="activities" />
    </section>
  );
}

function ActivityItem({ activity: a }: { activity: Activity }) {
  const org = a.metadata.organizationId;
  const doc = a.metadata.documentId;
  const user = a.actionUser;
  return (
    <li class="activity" data-id={a.id}>
      <div class="when">
        <Time ms={a.timestamp} />
      </div>
      <div class="what">
        <p class="headline">
          <span class="badge">{a.featureType}</span> <strong>{a.actionType}</strong>{" "}
          {user && (
            <span class="muted">
              by {user.name ?? user.userId ?? ""}
              {user.email ? ` <${user.email}>` : ""}
            </span>
          )}
        </p>
        {a.displayMessageTemplate && (
          <p class="message">
            {fillTemplate(a.displayMessageTemplate, a.displayMessageTemplateData, { ...a })}
          </p>
        )}
        {a.changes && Object.keys(a.changes).length > 0 && (
          <dl class="changes">
            {Object.entries(a.changes).map(([name, change]) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd>
                  <span class="from">{asText(change?.from)}</span> →{" "}
                  <span class="to">{asText(change?.to)}</span>
                </dd>
              </div>
            ))}
          </dl>
        )}
        <p class="links">
          <code>{a.id}</code>
          {doc && (
            <>
              {" · "}
              <a href={href("activities", { organizationId: org, documentId: doc })}>Document timeline</a>
            </>
          )}
          {a.targetEntityId && (
            <>
              {" · "}
              <a href={href("activities", { organizationId: org, targetEntityId: a.targetEntityId })}>
                Entity timeline
              </a>
            </>
          )}
          {doc && (
            <>
              {" · "}
              <a href={href("notifications", { organizationId: org, documentId: doc })}>Notifications</a>
            </>
          )}
        </p>
        {a.entityData !== undefined && (
          <details>
            <summary>Entity snapshot</summary>
            <JsonPreview value={a.entityData} limit={5000} />
          </details>
        )}
      </div>
    </li>
  );
}
