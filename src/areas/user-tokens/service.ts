import { createHmac } from "node:crypto";
import type { Ctx } from "../../context.js";
import { invalidArgument } from "../../errors.js";
import { canonicalJson } from "../../lib/canonical-json.js";
import { signJwt } from "../../lib/jwt.js";
import { userTokenKey } from "../../lib/keys.js";
import type { GenerateSignatureInput, GenerateTokenInput, GetTokenV1Input } from "./schemas.js";

export const TOKEN_MESSAGES = {
  token: "Token generated successfully.",
  signature: "Signature generated successfully.",
} as const;

/** 48 hours, as the original's tokens. */
const TOKEN_SECONDS = 172_800;

/**
 * A user JWT (docs/compatibility.md "User tokens"): HS256 under the workspace's key, claims
 * `iss` (the API key), `sub` and `userId`, `userProperties` (`isAdmin` false unless sent),
 * `permissions` (each resource's accessRole editor unless sent), `iat`, `exp` 48 h later.
 * Nothing is written: no grant, no user.
 */
export function generateToken(ctx: Ctx, input: GenerateTokenInput): { token: string } {
  if (Object.hasOwn(input.userProperties, "organizationId")) {
    const field = "data.userProperties.organizationId";
    throw invalidArgument(
      `${field} is not accepted here: name the organization in data.permissions.resources.`,
      [{ field, message: "Belongs in permissions.resources." }],
    );
  }
  const resources = input.permissions.resources.map((resource, index) => {
    const at = `data.permissions.resources[${index}].organizationId`;
    if (resource.type !== "organization" && resource.organizationId === undefined) {
      throw invalidArgument(`${at} is required for a ${resource.type}.`, [
        { field: at, message: `Required for a ${resource.type}.` },
      ]);
    }
    if (
      resource.type === "organization" &&
      resource.organizationId !== undefined &&
      resource.organizationId !== resource.id
    ) {
      throw invalidArgument(`${at} must equal the organization's id.`, [
        { field: at, message: "Must equal id." },
      ]);
    }
    return { ...resource, accessRole: resource.accessRole ?? "editor" };
  });
  return {
    token: token(ctx, input.userId, {
      userProperties: { ...input.userProperties, isAdmin: input.userProperties.isAdmin ?? false },
      permissions: { resources },
    }),
  };
}

/** v1 `auth/token/get`: the same token without permissions; the caller was authenticated by the body's credentials. */
export function tokenV1(ctx: Ctx, input: GetTokenV1Input): { token: string } {
  const { userProperties } = input;
  return {
    token: token(ctx, input.userId, {
      ...(userProperties
        ? { userProperties: { ...userProperties, isAdmin: userProperties.isAdmin ?? false } }
        : {}),
    }),
  };
}

/**
 * Signs a permission provider's decisions: hex HMAC-SHA256, under the workspace's token key,
 * of the canonical JSON (keys sorted, no spaces) of `permissions` as sent.
 */
export function generateSignature(ctx: Ctx, input: GenerateSignatureInput): { signature: string } {
  input.permissions.forEach((permission, index) => {
    if (permission.accessRole !== undefined && permission.type !== "document") {
      const field = `data.permissions[${index}].accessRole`;
      throw invalidArgument(`${field} is for documents only.`, [{ field, message: "Documents only." }]);
    }
  });
  const key = userTokenKey(ctx.keys, ctx.workspace.id);
  return { signature: createHmac("sha256", key).update(canonicalJson(input.permissions)).digest("hex") };
}

function token(ctx: Ctx, userId: string, claims: Record<string, unknown>): string {
  const iat = Math.floor(ctx.clock.now() / 1000);
  return signJwt(
    { iss: ctx.workspace.id, sub: userId, userId, ...claims, iat, exp: iat + TOKEN_SECONDS },
    userTokenKey(ctx.keys, ctx.workspace.id),
  );
}
