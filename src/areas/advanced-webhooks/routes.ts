import { operation } from "../../http/operation.js";
import {
  AdvancedWebhookConfig,
  CreateEndpoint,
  DeletedEndpoint,
  Endpoint,
  EndpointIdOnly,
  EndpointPage,
  EndpointSecret,
  GetAdvancedWebhookConfig,
  GetEndpoints,
  UpdateAdvancedWebhookConfig,
  UpdateEndpoint,
} from "./schemas.js";
import * as service from "./service.js";

const TAG = "Advanced webhooks";

/** The endpoint the examples create, update, read and delete, in that order. */
const EXAMPLE_ENDPOINT = {
  id: "ep_2mN4yQ8cKd3vXw9ZbT5rLp",
  url: "https://hooks.example.com/collabd",
  description: "CRM sync",
  filterTypes: ["comment.add" as const, "comment_annotation.status_change" as const],
  channels: ["org-1"],
  disabled: false,
  rateLimit: 10,
  uid: "crm-sync",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  metadata: { team: "sales" },
  disabledReason: null,
  failingSince: null,
};

const GATED =
  " Needs advanced webhooks enabled (FAILED_PRECONDITION otherwise); `endpointId` may be the endpoint's `id` or its `uid`.";

export const advancedWebhookOperations = [
  operation({
    path: "/v2/workspace/advancedwebhookconfig/update",
    operationId: "advancedWebhookConfigUpdate",
    tag: TAG,
    summary: "Update advanced webhook configuration",
    description:
      "Partial update of the advanced webhook switch and payload format; at least one field. The first " +
      "update must set `isEnabled: true` (FAILED_PRECONDITION otherwise). Answers the whole configuration.",
    data: UpdateAdvancedWebhookConfig,
    result: AdvancedWebhookConfig,
    example: {
      data: { isEnabled: true },
      message: "Advanced webhook configuration updated successfully.",
      result: {
        isEnabled: true,
        encryptData: false,
        encodeData: false,
        publicKey: "",
        enableDataProtection: false,
      },
    },
    handle: async (ctx, data) => ({
      message: "Advanced webhook configuration updated successfully.",
      data: await service.updateConfig(ctx, data),
    }),
  }),
  operation({
    path: "/v2/workspace/advancedwebhookconfig/get",
    operationId: "advancedWebhookConfigGet",
    tag: TAG,
    summary: "Get advanced webhook configuration",
    description:
      'The advanced webhook switch and payload format; every field false or `""` until the first enable.',
    data: GetAdvancedWebhookConfig,
    bodyOptional: true,
    result: AdvancedWebhookConfig,
    example: {
      data: {},
      message: "Advanced webhook configuration retrieved successfully.",
      result: {
        isEnabled: true,
        encryptData: false,
        encodeData: false,
        publicKey: "",
        enableDataProtection: false,
      },
    },
    handle: async (ctx) => ({
      message: "Advanced webhook configuration retrieved successfully.",
      data: await service.getConfig(ctx),
    }),
  }),
  operation({
    path: "/v2/workspace/advancedwebhook/endpoints/create",
    operationId: "advancedWebhookEndpointsCreate",
    tag: TAG,
    summary: "Create an advanced webhook endpoint",
    description:
      "A new endpoint with its own `whsec_` signing secret (generated; read it with secret/get). At most " +
      "`COLLABD_WEBHOOK_ENDPOINTS_MAX` (50) per workspace (RESOURCE_EXHAUSTED beyond); a taken `uid` is " +
      "ALREADY_EXISTS; a bad URL is INVALID_ARGUMENT `url must be a valid http(s) URL.`." +
      GATED,
    data: CreateEndpoint,
    result: Endpoint,
    example: {
      data: {
        url: EXAMPLE_ENDPOINT.url,
        description: EXAMPLE_ENDPOINT.description,
        filterTypes: EXAMPLE_ENDPOINT.filterTypes,
        channels: EXAMPLE_ENDPOINT.channels,
        rateLimit: 10,
        uid: "crm-sync",
        metadata: { team: "sales" },
      },
      message: "Advanced webhook endpoint created successfully.",
      result: EXAMPLE_ENDPOINT,
    },
    handle: async (ctx, data) => ({
      message: "Advanced webhook endpoint created successfully.",
      data: await service.createEndpoint(ctx, data),
    }),
  }),
  operation({
    path: "/v2/workspace/advancedwebhook/endpoints/get",
    operationId: "advancedWebhookEndpointsGet",
    tag: TAG,
    summary: "Get advanced webhook endpoints",
    description:
      "The workspace's endpoints, oldest first, `limit` (1–250, default 50) per page; while `done` is " +
      "false, send `iterator` back for the next page." +
      GATED,
    data: GetEndpoints,
    result: EndpointPage,
    example: {
      data: { limit: 10 },
      message: "Advanced webhook endpoints retrieved successfully.",
      result: { endpoints: [EXAMPLE_ENDPOINT], iterator: null, prevIterator: null, done: true },
    },
    handle: async (ctx, data) => ({
      message: "Advanced webhook endpoints retrieved successfully.",
      data: await service.getEndpoints(ctx, data),
    }),
  }),
  operation({
    path: "/v2/workspace/advancedwebhook/endpoints/update",
    operationId: "advancedWebhookEndpointsUpdate",
    tag: TAG,
    summary: "Update an advanced webhook endpoint",
    description:
      "Partial update (null clears a field); at least one field besides `endpointId`. `disabled: false` " +
      "also lifts an automatic disable. Unknown endpoint: NOT_FOUND `Advanced webhook provider request failed.`" +
      GATED,
    data: UpdateEndpoint,
    result: Endpoint,
    example: {
      data: { endpointId: "crm-sync", rateLimit: 20 },
      message: "Advanced webhook endpoint updated successfully.",
      result: { ...EXAMPLE_ENDPOINT, rateLimit: 20 },
    },
    handle: async (ctx, data) => ({
      message: "Advanced webhook endpoint updated successfully.",
      data: await service.updateEndpoint(ctx, data),
    }),
  }),
  operation({
    path: "/v2/workspace/advancedwebhook/endpoints/secret/get",
    operationId: "advancedWebhookEndpointsSecretGet",
    tag: TAG,
    summary: "Get an advanced webhook endpoint's signing secret",
    description:
      "The `whsec_…` secret that signs this endpoint's deliveries (Standard Webhooks). Answered with " +
      "`Cache-Control: no-store`." +
      GATED,
    data: EndpointIdOnly,
    result: EndpointSecret,
    example: {
      data: { endpointId: "crm-sync" },
      message: "Advanced webhook endpoint secret retrieved successfully.",
      result: { endpointId: EXAMPLE_ENDPOINT.id, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
    },
    handle: async (ctx, data) => ({
      message: "Advanced webhook endpoint secret retrieved successfully.",
      data: await service.endpointSecret(ctx, data.endpointId),
    }),
  }),
  operation({
    path: "/v2/workspace/advancedwebhook/endpoints/delete",
    operationId: "advancedWebhookEndpointsDelete",
    tag: TAG,
    summary: "Delete an advanced webhook endpoint",
    description:
      "Removes the endpoint and its secret; its pending deliveries are never sent. Unknown endpoint: " +
      "NOT_FOUND `Advanced webhook provider request failed.`" +
      GATED,
    data: EndpointIdOnly,
    result: DeletedEndpoint,
    example: {
      data: { endpointId: "crm-sync" },
      message: "Advanced webhook endpoint deleted successfully.",
      result: { endpointId: EXAMPLE_ENDPOINT.id, deleted: true },
    },
    handle: async (ctx, data) => ({
      message: "Advanced webhook endpoint deleted successfully.",
      data: await service.deleteEndpoint(ctx, data.endpointId),
    }),
  }),
];
