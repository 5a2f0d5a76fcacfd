import type { Ctx } from "../../context.js";
import { invalidArgument } from "../../errors.js";
import { pageBounds } from "../../lib/bounds.js";
import { nextPageToken, openTimeSortKey } from "../../lib/paging.js";
import type { CountAnnotationsInput, GetAnnotationsInput } from "./schemas.js";
import * as store from "./store.js";

export interface AnnotationPage {
  /** `result.data` already serialized: stored threads spliced as they are. */
  readonly rawData: string;
  readonly pageToken: string;
}

/**
 * Threads of an organization narrowed by the filters given (AND), newest first unless
 * `order` is asc, keyset-paged (docs/contract.md "Comments"). With `annotationIds`: those threads in
 * request order, null for unknown ones, one page.
 */
export async function getAnnotations(ctx: Ctx, input: GetAnnotationsInput): Promise<AnnotationPage> {
  const scope = { workspaceId: ctx.workspace.id, organizationId: input.organizationId };
  const documentIds = mergeIds(input.documentId, input.documentIds);
  const agent = agentFilter(input);
  if (input.annotationIds) {
    const found = await store.findAnnotations(ctx.reader, scope, input.annotationIds);
    const inFolder =
      input.folderId === undefined
        ? null
        : await store.documentsInFolder(
            ctx.reader,
            scope,
            input.folderId,
            [...found.values()].map((f) => f.documentId),
          );
    const hits = input.annotationIds.map((id) => {
      const hit = found.get(id);
      const keep =
        hit && matches(hit, { ...input, documentIds, statusIds: mergeIds(input.statusId, input.statusIds) });
      return keep && (!inFolder || inFolder.has(hit.documentId)) ? hit : null;
    });
    if (input.groupByDocumentId) {
      const present = hits.filter((h) => h !== null);
      return {
        rawData: grouped(
          present.map((h) => h.text),
          present.map((h) => h.documentId),
        ),
        pageToken: "",
      };
    }
    return { rawData: `[${hits.map((h) => (h ? h.text : "null")).join(",")}]`, pageToken: "" };
  }
  const order = input.order ?? "desc";
  const bounds = pageBounds(ctx.config, input.pageSize);
  const { pageToken, ...rest } = input;
  const query = { ...rest, order, pageSize: bounds.limit };
  const after = openTimeSortKey(ctx, query, pageToken);
  const page = await store.listAnnotations(
    ctx.reader,
    {
      ...scope,
      documentIds,
      folderId: input.folderId,
      locationIds: input.locationIds,
      userIds: input.userIds,
      mentionedUserIds: input.mentionedUserIds,
      resolvedBy: input.resolvedBy,
      statusIds: mergeIds(input.statusId, input.statusIds),
      updatedAfter: input.updatedAfter,
      updatedBefore: input.updatedBefore,
      createdAfter: input.createdAfter,
      createdBefore: input.createdBefore,
      ...agent,
    },
    order,
    after,
    bounds,
  );
  return {
    rawData: input.groupByDocumentId ? grouped(page.records, page.documents) : `[${page.records.join(",")}]`,
    pageToken: nextPageToken(ctx, query, page.next),
  };
}

/** Threads and unread threads per requested document, zeros for those without any. */
export async function countAnnotations(
  ctx: Ctx,
  input: CountAnnotationsInput,
): Promise<Record<string, { total: number; unread: number }>> {
  const scope = { workspaceId: ctx.workspace.id, organizationId: input.organizationId };
  const counts = await store.countAnnotations(
    ctx.reader,
    scope,
    input.documentIds,
    input.userId,
    input.statusIds,
  );
  return Object.fromEntries(input.documentIds.map((id) => [id, counts.get(id) ?? { total: 0, unread: 0 }]));
}

const AGENT_FILTERS = [
  "agentId",
  "executionId",
  "agentType",
  "agentSource",
  "agentSuggestions",
  "agentComments",
] as const;

/** The one agent filter of a get (docs/contract.md "Comments": at most one per request) as store terms. */
function agentFilter(input: GetAnnotationsInput): Pick<store.ListFilter, "agent" | "agentThreadType"> {
  const given = AGENT_FILTERS.filter((key) => input[key] !== undefined);
  if (given.length > 1) {
    throw invalidArgument(`At most one agent filter per request; got ${given.join(", ")}.`, [
      { field: `data.${given[1]}`, message: "At most one of the agent filters." },
    ]);
  }
  if (input.agentId !== undefined) return { agent: { column: "agent_id", value: input.agentId } };
  if (input.executionId !== undefined)
    return { agent: { column: "agent_execution_id", value: input.executionId } };
  const source = input.agentSource ?? input.agentType;
  if (source !== undefined) return { agent: { column: "agent_source", value: source } };
  if (input.agentSuggestions === true) return { agentThreadType: "suggestion" };
  if (input.agentComments === true) return { agentThreadType: "comment" };
  return {};
}

/** The filters of get applied to one thread read by id (the other filters AND with annotationIds). */
function matches(
  hit: store.StoredAnnotation,
  f: Omit<GetAnnotationsInput, "documentIds" | "statusIds"> & {
    documentIds: string[] | undefined;
    statusIds: string[] | undefined;
  },
): boolean {
  const r = hit.record;
  const location = r.location?.id === undefined ? undefined : String(r.location.id);
  const checks = [
    !f.documentIds || f.documentIds.includes(hit.documentId),
    !f.locationIds || (location !== undefined && f.locationIds.includes(location)),
    !f.userIds || f.userIds.includes(r.from.userId),
    !f.mentionedUserIds || f.mentionedUserIds.some((id) => r.mentionedUserIds.includes(id)),
    f.resolvedBy === undefined || r.resolvedByUserId === f.resolvedBy,
    !f.statusIds || f.statusIds.includes(r.status.id),
    f.updatedAfter === undefined || r.lastUpdated > f.updatedAfter,
    f.updatedBefore === undefined || r.lastUpdated < f.updatedBefore,
    f.createdAfter === undefined || r.createdAt > f.createdAfter,
    f.createdBefore === undefined || r.createdAt < f.createdBefore,
    f.agentId === undefined || r.agent?.agentId === f.agentId,
    f.executionId === undefined || r.agent?.executionId === f.executionId,
    (f.agentSource ?? f.agentType) === undefined || r.agent?.agentSource === (f.agentSource ?? f.agentType),
    f.agentSuggestions !== true || (r.agent !== undefined && r.type === "suggestion"),
    f.agentComments !== true || (r.agent !== undefined && r.type === "comment"),
  ];
  return checks.every(Boolean);
}

/** A singular and a list form of one filter, as one list (absent when neither is given). */
function mergeIds(one: string | undefined, many: readonly string[] | undefined): string[] | undefined {
  if (one === undefined && many === undefined) return undefined;
  return [...new Set([...(one === undefined ? [] : [one]), ...(many ?? [])])];
}

/** `{documentId: [thread, …]}` from serialized threads and their documents, in page order. */
function grouped(records: readonly string[], documents: readonly string[]): string {
  const groups = new Map<string, string[]>();
  records.forEach((record, i) => {
    const key = documents[i]!;
    const list = groups.get(key) ?? [];
    list.push(record);
    groups.set(key, list);
  });
  return `{${[...groups].map(([doc, list]) => `${JSON.stringify(doc)}:[${list.join(",")}]`).join(",")}}`;
}
