/**
 * collabd's typed TypeScript client: openapi-fetch over the types generated from
 * `/openapi.json` (schema.ts). Every operation is `client.POST(path, { body: { data } })`;
 * the answer is `{ data, error, response }` with both bodies typed per operation.
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";

type Schemas = components["schemas"];
export type Activity = Schemas["Activity"];
export type NewActivity = Schemas["NewActivity"];
export type Recording = Schemas["Recording"];
export type Folder = Schemas["Folder"];
export type Notification = Schemas["Notification"];
export type Organization = Schemas["Organization"];
export type Document = Schemas["Document"];
export type UserAccess = Schemas["UserAccess"];
export type EffectiveAccess = Schemas["EffectiveAccess"];
export type User = Schemas["User"];
export type WebhookConfig = Schemas["WebhookConfig"];
export type WebhookDelivery = Schemas["WebhookDelivery"];
export type ErrorDetail = Schemas["ErrorDetail"];
export type JsonValue = Schemas["JsonValue"];

export type CollabdClient = Client<paths>;

export interface CollabdClientOptions extends Omit<ClientOptions, "baseUrl"> {
  /** e.g. `http://127.0.0.1:8080` */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly authToken: string;
}

/** A client whose every request carries the workspace's two headers. */
export function createCollabdClient(options: CollabdClientOptions): CollabdClient {
  const { apiKey, authToken, headers, ...rest } = options;
  return createClient<paths>({
    ...rest,
    headers: { ...headers, "x-svc-api-key": apiKey, "x-svc-auth-token": authToken },
  });
}
