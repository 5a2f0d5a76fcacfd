import type { Ctx } from "../../context.js";
import type { WriteTx } from "../../db/handles.js";
import type { ActivityRow } from "../../db/tables.js";
import type { User } from "../../http/user.js";
import { checkRecordSize } from "../../lib/bounds.js";
import { upsertDelta } from "../../quotas/by-verbs.js";
import { chargeUsage } from "../../quotas/check.js";
import type { CommentTrigger } from "../../webhooks/comment-payloads.js";
import { emitEvents, type OutboxEvent } from "../../webhooks/outbox.js";
import { usersWithDocumentAccess } from "../access/check.js";
import { upsertActivities } from "../activities/store.js";
import { findDocument } from "../hierarchy/documents.js";
import { composeNotification } from "../notifications/compose.js";
import { writeNotification } from "../notifications/write.js";
import { storedActivityConfig, triggersActivity } from "../workspace-config/service.js";
import type { AnnotationRecord, CommentRecord } from "./objects.js";
import { notifyThroughService, threadSummary } from "./service-notifications.js";
import { restrictedViewers } from "./visibility.js";

type Json = Record<string, unknown>;

interface PendingEvent {
  readonly event: CommentTrigger;
  readonly annotation: AnnotationRecord;
  readonly targetComment?: CommentRecord | undefined;
  readonly actionUser?: User | undefined;
  readonly specifics?: Json | undefined;
}

interface PendingActivity {
  /** `triggerActivities` asked for it; otherwise written only where the event's activity trigger is on. */
  readonly requested: boolean;
  readonly event: CommentTrigger;
  readonly annotation: AnnotationRecord;
  readonly actionUser: User;
  readonly commentId?: number | undefined;
  readonly changes?: Json | undefined;
}

/**
 * The effects of one comment operation on one document (docs/architecture.md "Conventions"), collected while the
 * verb works and written by `flush` in the verb's transaction: webhook outbox events
 * (docs/webhooks.md "Payloads"), activity records (`featureType: comment`, docs/contract.md "Comments", never emitting) and
 * notifications for subscribers, mentioned users and new assignees.
 */
export class Effects {
  private readonly events: PendingEvent[] = [];
  /** Every comment event, emitted or not: what the notification service's triggers act on. */
  private readonly happenings: PendingEvent[] = [];
  private readonly activities: PendingActivity[] = [];
  private readonly notices: {
    users: User[];
    actionUser: User;
    annotation: AnnotationRecord;
    headline: string;
  }[] = [];

  constructor(
    private readonly ctx: Ctx,
    private readonly organizationId: string,
    private readonly documentId: string,
  ) {}

  event(pending: PendingEvent): void {
    this.events.push(pending);
  }

  /** Records that an event happened, whatever `triggerNotification` says (service-notifications.ts). */
  happened(pending: PendingEvent): void {
    this.happenings.push(pending);
  }

  activity(pending: PendingActivity): void {
    this.activities.push(pending);
  }

  /** Notifies `users` other than the acting user (`triggerNotification`: docs/contract.md "Comments"). */
  notify(users: readonly User[], actionUser: User, annotation: AnnotationRecord, headline: string): void {
    const others = users.filter((u) => u.userId !== actionUser.userId);
    if (others.length > 0) this.notices.push({ users: others, actionUser, annotation, headline });
  }

  async flush(trx: WriteTx): Promise<void> {
    await this.writeEvents(trx);
    await this.writeActivities(trx);
    // With the notification service on, its triggers notify instead of `triggerNotification`.
    const scope = { organizationId: this.organizationId, documentId: this.documentId };
    if (await notifyThroughService(trx, this.ctx, scope, this.happenings)) return;
    for (const [index, notice] of this.notices.entries()) {
      const { row, recipients } = composeNotification(
        this.ctx,
        {
          organizationId: this.organizationId,
          documentId: this.documentId,
          notificationSource: "comment",
          actionUser: notice.actionUser,
          displayHeadlineMessageTemplate: `{{actionUser.name}} ${notice.headline}`,
          displayHeadlineMessageTemplateData: { actionUser: notice.actionUser },
          notificationSourceData: threadSummary(notice.annotation),
          notifyUsers: notice.users,
        },
        `notification ${index}`,
      );
      await writeNotification(trx, this.ctx, row, recipients);
    }
  }

