import type { Session } from "../api";
import { ListFooter, Time, usePagedList } from "../ui";

interface User {
  userId?: string;
  name?: string;
  email?: string;
}

interface Reaction {
  annotationId: string;
  icon: string;
  fromUsers: { from: User }[];
}

interface Comment {
  commentId: number;
  commentText?: string;
  from?: User;
  createdAt: number;
  reactionAnnotations?: Reaction[];
}

interface Thread {
  annotationId: string;
  annotationNumber: number;
  comments: Comment[];
  status: { id: string; name?: string };
  priority?: { id: string; name?: string };
  assignedTo?: User | null;
  lastUpdated: number;
}

const who = (user: User | null | undefined): string => user?.name || user?.email || user?.userId || "someone";

/**
 * A document's comment threads (docs/contract.md "Comments"), newest activity first: each
 * with its status, priority, assignee, comments and their reactions. Text only: a comment
 * is shown as written, never as markup.
 */
export function Threads({
  session,
  organizationId,
  documentId,
}: {
  session: Session;
  organizationId: string;
  documentId: string;
}) {
  const list = usePagedList<Thread>(session, "/v2/commentannotations/get", {
    organizationId,
    documentId,
    pageSize: 20,
  });
  return (
    <section aria-labelledby="threads-title">
      <h2 id="threads-title">Comment threads</h2>
      <ol class="timeline">
        {list.items.map((t) => (
          <li key={t.annotationId} class="thread" data-id={t.annotationId}>
            <div class="when">
              <Time ms={t.lastUpdated} />
            </div>
            <div class="what">
              <p class="headline">
                <strong>#{t.annotationNumber}</strong>{" "}
                <span class="badge status">{t.status.name || t.status.id}</span>
                {t.priority && <span class="badge priority">{t.priority.name || t.priority.id}</span>}{" "}
                <span class="assignee muted">
                  {t.assignedTo ? `assigned to ${who(t.assignedTo)}` : "unassigned"}
                </span>
              </p>
              <ol class="comments">
                {t.comments.map((c) => (
                  <li key={c.commentId} class="comment" data-id={String(c.commentId)}>
                    <p>
                      <strong class="author">{who(c.from)}</strong>:{" "}
                      <span class="text">{c.commentText ?? ""}</span>
                    </p>
                    {(c.reactionAnnotations ?? []).length > 0 && (
                      <p class="reactions">
                        {(c.reactionAnnotations ?? []).map((r) => (
                          <span
                            key={r.annotationId}
                            class="reaction"
                            title={r.fromUsers.map((u) => who(u.from)).join(", ")}
                          >
                            {r.icon} {r.fromUsers.length}
                          </span>
                        ))}
                      </p>
                    )}
                  </li>
                ))}
              </ol>
              <p class="links">
                <code>{t.annotationId}</code>
              </p>
            </div>
          </li>
        ))}
      </ol>
      <ListFooter list={list} noun="threads" />
    </section>
  );
}
