import { ConfigError } from "../config.js";
import { ApiError } from "../errors.js";
import { DatabaseUnreachable } from "../services.js";
import { PreparationFailed } from "./preparation.js";
import { UsageError } from "./workspace-commands.js";

/** The documented exit codes (README "The `collabd` command"). */
export const EXIT = {
  /** The command did what it was asked. */
  done: 0,
  /** A runtime failure: the database stayed unreachable, an unexpected error. */
  failed: 1,
  /** Bad usage or configuration: fix the command line or the environment. */
  usage: 2,
  /** What the command names does not exist (a workspace, a token). */
  notFound: 3,
} as const;

export interface Failure {
  /** One line: the cause and what to do. */
  readonly message: string;
  readonly exitCode: number;
  /** Whether `collabd --help` is worth a mention. */
  readonly usage: boolean;
}

type SystemError = Error & {
  code?: string;
  syscall?: string;
  path?: string;
  address?: string;
  port?: number;
};

/**
 * Turns whatever stopped a command or the server's start into one line naming the cause
 * and the remedy, and the exit code. Known causes are matched by their error codes; the
 * rest keep their own message (first line only) and exit 1.
 */
export function describeFailure(error: unknown): Failure {
  const e = (error ?? {}) as SystemError;
  const fail = (message: string, exitCode: number = EXIT.usage, usage = false): Failure => ({
    message: oneLine(message),
    exitCode,
    usage,
  });
  // Described in the supervisor's preparation thread, where the error was thrown.
  if (error instanceof PreparationFailed) return error.failure;
  if (error instanceof UsageError) return fail(error.message, EXIT.usage, true);
  if (typeof e.code === "string" && e.code.startsWith("ERR_PARSE_ARGS")) {
    // Node's sentence goes on about '--' positionals; its first sentence names the problem.
    return fail(firstSentence(e.message), EXIT.usage, true);
  }
  if (error instanceof ConfigError) return fail(error.message);
  if (error instanceof ApiError) return fail(error.message, error.status === "NOT_FOUND" ? EXIT.notFound : 2);
  if (error instanceof DatabaseUnreachable) return fail(error.message, EXIT.failed);
  const listen = e.syscall === "listen" ? `${e.address ?? "HOST"}:${e.port ?? "PORT"}` : null;
  if (listen && e.code === "EADDRINUSE") {
    return fail(
      `${listen} is already in use: stop the process holding it or set PORT (or HOST) to a free one.`,
    );
  }
  if (listen && (e.code === "EACCES" || e.code === "EPERM")) {
    return fail(`Not allowed to listen on ${listen}: use a PORT above 1023 or grant the permission.`);
  }
  if (listen && (e.code === "EADDRNOTAVAIL" || e.code === "ENOTFOUND")) {
    return fail(`Cannot listen on ${listen}: HOST is not an address of this machine.`);
  }
  if (
    e.syscall &&
    e.path &&
    ["EACCES", "EPERM", "EROFS", "ENOTDIR", "ENOSPC", "EEXIST"].includes(e.code ?? "")
  ) {
    return fail(
      `Cannot ${e.syscall} ${e.path} (${e.code}): make the data directory writable by this user, ` +
        "or point COLLABD_DATABASE_URL at one that is.",
    );
  }
  if (typeof e.code === "string" && /^SQLITE_(CANTOPEN|READONLY|PERM|AUTH|NOTADB|CORRUPT)/.test(e.code)) {
    return fail(
      `Cannot open the SQLite database (${e.code}: ${e.message}): check that the file and its ` +
        "directory are writable by this user and that COLLABD_DATABASE_URL names a collabd database.",
    );
  }
  if (e.code === "28P01" || e.code === "28000") {
    return fail(
      `PostgreSQL refused the login (${e.message}): fix the user or password in COLLABD_DATABASE_URL.`,
    );
  }
  if (e.code === "3D000") {
    return fail(`${sentence(e.message)} Create it or fix the database name in COLLABD_DATABASE_URL.`);
  }
  return fail(e.message || String(error), EXIT.failed);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

function firstSentence(text: string): string {
  const end = text.indexOf(". ");
  const first = end < 0 ? text : text.slice(0, end + 1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

function sentence(text: string): string {
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
