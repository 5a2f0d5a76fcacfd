import type { Ctx } from "../../context.js";
import { ApiError, invalidArgument } from "../../errors.js";
import { type Location, locationKey } from "../../lib/locations.js";
import { checkQuotas } from "../../quotas/check.js";
import { organizationsWithDocument } from "../comments/store.js";
import { isTokenOf } from "../workspaces/service.js";
import { type LocationSubject, runOrStartJob } from "./job.js";
import type { DeleteLocationDataInput, UpdateLocationInput } from "./schemas.js";

/**
 * Rewrites a location in every stored record of the document that carries it
 * (docs/compatibility.md, locations): comment threads whose location has every field of
 * `oldLocation` get `newLocation` (merged or in its place), notifications under its id get
 * the new id. A document with more than one batch of them is finished by a durable job.
 */
export async function updateLocation(ctx: Ctx, input: UpdateLocationInput): Promise<void> {
  await checkBodyCredentials(ctx, input);
  const location = requireId(input.migrate.oldLocation, "data.migrate.oldLocation");
  for (const organizationId of await organizationsOf(ctx, input)) {
    await run(ctx, {
      organizationId,
      documentId: input.documentId,
      location,
      update: { newLocation: input.migrate.newLocation as Location, merge: input.merge ?? false },
    });
  }
}

/** Deletes the comment threads and notifications of a location in the document, as updateLocation finds them. */
export async function deleteLocationData(ctx: Ctx, input: DeleteLocationDataInput): Promise<void> {
  await checkBodyCredentials(ctx, input);
  const location = requireId(input.location, "data.location");
  for (const organizationId of await organizationsOf(ctx, input)) {
    await run(ctx, { organizationId, documentId: input.documentId, location });
  }
}

async function run(ctx: Ctx, subject: LocationSubject): Promise<void> {
  const job = await ctx.write(async (trx) => {
    const id = await runOrStartJob(trx, ctx, subject);
    // An update's job rows count against the quotas; a delete always goes through.
    if (id !== null && subject.update) await checkQuotas(trx, ctx);
    return id;
  }, 2 * ctx.config.erasureBatchRows);
  // After the commit: a kick before it would find no job yet.
  if (job !== null) ctx.jobs.kick();
}

function organizationsOf(
  ctx: Ctx,
  input: { organizationId?: string; documentId: string },
): Promise<string[]> {
  if (input.organizationId !== undefined) return Promise.resolve([input.organizationId]);
  return organizationsWithDocument(ctx.reader, ctx.workspace.id, input.documentId);
}

function requireId(location: object, field: string): Location {
  if (locationKey(location as Location) === null)
    throw invalidArgument(`${field}.id is required: locations are matched by their id.`, [
      { field: `${field}.id`, message: "Missing location id." },
    ]);
  return location as Location;
}

/**
 * The original's v1 location pages also take the credentials in the body: when sent, the API
 * key must be the header's and the token one of its tokens (compared as hashes, in constant time).
 */
async function checkBodyCredentials(ctx: Ctx, input: { apiKey?: string; authToken?: string }): Promise<void> {
  if (input.apiKey !== undefined && input.apiKey !== ctx.workspace.id)
    throw new ApiError("UNAUTHENTICATED", "data.apiKey does not match the x-svc-api-key header.");
  if (input.authToken === undefined) return;
  if (!(await isTokenOf(ctx.reader, ctx.workspace.id, input.authToken)))
    throw new ApiError("UNAUTHENTICATED", "data.authToken is not an auth token of this API key.");
}
