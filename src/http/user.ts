import { type Static, Type } from "typebox";
import { documentedAs, ID_BOUNDS, JSON_VALUE_REF, named } from "./schemas.js";

/**
 * The User object (docs/contract.md "The User object"), one schema for every place a user appears (activity and
 * notification `actionUser`, recipients, users add, comment authors …). It is open: the
 * known fields are type-checked, any other key is kept verbatim and returned as sent, so
 * a client built for the original service can send its full user objects. Prototype keys
 * never get this far (src/http/body.ts), and the record-size bound (src/lib/bounds.ts)
 * caps what an open object can hold.
 */
const short = (description: string) => Type.Optional(Type.String({ maxLength: 1024, description }));
const flag = (description: string) => Type.Optional(Type.Boolean({ description }));

const USER_FIELDS = {
  userId: Type.String({ minLength: 1, ...ID_BOUNDS, description: "The client's user id." }),
  name: short("Full name."),
  photoUrl: Type.Optional(Type.String({ maxLength: 2048, description: "Avatar URL." })),
  email: Type.Optional(Type.String({ maxLength: 320, description: "E-mail address." })),
  plan: short("Product plan."),
  organizationId: Type.Optional(
    Type.String({ maxLength: 256, description: "Organization the user belongs to." }),
  ),
  color: short("Session color."),
  textColor: short("Color of the initial when there is no photo."),
  type: short("User type."),
  isReadOnly: flag("Read-only user."),
  isAnonymous: flag("Anonymous user."),
  isGuest: flag("Guest user."),
  isAdmin: flag("Administrator."),
  groupId: short("Deprecated."),
  clientGroupId: short("Deprecated."),
  initial: short("First letter of the first name."),
  accessRole: Type.Optional(
    Type.Enum(["viewer", "editor"], {
      description: "`viewer` or `editor`; meaningful only in users add and update.",
    }),
  ),
};

export const User = named(
  "User",
  documentedAs(
    Type.Object(USER_FIELDS, {
      additionalProperties: true,
      description: "A user: `userId` plus optional known fields; other keys are kept as sent.",
    }),
    Type.Unsafe({
      ...Type.Object(USER_FIELDS),
      additionalProperties: JSON_VALUE_REF,
      description: "A user: `userId` plus optional known fields; other keys are kept as sent.",
    }),
  ),
);

export type User = Static<typeof User>;
