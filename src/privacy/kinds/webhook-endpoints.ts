import type { EndpointSettings } from "../../webhooks/endpoints.js";
import type { PersonalDataKind } from "../kind.js";
import { scrub } from "../scrub.js";

/**
 * Advanced webhook endpoints whose `metadata` or `description` names the user (an owner's id
 * stored as a metadata value): scrubbed in place (scrub.ts), the endpoint kept. Endpoints
 * belong to the workspace, not an organization, so every job looks at them. At most the
 * endpoint cap of rows (each parsed: a mention token in a description is not found by a
 * LIKE of the quoted id), walked by id in batches. Erase only: endpoints are configuration,
 * not records about the user, so users/data/get does not export them (docs/privacy.md).
 */
export const webhookEndpoints: PersonalDataKind = {
  name: "webhookEndpoints",
  async erase(tx, scope, after, batch) {
    let query = tx
      .selectFrom("webhook_endpoints")
      .select(["id", "settings"])
      .where("workspace_id", "=", scope.workspaceId)
      .orderBy("id")
      .limit(batch);
    if (after !== null && after.length > 0) query = query.where("id", ">", String(after[0]));
    const rows = await query.execute();
    let erased = 0;
    for (const row of rows) {
      const settings = JSON.parse(row.settings) as EndpointSettings;
      const mentioned = { description: settings.description, metadata: settings.metadata };
      const cleaned = scrub(mentioned, scope.userId, scope.pseudonym);
      if (cleaned === mentioned) continue;
      await tx
        .updateTable("webhook_endpoints")
        .set({ settings: JSON.stringify({ ...settings, ...(cleaned as object) }) })
        .where("workspace_id", "=", scope.workspaceId)
        .where("id", "=", row.id)
        .execute();
      erased += 1;
    }
    return { erased, next: rows.length < batch ? null : [rows.at(-1)!.id] };
  },
};
