import { useState } from "preact/hooks";
import { call, type Session } from "../api";
import { href, navigate } from "../route";
import { asText, ErrorBox, formValues, JsonPreview, ListFooter, Time, usePagedList } from "../ui";

interface Attempt {
  attempt: number;
  startedAt: number;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
}

export interface Delivery {
  webhookId: string;
  eventId: string;
  event: string;
  kind: string;
  url: string;
  /** The advanced webhook endpoint it goes to; null for the configuration's two URLs. */
  endpointId: string | null;
  status: string;
  attemptCount: number;
  lastHttpStatus: number | null;
  lastError: string | null;
  nextAttemptAt: number | null;
  createdAt: number;
  attempts: Attempt[];
  payload?: unknown;
}

const STATUSES = ["pending", "delivering", "succeeded", "failed"];
const PATH = "/v2/workspace/webhooks/deliveries/get";

/** The delivery log: filter, read attempts and payloads, retry one or many. */
export function Deliveries({ session, params }: { session: Session; params: URLSearchParams }) {
  const status = params.get("status") ?? "";
  const event = params.get("event") ?? "";
  const id = params.get("id") ?? "";
  const endpoint = params.get("endpoint") ?? "";
  const list = usePagedList<Delivery>(session, PATH, {
    ...(endpoint ? { endpointId: endpoint } : {}),
    ...(status ? { status } : {}),
    ...(event ? { event } : {}),
    ...(id ? { deliveryIds: [id] } : {}),
    pageSize: 50,
  });
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [open, setOpen] = useState<string | null>(id || null);
  const [outcome, setOutcome] = useState<{ id: string; success: boolean; message: string }[]>([]);
  const [retryError, setRetryError] = useState<unknown>(null);

  const retry = async (ids: string[]) => {
    setRetryError(null);
    try {
      const result = await call<Record<string, { success: boolean; message: string }>>(
        session,
        "/v2/workspace/webhooks/deliveries/retry",
        { deliveryIds: ids },
      );
      setOutcome(Object.entries(result.data).map(([key, value]) => ({ id: key, ...value })));
      setSelected(new Set());
      list.reload();
    } catch (e) {
      setRetryError(e);
    }
  };
  const toggle = (deliveryId: string) => {
    const next = new Set(selected);
    if (next.has(deliveryId)) next.delete(deliveryId);
    else next.add(deliveryId);
    setSelected(next);
  };

  return (
    <section aria-labelledby="deliveries-title">
      <h1 id="deliveries-title">Webhook deliveries</h1>
      <form
        class="filters"
        key={params.toString()}
        aria-label="Delivery filters"
        onSubmit={(e) => {
          e.preventDefault();
          navigate("deliveries", formValues(e.currentTarget));
        }}
      >
        <label>
          Status
          <select name="status">
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s} selected={s === status}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Event
          <input name="event" defaultValue={event} placeholder="comment.add" />
        </label>
        <label>
          Delivery id
          <input name="id" defaultValue={id} placeholder="msg_…" />
        </label>
        <label>
          Endpoint
          <input name="endpoint" defaultValue={endpoint} placeholder="ep_…" />
        </label>
        <button type="submit">Apply</button>
        <button type="button" onClick={() => list.reload()}>
          Refresh
        </button>
      </form>

      <div class="toolbar">
        <button type="button" disabled={selected.size === 0} onClick={() => void retry([...selected])}>
          Retry selected ({selected.size})
        </button>
      </div>
      <ErrorBox error={retryError} />
      {outcome.length > 0 && (
        <ul class="outcome" role="status">
          {outcome.map((o) => (
            <li key={o.id} class={o.success ? "ok" : "bad"}>
              <code>{o.id}</code>: {o.message}
            </li>
          ))}
        </ul>
      )}

      <div class="table-wrap">
        <table class="cards-on-phone">
          <thead>
            <tr>
              <th scope="col">
                <span class="sr-only">Select</span>
              </th>
              <th scope="col">Status</th>
              <th scope="col">Event</th>
              <th scope="col">URL</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last result</th>
              <th scope="col">Created</th>
              <th scope="col">Next attempt</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((d) => (
              <DeliveryRow
                key={d.webhookId}
                session={session}
                delivery={d}
                selected={selected.has(d.webhookId)}
                open={open === d.webhookId}
                onSelect={() => toggle(d.webhookId)}
                onOpen={() => setOpen(open === d.webhookId ? null : d.webhookId)}
                onRetry={() => void retry([d.webhookId])}
              />
            ))}
          </tbody>
        </table>
      </div>
      <ListFooter list={list} noun="deliveries" />
    </section>
  );
}

