import { type Static, Type } from "typebox";
import {
  Closed,
  DeletedCount,
  documentedWith,
  Id,
  IdFilter,
  ItemResults,
  MAX_DURATION_MS,
  MAX_INTEGER,
  MAX_ITEMS,
  named,
  OneOf,
  PageSize,
  PageToken,
  RecordMetadata,
  Text,
} from "../../http/schemas.js";
import { User } from "../../http/user.js";

export const RECORDING_TYPES = ["audio", "video", "screen"] as const;
export const RECORDING_MODES = ["floating", "thread"] as const;

/** `HH:MM:SS`; hours may run past 99. */
export const DISPLAY_PATTERN = "^[0-9]{2,}:[0-5][0-9]:[0-5][0-9]$";

export const Attachment = named(
  "Attachment",
  Closed(
    {
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
      thumbnailUrl: Type.Optional(Type.String({ maxLength: 4096, description: "A preview image." })),
    },
    "A file of the recording.",
  ),
);

export const RecordedTime = named(
  "RecordedTime",
  Closed(
    {
      duration: Type.Number({
        minimum: 0,
        maximum: MAX_DURATION_MS,
        description: "Milliseconds; may be fractional; at most ten years.",
      }),
      display: Type.Optional(
        Type.String({
          pattern: DISPLAY_PATTERN,
          description: "`HH:MM:SS`; derived from duration when omitted.",
        }),
      ),
    },
    "How long the recording is.",
  ),
);

const Seconds = Type.Number({ minimum: 0, maximum: MAX_DURATION_MS / 1000 });
const Timecode = Type.Union([
  Type.String({ maxLength: 64 }),
  Type.Number({ minimum: 0, maximum: MAX_DURATION_MS }),
]);

export const TranscriptSegment = named(
  "TranscriptSegment",
  Closed(
    {
      startTime: Type.Optional(Timecode),
      endTime: Type.Optional(Timecode),
      startTimeInSeconds: Type.Optional(Seconds),
      endTimeInSeconds: Type.Optional(Seconds),
      text: Text("What was said."),
    },
    "One stretch of the transcript.",
  ),
);

export const Transcription = named(
  "Transcription",
  Closed(
    {
      transcriptSegments: Type.Optional(Type.Array(TranscriptSegment, { maxItems: 10_000 })),
      vttFileUrl: Type.Optional(Type.String({ maxLength: 4096, description: "A WebVTT file." })),
      contentSummary: Type.Optional(Text("A summary of the recording.")),
    },
    "The recording's transcription; sent with the recorder webhook.",
  ),
);

export const NewRecording = named(
  "NewRecording",
  Closed(
    {
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
      from: Type.Optional(User),
      transcription: Type.Optional(Transcription),
    },
    "One recording annotation to add or replace.",
  ),
);

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

/** At least one of documentId, recordingIds: with organizationId, two fields. */
export const DeleteRecordings = documentedWith(
  Closed({
    organizationId: Id(),
    documentId: Type.Optional(Id()),
    recordingIds: Type.Optional(Type.Array(Id(), { minItems: 1, maxItems: MAX_ITEMS })),
  }),
  { minProperties: 2, description: "organizationId and at least one of documentId, recordingIds." },
);

export const RecordingRecord = named(
  "Recording",
  Closed(
    {
      type: Type.Literal("recorder"),
      recordingType: Type.Enum([...RECORDING_TYPES]),
      mode: Type.Enum([...RECORDING_MODES]),
      metadata: RecordMetadata,
      recordedTime: Closed({ duration: Type.Number(), display: Type.String() }),
      displayName: Type.Optional(Type.String()),
      annotationId: Type.String(),
      attachments: Type.Array(Attachment),
      latestVersion: Type.Integer(),
      from: Type.Optional(User),
      transcription: Type.Optional(Transcription),
    },
    "A recording annotation.",
  ),
);

export const RecordingDeleteResult = OneOf(
  [DeletedCount, ItemResults("Keyed by annotationId.")],
  "`{deletedCount}`, or per-id results when recordingIds was given.",
);

export type NewRecordingInput = Static<typeof NewRecording>;
export type AddRecordingsInput = Static<typeof AddRecordings>;
export type GetRecordingsInput = Static<typeof GetRecordings>;
export type DeleteRecordingsInput = Static<typeof DeleteRecordings>;
