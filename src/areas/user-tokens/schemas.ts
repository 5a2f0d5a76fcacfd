import { type Static, type TSchema, Type } from "typebox";
import {
  Closed,
  documentedAs,
  Id,
  JSON_VALUE_REF,
  MAX_ITEMS,
  MAX_TIMESTAMP_MS,
  named,
} from "../../http/schemas.js";
import { GrantedResource, RESOURCE_TYPES } from "../access/schemas.js";

/** Requests and answers of the token and signature operations (docs/compatibility.md "User tokens"). */

/** An open object whose known keys are type-checked and whose other keys go into the token as sent. */
const Open = <T extends Record<string, TSchema>>(
  name: string,
  properties: T,
  required: string[],
  description: string,
) =>
  named(
    name,
    documentedAs(
      Type.Object(properties, { additionalProperties: true, description }),
      Type.Unsafe({
        ...Type.Object(properties),
        required,
        additionalProperties: JSON_VALUE_REF,
        description,
      }),
    ),
  );

const Name = Type.String({ minLength: 1, maxLength: 1024, description: "The user's name." });
const Email = Type.String({ minLength: 1, maxLength: 320, description: "The user's e-mail address." });
const IsAdmin = Type.Optional(Type.Boolean({ description: "Default false." }));

export const TokenUserProperties = Open(
  "TokenUserProperties",
  { name: Name, email: Email, isAdmin: IsAdmin },
  ["name", "email"],
  "The user, carried in the token; other keys as sent. `organizationId` is refused: it belongs in permissions.resources.",
);

export const GenerateToken = Closed({
  userId: Id("The user the token is for (`sub`)."),
  userProperties: TokenUserProperties,
  permissions: Closed(
    { resources: Type.Array(GrantedResource, { maxItems: MAX_ITEMS }) },
    "Grants carried in the token (none are written); accessRole defaults to editor.",
  ),
});
export type GenerateTokenInput = Static<typeof GenerateToken>;

const V1UserProperties = Open(
  "V1TokenUserProperties",
  {
    organizationId: Id("The user's organization."),
    isAdmin: IsAdmin,
    email: Type.Optional(Email),
  },
  ["organizationId"],
  "The user, carried in the token; other keys as sent.",
);

export const GetTokenV1 = Closed({
  apiKey: Type.Optional(Type.String({ maxLength: 256, description: "The workspace's API key (required)." })),
  authToken: Type.Optional(
    Type.String({ maxLength: 256, description: "One of its auth tokens (required)." }),
  ),
  userId: Id("The user the token is for (`sub`)."),
  userProperties: Type.Optional(V1UserProperties),
});
export type GetTokenV1Input = Static<typeof GetTokenV1>;

const SignedPermission = named(
  "SignedPermission",
  Closed(
    {
      userId: Id(),
      resourceId: Id(),
      type: Type.Enum([...RESOURCE_TYPES], { description: "organization, folder or document." }),
      hasAccess: Type.Boolean(),
      accessRole: Type.Optional(Type.Enum(["viewer", "editor"], { description: "Documents only." })),
      expiresAt: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: MAX_TIMESTAMP_MS,
          description: "Epoch ms; access is checked again after it.",
        }),
      ),
    },
    "One decision of a permission provider.",
  ),
);

export const GenerateSignature = Closed({
  permissions: Type.Array(SignedPermission, { minItems: 1, maxItems: MAX_ITEMS }),
});
export type GenerateSignatureInput = Static<typeof GenerateSignature>;

export const TokenResult = named(
  "UserToken",
  Closed({ token: Type.String({ description: "A JWT, HS256, valid for 48 h." }) }, "The token."),
);

export const SignatureResult = named(
  "PermissionSignature",
  Closed(
    { signature: Type.String({ description: "Hex HMAC-SHA256 of the canonical JSON of permissions." }) },
    "The signature.",
  ),
);
