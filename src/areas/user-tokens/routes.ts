import { operation } from "../../http/operation.js";
import { GenerateSignature, GenerateToken, GetTokenV1, SignatureResult, TokenResult } from "./schemas.js";
import { generateSignature, generateToken, TOKEN_MESSAGES, tokenV1 } from "./service.js";

const TAG = "Tokens";
/** What a token looks like; the examples' values differ on every run (time, workspace key). */
const TOKEN = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJl";

export const userTokenOperations = [
  operation({
    path: "/v2/auth/generate_token",
    operationId: "authGenerateToken",
    tag: TAG,
    summary: "Generate a user token",
    description:
      "A JWT (HS256, under the workspace's key: CLI `collabd token jwt-key`) valid for 48 h, carrying `userId`, " +
      "`userProperties` and `permissions` for a frontend. No collabd operation consumes it, and it writes no grant.",
    data: GenerateToken,
    result: TokenResult,
    example: {
      data: {
        userId: "user-1",
        userProperties: { name: "Ada", email: "ada@example.com", isAdmin: false },
        permissions: {
          resources: [{ type: "document", id: "doc-1", organizationId: "org-1", accessRole: "viewer" }],
        },
      },
      message: TOKEN_MESSAGES.token,
      result: { token: TOKEN },
    },
    handle: async (ctx, data) => ({ message: TOKEN_MESSAGES.token, data: generateToken(ctx, data) }),
  }),
  operation({
    path: "/v2/auth/generate_signature",
    operationId: "authGenerateSignature",
    tag: TAG,
    summary: "Sign permission decisions",
    description:
      "Hex HMAC-SHA256, under the workspace's key (CLI `collabd token jwt-key`), of the canonical JSON (keys sorted, " +
      "no spaces) of `permissions` as sent: a permission provider's answers a client can check.",
    data: GenerateSignature,
    result: SignatureResult,
    example: {
      data: {
        permissions: [
          { userId: "user-1", resourceId: "doc-1", type: "document", hasAccess: true, accessRole: "editor" },
        ],
      },
      message: TOKEN_MESSAGES.signature,
      result: { signature: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" },
    },
    handle: async (ctx, data) => ({ message: TOKEN_MESSAGES.signature, data: generateSignature(ctx, data) }),
  }),
  operation({
    path: "/v1/auth/token/get",
    operationId: "authTokenGetV1",
    tag: TAG,
    summary: "Get a user token (v1, credentials in the body)",
    description:
      "The v1 form of generate_token: `apiKey` and `authToken` go in `data` (no headers; refusals count " +
      "against the same failed-authentication limit), and the token carries no permissions.",
    data: GetTokenV1,
    credentials: "body",
    result: TokenResult,
    example: {
      data: {
        apiKey: "ak_example",
        authToken: "at_example",
        userId: "user-1",
        userProperties: { organizationId: "org-1", email: "ada@example.com" },
      },
      message: TOKEN_MESSAGES.token,
      result: { token: TOKEN },
    },
    handle: async (ctx, data) => ({ message: TOKEN_MESSAGES.token, data: tokenV1(ctx, data) }),
  }),
];