  private async writeEvents(trx: WriteTx): Promise<void> {
    if (this.events.length === 0) return;
    const { ctx, organizationId, documentId } = this;
    const document = await findDocument(trx, ctx.workspace.id, organizationId, documentId);
    const subscribers = new Set(this.events.flatMap((e) => Object.keys(e.annotation.subscribedUsers)));
    const allowed = await usersWithDocumentAccess(
      trx,
      ctx.workspace.id,
      organizationId,
      documentId,
      [...subscribers],
      ctx.clock.now(),
    );
    const viewers = await restrictedViewers(
      trx,
      { workspaceId: ctx.workspace.id, organizationId },
      this.events.map((e) => e.annotation),
      [...subscribers],
    );
    const timestamp = ctx.clock.now();
    const events = this.events.map(
      (e): OutboxEvent => ({
        type: "comment",
        event: e.event,
        organizationId,
        documentId,
        documentName: document?.name ?? undefined,
        folderId: document?.folder_id ?? undefined,
        commentAnnotation: e.annotation as unknown as Json,
        targetComment: e.targetComment as unknown as Json | undefined,
        actionUser: e.actionUser,
        specifics: e.specifics,
        accessDeniedUsers: deniedUsers(e.annotation, allowed, viewers(e.annotation)),
        timestamp,
      }),
    );
    await emitEvents(trx, ctx, events);
  }

  /**
   * Activities only where the workspace keeps them (its activity service), counted like
   * activities add: those `triggerActivities` asked for, and those the workspace's activity
   * triggers write by themselves (docs/compatibility.md "Workspace configuration").
   */
  private async writeActivities(trx: WriteTx): Promise<void> {
    const { ctx } = this;
    if (this.activities.length === 0 || !ctx.workspace.activityService) return;
    const config = await storedActivityConfig(trx, ctx.workspace.id);
    const wanted = this.activities.filter((a) => a.requested || triggersActivity(config, a.event));
    if (wanted.length === 0) return;
    const timestamp = ctx.clock.now();
    const rows = wanted.map((a, index): ActivityRow => {
      const id = ctx.ids();
      const record = JSON.stringify({
        id,
        featureType: "comment",
        actionType: a.event,
        actionUser: a.actionUser,
        targetEntityId: a.annotation.annotationId,
        ...(a.commentId !== undefined ? { targetSubEntityId: String(a.commentId) } : {}),
        ...(a.changes ? { changes: a.changes } : {}),
        metadata: {
          apiKey: ctx.workspace.id,
          documentId: this.documentId,
          organizationId: this.organizationId,
        },
        timestamp,
      });
      checkRecordSize(ctx.config, record, `activity ${index}`);
      return {
        workspace_id: ctx.workspace.id,
        organization_id: this.organizationId,
        id,
        document_id: this.documentId,
        target_entity_id: a.annotation.annotationId,
        feature_type: "comment",
        action_type: a.event,
        user_id: a.actionUser.userId,
        timestamp,
        record,
        immutable: config?.immutable === true ? 1 : 0,
      };
    });
    const usage = await upsertDelta(trx, rows, []);
    await upsertActivities(trx, rows);
    await chargeUsage(trx, ctx, usage);
  }
}

/**
 * Subscribers who cannot see the thread (docs/webhooks.md "Payloads"): outside a restricted thread's users and groups,
 * or without access to the document (docs/contract.md "Access").
 */
function deniedUsers(
  annotation: AnnotationRecord,
  allowed: ReadonlySet<string>,
  listed: ReadonlySet<string> | null,
): string[] {
  return Object.keys(annotation.subscribedUsers).filter(
    (id) => !allowed.has(id) || (listed && !listed.has(id)),
  );
}