interface RowProps {
  session: Session;
  delivery: Delivery;
  selected: boolean;
  open: boolean;
  onSelect(): void;
  onOpen(): void;
  onRetry(): void;
}

function DeliveryRow({ session, delivery: d, selected, open, onSelect, onOpen, onRetry }: RowProps) {
  return (
    <>
      <tr class={`delivery status-${d.status}`} data-id={d.webhookId}>
        <td data-label="Select">
          <input
            type="checkbox"
            checked={selected}
            onChange={onSelect}
            aria-label={`Select delivery ${d.webhookId}`}
          />
        </td>
        <td data-label="Status">
          <span class={`badge ${d.status}`}>{d.status}</span>
        </td>
        <td data-label="Event">
          {d.event} <span class="muted">({d.kind})</span>
        </td>
        <td data-label="URL" class="url">
          <code>{d.url}</code>
          {d.endpointId ? (
            <div class="muted endpoint">
              endpoint <code>{d.endpointId}</code>
            </div>
          ) : null}
        </td>
        <td data-label="Attempts">{d.attemptCount}</td>
        <td data-label="Last result">
          {d.lastHttpStatus !== null ? `HTTP ${d.lastHttpStatus}` : ""}
          {d.lastError ? <span class="muted"> {d.lastError}</span> : null}
        </td>
        <td data-label="Created">
          <Time ms={d.createdAt} />
        </td>
        <td data-label="Next attempt">
          <Time ms={d.nextAttemptAt} />
        </td>
        <td data-label="Actions" class="actions">
          <button type="button" aria-expanded={open} onClick={onOpen}>
            Details
          </button>
          <button type="button" onClick={onRetry}>
            Retry
          </button>
        </td>
      </tr>
      {open && (
        <tr class="details">
          <td colSpan={9}>
            <DeliveryDetails session={session} delivery={d} />
          </td>
        </tr>
      )}
    </>
  );
}

function DeliveryDetails({ session, delivery: d }: { session: Session; delivery: Delivery }) {
  const withPayload = usePagedList<Delivery>(session, PATH, {
    deliveryIds: [d.webhookId],
    includePayload: true,
  });
  const payload = withPayload.items[0]?.payload as
    | { metadata?: { organizationId?: unknown; documentId?: unknown } }
    | undefined;
  const documentId = asText(payload?.metadata?.documentId);
  const organizationId = asText(payload?.metadata?.organizationId);
  return (
    <div class="delivery-details">
      <p>
        Delivery <code>{d.webhookId}</code> of event <code>{d.eventId}</code>
      </p>
      <h3>Attempts</h3>
      {d.attempts.length === 0 ? (
        <p class="empty">No attempt yet.</p>
      ) : (
        <table class="attempts cards-on-phone">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Time</th>
              <th scope="col">HTTP status</th>
              <th scope="col">Latency</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {d.attempts.map((a) => (
              <tr key={a.attempt}>
                <td data-label="#">{a.attempt}</td>
                <td data-label="Time">
                  <Time ms={a.startedAt} />
                </td>
                <td data-label="HTTP status">{a.httpStatus ?? "—"}</td>
                <td data-label="Latency">{a.durationMs} ms</td>
                <td data-label="Error">{a.error ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Payload</h3>
      <ErrorBox error={withPayload.error} />
      {withPayload.loading && <p class="muted">Loading…</p>}
      {payload !== undefined && <JsonPreview value={payload} />}
      {documentId && organizationId && (
        <p>
          <a href={href("activities", { organizationId, documentId })}>Activity of this document</a>
          {" · "}
          <a href={href("notifications", { organizationId, documentId })}>Notifications of this document</a>
        </p>
      )}
    </div>
  );
}
