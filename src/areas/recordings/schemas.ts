import { type Static, Type } from "typebox";
import {
  Closed,
  Id,
  IdFilter,
  ItemResult,
  MAX_DURATION_MS,
  MAX_INTEGER,
  MAX_ITEMS,
  PageSize,
  PageToken,
  Text,
} from "../../http/schemas.js";

export const RECORDING_TYPES = ["audio", "video", "screen"] as const;
export const RECORDING_MODES = ["floating", "thread"] as const;

/** `HH:MM:SS`; hours may run past 99. */
export const DISPLAY_PATTERN = "^[0-9]{2,}:[0-5][0-9]:[0-5][0-9]$";

export const Attachment = Closed({
  attachmentId: Type.Integer({
    minimum: 0,
    maximum: MAX_INTEGER,
    description: "The attachment's numeric id.",
  }),
  url: Type.String({ minLength: 1, maxLength: 4096, description: "Where the file is served." }),
  mimeType: Type.Optional(Type.String({ maxLength: 256 })),
  name: Type.Optional(Text(undefined, 1024)),
  type: Type.Optional(Type.String({ maxLength: 64, description: "File type, e.g. `mp4`." })),
  size: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_INTEGER, description: "Bytes." })),
});

export const RecordedTime = Closed({
  duration: Type.Number({
    minimum: 0,
    maximum: MAX_DURATION_MS,
    description: "Milliseconds; may be fractional; at most ten years.",
  }),
  display: Type.Optional(
    Type.String({ pattern: DISPLAY_PATTERN, description: "`HH:MM:SS`; derived from duration when omitted." }),
  ),
});

export const NewRecording = Closed({
  annotationId: Id("The recording annotation's id; an existing one is replaced whole."),
  type: Type.Optional(Type.Literal("recorder", { description: "Always `recorder`." })),
  recordingType: Type.Enum([...RECORDING_TYPES], { description: "audio, video or screen." }),
  mode: Type.Optional(Type.Enum([...RECORDING_MODES], { description: "floating (default) or thread." })),
  displayName: Type.Optional(Text("Display name of the recording.", 1024)),
  recordedTime: RecordedTime,
  attachments: Type.Optional(Type.Array(Attachment, { maxItems: 100 })),
  latestVersion: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_INTEGER,
      description: "Default: 1 on creation, one more than before on replace.",
    }),
  ),
});

export const AddRecordings = Closed({
  organizationId: Id(),
  documentId: Id(),
  recordings: Type.Array(NewRecording, { minItems: 1, maxItems: MAX_ITEMS }),
});

export const GetRecordings = Closed({
  organizationId: Id(),
  documentId: Type.Optional(Id()),
  recordingIds: Type.Optional(IdFilter("Fetch these recordings (annotationIds).")),
  pageSize: Type.Optional(PageSize),
  pageToken: Type.Optional(PageToken),
});

export const DeleteRecordings = Closed({
  organizationId: Id(),
  documentId: Type.Optional(Id()),
  recordingIds: Type.Optional(Type.Array(Id(), { minItems: 1, maxItems: MAX_ITEMS })),
});

export const RecordingRecord = Type.Object(
  {
    type: Type.Literal("recorder"),
    recordingType: Type.String(),
    mode: Type.String(),
    metadata: Type.Object({
      apiKey: Type.String(),
      documentId: Type.String(),
      organizationId: Type.String(),
    }),
    recordedTime: Type.Object({ duration: Type.Number(), display: Type.String() }),
    displayName: Type.Optional(Type.String()),
    annotationId: Type.String(),
    attachments: Type.Array(Type.Object({}, { additionalProperties: true })),
    latestVersion: Type.Integer(),
  },
  { description: "SPEC §2.2." },
);

export const RecordingItemResults = Type.Record(Type.String(), ItemResult, {
  description: "Keyed by annotationId.",
});

export type NewRecordingInput = Static<typeof NewRecording>;
export type AddRecordingsInput = Static<typeof AddRecordings>;
export type GetRecordingsInput = Static<typeof GetRecordings>;
export type DeleteRecordingsInput = Static<typeof DeleteRecordings>;
