import type { Kysely } from "kysely";
import type { Tables, WebhookConfigRow } from "../db/tables.js";
import { lockedForUpdate, transaction } from "../db/transactions.js";
import { binding, seal, unseal } from "./sealed.js";
import { newSigningSecret } from "./signing.js";

type Db = Kysely<Tables>;

/** A workspace's webhook configuration, secrets opened (docs/contract.md "Webhook configuration"). */
export interface WebhookSettings {
  readonly enabled: boolean;
  readonly authToken: string | null;
  readonly rawNotificationUrl: string | null;
  readonly processedNotificationUrl: string | null;
  readonly encodeData: boolean;
  readonly encryptData: boolean;
  readonly publicKey: string | null;
  readonly triggers: Readonly<Record<string, boolean>>;
  /** Whether the first enable already turned on the default comment triggers. */
  readonly defaultsApplied: boolean;
  /** Stored and returned only (docs/compatibility.md "D15"). */
  readonly enableDataProtection: boolean;
  /** The shape of raw payloads, basic or advanced (docs/webhooks.md "Payloads"). */
  readonly payloadFormat: PayloadFormat;
}

export const PAYLOAD_FORMATS = ["basic", "advanced"] as const;
export type PayloadFormat = (typeof PAYLOAD_FORMATS)[number];

/** The secrets that sign right now: the current one, and the previous one while its grace lasts. */
export interface SigningSecrets {
  readonly current: string;
  readonly previous: string | null;
  readonly previousExpiresAt: number | null;
}

export function settingsFromRow(row: WebhookConfigRow, key: Buffer): WebhookSettings {
  return {
    enabled: row.enabled === 1,
    authToken:
      row.auth_token === null ? null : unseal(key, binding(row.workspace_id, "auth_token"), row.auth_token),
    rawNotificationUrl: row.raw_url,
    processedNotificationUrl: row.processed_url,
    encodeData: row.encode_data === 1,
    encryptData: row.encrypt_data === 1,
    publicKey: row.public_key,
    triggers: JSON.parse(row.triggers) as Record<string, boolean>,
    defaultsApplied: row.defaults_applied === 1,
    enableDataProtection: row.enable_data_protection === 1,
    payloadFormat: row.payload_format === "advanced" ? "advanced" : "basic",
  };
}

export function secretsFromRow(row: WebhookConfigRow, key: Buffer): SigningSecrets {
  const open = (column: string, value: string) => unseal(key, binding(row.workspace_id, column), value);
  return {
    current: open("signing_secret", row.signing_secret),
    previous:
      row.previous_signing_secret === null
        ? null
        : open("previous_signing_secret", row.previous_signing_secret),
    previousExpiresAt: row.previous_secret_expires_at,
  };
}

/** The secrets a delivery made at `now` is signed with, newest first. */
export function liveSecrets(secrets: SigningSecrets, now: number): string[] {
  const previousLive =
    secrets.previous !== null && secrets.previousExpiresAt !== null && secrets.previousExpiresAt > now;
  return previousLive ? [secrets.current, secrets.previous!] : [secrets.current];
}

/**
 * Makes sure the workspace has a configuration row, hence a signing secret, and returns
 * it. Concurrent first calls race on the primary key; the loser reads the winner's row.
 * `forUpdate` locks the row on PostgreSQL so read-modify-write updates do not interleave.
 */
export async function ensureConfigRow(
  db: Db,
  key: Buffer,
  workspaceId: string,
  now: number,
  options: { forUpdate?: boolean } = {},
): Promise<WebhookConfigRow> {
  await db
    .insertInto("webhook_configs")
    .values({
      workspace_id: workspaceId,
      enabled: 0,
      auth_token: null,
      raw_url: null,
      processed_url: null,
      encode_data: 0,
      encrypt_data: 0,
      public_key: null,
      triggers: "{}",
      defaults_applied: 0,
      enable_data_protection: 0,
      payload_format: "basic",
      signing_secret: seal(key, binding(workspaceId, "signing_secret"), newSigningSecret()),
      previous_signing_secret: null,
      previous_secret_expires_at: null,
      updated_at: now,
    })
    .onConflict((oc) => oc.column("workspace_id").doNothing())
    .execute();
  const query = db.selectFrom("webhook_configs").selectAll().where("workspace_id", "=", workspaceId);
  return (options.forUpdate ? lockedForUpdate(db, query) : query).executeTakeFirstOrThrow();
}

