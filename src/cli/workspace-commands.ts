import { inheritDefaultAccess } from "../areas/folders/tree.js";
import { ACCESS_TYPES, type AccessType } from "../areas/hierarchy/paths.js";
import { ownerEmail, setOwnerEmail } from "../areas/workspace-config/service.js";
import * as workspaces from "../areas/workspaces/service.js";
import type { WorkspaceSettings } from "../areas/workspaces/store.js";
import { contextFor, type Services, type Workspace } from "../context.js";
import { userTokenKey } from "../lib/keys.js";

export class UsageError extends Error {}

export type Flags = Record<string, string | boolean | undefined>;

/** Output of one command: a JSON object for `--json`, text lines otherwise. */
export interface Printed {
  readonly json: Record<string, unknown>;
  readonly text: string;
}

/** `workspace create|list|update|show` and `token issue|revoke` (docs/contract.md "Running the service"). */
export async function runWorkspaceCommand(
  services: Services,
  group: string,
  verb: string | undefined,
  flags: Flags,
): Promise<Printed> {
  const { db } = services.database;
  const key = () => required(flags, "api-key");
  switch (`${group} ${verb ?? ""}`) {
    case "workspace create": {
      const name = typeof flags.name === "string" ? flags.name : undefined;
      const created = await workspaces.createWorkspace(db, services.clock, name ? { name } : {});
      return {
        json: { ...describe(created.workspace), apiKey: created.apiKey, authToken: created.authToken },
        text: `Created workspace ${created.workspace.name}.\nx-svc-api-key:    ${created.apiKey}\nx-svc-auth-token: ${created.authToken}`,
      };
    }
    case "workspace update": {
      const settings: WorkspaceSettings = {};
      const activity = onOff(flags, "activity-service");
      const advanced = onOff(flags, "advanced-queries");
      const access = accessType(flags, "default-access-type");
      if (activity !== undefined) settings.activityService = activity;
      if (advanced !== undefined) settings.advancedQueries = advanced;
      if (access !== undefined) settings.defaultAccessType = access;
      const email = emailFlag(flags, "owner-email");
      if (Object.keys(settings).length === 0 && email === undefined) {
        throw new UsageError(
          "workspace update needs --activity-service on|off, --advanced-queries on|off, " +
            `--default-access-type ${ACCESS_TYPES.join("|")} or --owner-email E.`,
        );
      }
      const updated = await workspaces.updateSettings(db, key(), settings);
      if (access !== undefined) await inheritDefaultAccess(db, updated.id, access, services.clock.now());
      if (email !== undefined) await setOwnerEmail(contextFor(services, updated, "cli"), email);
      return shown(services, updated);
    }
    case "workspace list": {
      const all = await workspaces.listWorkspaces(db);
      const lines = all.map((w) => `${w.id}  ${new Date(w.createdAt).toISOString()}  ${w.name}`);
      return {
        json: { workspaces: all.map(describe) },
        text: all.length === 0 ? "No workspace." : ["x-svc-api-key  created  name", ...lines].join("\n"),
      };
    }
    case "workspace show":
      return shown(services, await workspaces.requireWorkspace(db, key()));
    case "token jwt-key": {
      const workspace = await workspaces.requireWorkspace(db, key());
      const jwtKey = userTokenKey(services.keys, workspace.id).toString("base64");
      return { json: { apiKey: workspace.id, jwtKey }, text: `jwt key (base64, HS256): ${jwtKey}` };
    }
    case "token issue": {
      const token = await workspaces.issueToken(db, services.clock, key());
      return { json: { apiKey: key(), authToken: token }, text: `x-svc-auth-token: ${token}` };
    }
    case "token revoke": {
      await workspaces.revokeToken(db, key(), required(flags, "token"));
      return { json: { apiKey: key(), revoked: true }, text: "Token revoked." };
    }
    default:
      throw new UsageError(`Unknown command: ${group} ${verb ?? ""}`.trim());
  }
}

/** A workspace's settings with its contact (kept with its API key configuration). */
async function shown(services: Services, workspace: Workspace): Promise<Printed> {
  const email = await ownerEmail(services.database.reader, workspace.id);
  return {
    json: { ...describe(workspace), ownerEmail: email },
    text: `${settingsText(workspace)}\nowner e-mail:     ${email ?? "-"}`,
  };
}

function describe(workspace: Workspace): Record<string, unknown> {
  return {
    apiKey: workspace.id,
    name: workspace.name,
    activityService: workspace.activityService,
    advancedQueries: workspace.advancedQueries,
    defaultAccessType: workspace.defaultAccessType,
    createdAt: workspace.createdAt,
  };
}

function settingsText(workspace: Workspace): string {
  const on = (flag: boolean) => (flag ? "on" : "off");
  return [
    `workspace:        ${workspace.name}`,
    `x-svc-api-key:    ${workspace.id}`,
    `activity service: ${on(workspace.activityService)}`,
    `advanced queries: ${on(workspace.advancedQueries)}`,
    `default access:   ${workspace.defaultAccessType}`,
  ].join("\n");
}

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required.`);
  return value;
}

/** An e-mail address: one @, no spaces, at most 320 characters. */
function emailFlag(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (typeof value === "string" && value.length <= 320 && /^[^\s@]+@[^\s@]+$/.test(value)) return value;
  throw new UsageError(`--${name} takes an e-mail address.`);
}

function onOff(flags: Flags, name: string): boolean | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (value === "on") return true;
  if (value === "off") return false;
  throw new UsageError(`--${name} takes on or off.`);
}

/** `--default-access-type` (docs/contract.md "Folders"): what top-level folders and folderless documents inherit. */
function accessType(flags: Flags, name: string): AccessType | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (typeof value === "string" && (ACCESS_TYPES as readonly string[]).includes(value))
    return value as AccessType;
  throw new UsageError(`--${name} takes ${ACCESS_TYPES.join(", ")}.`);
}
