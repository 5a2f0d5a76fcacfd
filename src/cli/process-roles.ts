/**
 * The names the supervisor and its children share: which role a forked process plays, and the
 * messages between the supervisor and the SQLite writer. Their own module, with no imports, so
 * the supervisor names them without loading the writer (docs/decisions.md "The supervisor
 * loads only what supervising needs").
 */

/** The environment variable the supervisor sets on the process it forks as the SQLite writer. */
export const ROLE_VARIABLE = "COLLABD_PROCESS_ROLE";
export const WRITER_ROLE = "writer";
/** Set ("1") beside ROLE_VARIABLE on the spare writer, which waits for WRITER_PROMOTE before it opens the database. */
export const STANDBY_VARIABLE = "COLLABD_WRITER_STANDBY";

/** Messages between the supervisor and the writer process (forwarded writes come by src/cli/writer-socket.ts). */
export const WRITER_READY = "collabd:writer-ready";
export const WRITER_START_BACKGROUND = "collabd:writer-start-background";
export const WRITER_STOPPING = "collabd:writer-stopping";
/** The spare writer has loaded what it needs and waits; the supervisor then may promote it. */
export const WRITER_STANDBY = "collabd:writer-standby";
export const WRITER_PROMOTE = "collabd:writer-promote";
