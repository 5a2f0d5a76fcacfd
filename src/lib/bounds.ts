import { invalidArgument } from "../errors.js";
import { chunkRows, listLimit } from "./paging.js";

/**
 * Bounds on what one record and one answer may hold (docs/decisions.md
 * "Answer and record bounds"): every stored record is at most `maxRecordBytes`, every
 * list page at most `maxPageBytes` characters of JSON, so no page can outgrow memory or
 * V8's string limit however the records were written.
 */
interface Limits {
  /** COLLABD_MAX_RECORD_BYTES: UTF-8 bytes of one stored record's JSON. */
  readonly maxRecordBytes: number;
  /** COLLABD_MAX_PAGE_BYTES: characters of JSON one list page may hold. */
  readonly maxPageBytes: number;
}

/** The page bounds of a list request: records asked for, characters, rows per query. */
export function pageBounds(limits: Limits, pageSize: number | undefined) {
  return {
    limit: listLimit(pageSize),
    budget: limits.maxPageBytes,
    chunkRows: chunkRows(limits.maxRecordBytes),
  };
}

/**
 * Refuses a record whose stored JSON would exceed `maxRecordBytes`, as INVALID_ARGUMENT
 * naming the item (`data.activities[3]`; a function when naming it costs work). Strings of at most a third of the limit in
 * characters cannot exceed it in UTF-8, so only larger ones are measured exactly.
 */
export function checkRecordSize(limits: Limits, record: string, field: string | (() => string)): void {
  if (fitsRecord(limits, record)) return;
  const at = typeof field === "string" ? field : field();
  const bytes = Buffer.byteLength(record);
  const message = `${at} is ${bytes} bytes as stored JSON; the limit is ${limits.maxRecordBytes}.`;
  throw invalidArgument(message, [
    { field: at, message: `Record larger than ${limits.maxRecordBytes} bytes.` },
  ]);
}

/** Whether a serialized record is within `maxRecordBytes` of UTF-8. */
export function fitsRecord(limits: Limits, record: string): boolean {
  return record.length * 3 <= limits.maxRecordBytes || Buffer.byteLength(record) <= limits.maxRecordBytes;
}