/** The workspace's configuration row if it has one yet (a pure read: see ensureConfigRow). */
export async function findConfigRow(db: Db, workspaceId: string): Promise<WebhookConfigRow | undefined> {
  return db
    .selectFrom("webhook_configs")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
}

export async function writeSettings(
  db: Db,
  key: Buffer,
  workspaceId: string,
  settings: WebhookSettings,
  now: number,
): Promise<void> {
  await db
    .updateTable("webhook_configs")
    .set({
      enabled: settings.enabled ? 1 : 0,
      auth_token:
        settings.authToken === null
          ? null
          : seal(key, binding(workspaceId, "auth_token"), settings.authToken),
      raw_url: settings.rawNotificationUrl,
      processed_url: settings.processedNotificationUrl,
      encode_data: settings.encodeData ? 1 : 0,
      encrypt_data: settings.encryptData ? 1 : 0,
      public_key: settings.publicKey,
      triggers: JSON.stringify(settings.triggers),
      defaults_applied: settings.defaultsApplied ? 1 : 0,
      enable_data_protection: settings.enableDataProtection ? 1 : 0,
      payload_format: settings.payloadFormat,
      updated_at: now,
    })
    .where("workspace_id", "=", workspaceId)
    .execute();
}

/** How long an old signing secret may keep signing after a rotation (CLI and HTTP alike). */
export const MAX_GRACE_MS = 30 * 86_400_000;

/**
 * Replaces the signing secret; the old one keeps signing until `now + graceMs`, so
 * receivers can switch without rejecting a single delivery. Returns the new secrets.
 */
export function rotateSigningSecret(
  db: Db,
  key: Buffer,
  workspaceId: string,
  now: number,
  graceMs: number,
): Promise<SigningSecrets> {
  return transaction(db, (trx) => rotateSigningSecretIn(trx, key, workspaceId, now, graceMs));
}

/** The same rotation inside the caller's write transaction (the HTTP verb's `ctx.write`). */
export async function rotateSigningSecretIn(
  trx: Db,
  key: Buffer,
  workspaceId: string,
  now: number,
  graceMs: number,
): Promise<SigningSecrets> {
  const row = await ensureConfigRow(trx, key, workspaceId, now, { forUpdate: true });
  const old = unseal(key, binding(workspaceId, "signing_secret"), row.signing_secret);
  const fresh = newSigningSecret();
  const keepOld = graceMs > 0;
  await trx
    .updateTable("webhook_configs")
    .set({
      signing_secret: seal(key, binding(workspaceId, "signing_secret"), fresh),
      previous_signing_secret: keepOld
        ? seal(key, binding(workspaceId, "previous_signing_secret"), old)
        : null,
      previous_secret_expires_at: keepOld ? now + graceMs : null,
      updated_at: now,
    })
    .where("workspace_id", "=", workspaceId)
    .execute();
  return {
    current: fresh,
    previous: keepOld ? old : null,
    previousExpiresAt: keepOld ? now + graceMs : null,
  };
}

/** Settings and secrets of several workspaces at once, as the worker needs them per claim. */
export async function loadSettings(
  db: Db,
  key: Buffer,
  workspaceIds: readonly string[],
): Promise<Map<string, { settings: WebhookSettings; secrets: SigningSecrets }>> {
  const out = new Map<string, { settings: WebhookSettings; secrets: SigningSecrets }>();
  if (workspaceIds.length === 0) return out;
  const rows = await db
    .selectFrom("webhook_configs")
    .selectAll()
    .where("workspace_id", "in", [...workspaceIds])
    .execute();
  for (const row of rows) {
    out.set(row.workspace_id, { settings: settingsFromRow(row, key), secrets: secretsFromRow(row, key) });
  }
  return out;
}
