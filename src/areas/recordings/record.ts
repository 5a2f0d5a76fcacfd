import type { NewRecordingInput } from "./schemas.js";

export interface RecordingMetadata {
  readonly apiKey: string;
  readonly documentId: string;
  readonly organizationId: string;
}

/**
 * `HH:MM:SS` of a duration in milliseconds, rounded to the nearest second; hours keep
 * counting past 99 rather than wrapping.
 */
export function displayDuration(durationMs: number): string {
  const total = Math.round(durationMs / 1000);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(Math.floor(total / 3600))}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
}

/** The record as get returns it (in its documented field order: docs/contract.md "Recordings"); optional fields only when given. */
export function publicRecording(
  input: NewRecordingInput,
  metadata: RecordingMetadata,
  latestVersion: number,
): Record<string, unknown> {
  return {
    type: "recorder",
    recordingType: input.recordingType,
    mode: input.mode ?? "floating",
    metadata,
    recordedTime: {
      duration: input.recordedTime.duration,
      display: input.recordedTime.display ?? displayDuration(input.recordedTime.duration),
    },
    ...(input.displayName === undefined ? {} : { displayName: input.displayName }),
    annotationId: input.annotationId,
    attachments: input.attachments ?? [],
    latestVersion,
    // The recorder webhook's `from` and `transcription` (docs/contract.md "Recordings"; docs/webhooks.md "Payloads"), when given.
    ...(input.from === undefined ? {} : { from: input.from }),
    ...(input.transcription === undefined ? {} : { transcription: input.transcription }),
  };
}
