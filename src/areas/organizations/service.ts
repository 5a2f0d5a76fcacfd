import type { Ctx } from "../../context.js";
import { invalidArgument } from "../../errors.js";
import { keysetTail, listLimit, nextPageToken } from "../../lib/paging.js";
import { checkQuotas } from "../../quotas/check.js";
import type { AddOrganizationsInput, GetOrganizationsInput } from "./schemas.js";
import * as store from "./store.js";

export interface OrganizationItemOutcome {
  readonly success: boolean;
  readonly id: string;
  readonly message: string;
}

/** Creates organizations; an existing id fails alone with `Organization already exists.`. */
export async function addOrganizations(
  ctx: Ctx,
  input: AddOrganizationsInput,
): Promise<Record<string, OrganizationItemOutcome>> {
  const seen = new Map<string, number>();
  input.organizations.forEach((o, index) => {
    const first = seen.get(o.organizationId);
    if (first !== undefined) {
      const field = `data.organizations[${index}].organizationId`;
      throw invalidArgument(`${field} repeats data.organizations[${first}].organizationId.`, [
        { field, message: "Each organizationId may appear once per request." },
      ]);
    }
    seen.set(o.organizationId, index);
  });
  const inserted = await ctx.write(async (trx) => {
    const inserted = await store.insertOrganizations(
      trx,
      ctx.workspace.id,
      input.organizations,
      ctx.clock.now(),
    );
    await checkQuotas(trx, ctx);
    return inserted;
  });
  return Object.fromEntries(
    input.organizations.map(({ organizationId: id }) => [
      id,
      inserted.has(id)
        ? { success: true, id, message: "Organization added." }
        : { success: false, id, message: "Organization already exists." },
    ]),
  );
}

export interface OrganizationPage {
  readonly organizations: store.Organization[];
  readonly pageToken: string;
}

/** Lists the workspace's organizations in organizationId order, keyset-paged (DESIGN §4). */
export async function getOrganizations(ctx: Ctx, input: GetOrganizationsInput): Promise<OrganizationPage> {
  const limit = listLimit(input.pageSize);
  const { pageToken, ...rest } = input;
  const query = { ...rest, pageSize: limit };
  let after: string | null = null;
  if (pageToken) {
    const [last] = ctx.pageTokens.open(ctx.workspace.id, query, pageToken, ctx.clock.now());
    if (typeof last !== "string") throw invalidArgument("Invalid page token.");
    after = last;
  }
  const rows = await store.listOrganizations(ctx.reader, ctx.workspace.id, {
    ids: input.organizationIds,
    after,
    limit,
  });
  const page = keysetTail(rows, limit, (last) => [last.organization_id]);
  return {
    organizations: page.rows.map(store.rowToOrganization),
    pageToken: nextPageToken(ctx, query, page.next),
  };
}
