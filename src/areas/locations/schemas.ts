import { type Static, Type } from "typebox";
import { Closed, FreeObject, Id } from "../../http/schemas.js";

const Location = (description: string) =>
  FreeObject(
    `${description} Open: \`id\` (string or number; required, locations are matched by it), \`locationName\`, any other keys.`,
  );

/** The original's body copies of the credentials: checked against the headers when sent. */
const BODY_CREDENTIALS = {
  apiKey: Type.Optional(Type.String({ maxLength: 256, description: "Must equal the x-svc-api-key header." })),
  authToken: Type.Optional(
    Type.String({ maxLength: 256, description: "Must be a valid auth token of that API key." }),
  ),
};

const DOCUMENT = {
  organizationId: Type.Optional(
    Id("Absent: every organization of the workspace holding comment threads of the document."),
  ),
  documentId: Id(),
};

export const UpdateLocation = Closed({
  ...BODY_CREDENTIALS,
  ...DOCUMENT,
  migrate: Closed({
    oldLocation: Location(
      "The location as stored: a stored location matches when it has each of these fields.",
    ),
    newLocation: Location("What it becomes."),
  }),
  merge: Type.Optional(
    Type.Boolean({
      description: "true: newLocation's fields merge into the stored location; false (default): replace it.",
    }),
  ),
});
export type UpdateLocationInput = Static<typeof UpdateLocation>;

export const DeleteLocationData = Closed({
  ...BODY_CREDENTIALS,
  ...DOCUMENT,
  location: Location(
    "The location whose data goes: a stored location matches when it has each of these fields.",
  ),
});
export type DeleteLocationDataInput = Static<typeof DeleteLocationData>;
