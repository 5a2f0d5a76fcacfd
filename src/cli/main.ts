import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import { openServices } from "../services.js";
import { runBackupCommand } from "./backup.js";
import { runCopyCommand } from "./copy.js";
import { requireExistingDatabase } from "./existing-database.js";
import { describeFailure } from "./failure.js";
import { runOperatorCommand } from "./operator-commands.js";
import { serve } from "./serve.js";
import { runUserCommand } from "./user-commands.js";
import { runWebhookCommand } from "./webhook-commands.js";
import { runWorkspaceCommand, UsageError } from "./workspace-commands.js";

/** Each command's lines of help, in the order `collabd --help` lists them. */
const HELP: Readonly<Record<string, string>> = {
  serve: "  serve                                   run the HTTP service (default)",
  version: "  version                                 print the version (also --version)",
  migrate: "  migrate                                 create the database or bring its schema up to date",
  workspace: `  workspace create [--name N] [--json]    create a workspace and its first auth token
  workspace list [--json]                 list the workspaces (no tokens)
  workspace update --api-key K [--activity-service on|off] [--advanced-queries on|off]
                   [--default-access-type public|organizationPrivate|restricted]
                   [--owner-email E] [--json]
  workspace show --api-key K [--json]`,
  token: `  token issue --api-key K [--json]        issue another auth token
  token revoke --api-key K --token T [--json]
  token jwt-key --api-key K [--json]      print the key that signs the workspace's user tokens (base64)`,
  operator: `  operator create-token [--json]          the operator API's credential, printed once (run again: a new
                                          token for the same id; the old one stops working)
  operator revoke-token [--json]          remove it: the operator API refuses everyone`,
  webhook: `  webhook rotate-secret --api-key K [--grace 24h] [--json]
                                          new signing secret; the old one also signs during the grace`,
  user: `  user export --api-key K --organization O --user U
                                          print everything stored about a user (JSON, docs/privacy.md)
  user erase --api-key K --user U [--organization O] [--json]
                                          erase a user's data (all organizations unless one is named)`,
  backup: `  backup <file> [--force] [--json]        online copy of the SQLite database (PostgreSQL: pg_dump);
                                          refuses a database with no workspace, and an existing <file>
                                          unless --force`,
  restore: `  restore <file> [--force] [--json]       copy a backup into the database; refuses to replace an
                                          existing database, or one a server holds, unless --force
                                          (PostgreSQL: pg_restore)`,
  copy: `  copy --from <sqlite file> --to <postgres url> [--force] [--json]
                                          copy every table of a SQLite database into PostgreSQL (a consistent
                                          snapshot, checked table by table); refuses a target holding data
                                          unless --force (docs/postgres.md)`,
};

const FOOTER = `Only serve and migrate create a database (and, on SQLite without COLLABD_SECRET, its secret
file); every other command fails, naming the database it looked for, when there is none.
Configuration comes from the environment (see README): COLLABD_DATABASE_URL (default
sqlite:./data/collabd.db, relative to the current directory), COLLABD_SECRET, PORT, HOST, ...
Exit codes: 0 done, 1 runtime failure (database unreachable, unexpected error), 2 bad usage or
configuration, 3 not found.`;

/** `collabd --help`, or `collabd <command> --help` for one command's lines only. */
function usage(command?: string): string {
  const help = command === undefined ? undefined : HELP[command];
  if (help !== undefined) return `Usage: collabd ${command} ...\n\n${help}\n\n${FOOTER}`;
  return `Usage: collabd <command> [options]\n\nCommands:\n${Object.values(HELP).join("\n")}\n\n${FOOTER}`;
}

/** Commands that may create the database (and its secret file); the others need an existing one. */
const CREATES_DATABASE = new Set(["serve", "migrate"]);

/** Every command, its verbs and the flags each verb needs: checked before anything is opened or created. */
const COMMANDS: Record<string, Readonly<Record<string, readonly string[]>> | null> = {
  serve: null,
  version: null,
  help: null,
  migrate: null,
  backup: null,
  restore: null,
  copy: null,
  workspace: { create: [], list: [], update: ["api-key"], show: ["api-key"] },
  token: { issue: ["api-key"], revoke: ["api-key", "token"], "jwt-key": ["api-key"] },
  operator: { "create-token": [], "revoke-token": [] },
  webhook: { "rotate-secret": ["api-key"] },
  user: { export: ["api-key", "organization", "user"], erase: ["api-key", "user"] },
};

/** The `collabd` command: process entry for the server and the admin CLI. */
export async function main(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: "boolean" },
      name: { type: "string" },
      "api-key": { type: "string" },
      token: { type: "string" },
      grace: { type: "string" },
      organization: { type: "string" },
      user: { type: "string" },
      force: { type: "boolean" },
      from: { type: "string" },
      to: { type: "string" },
      "activity-service": { type: "string" },
      "advanced-queries": { type: "string" },
      "default-access-type": { type: "string" },
      "owner-email": { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
  const [group = "serve", verb] = positionals;
  if (values.help || group === "help") {
    // `collabd workspace --help` and `collabd help workspace` print that command's help.
    process.stdout.write(`${usage(group === "help" ? verb : positionals[0])}\n`);
    return 0;
  }
  if (values.version || group === "version") {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  checkCommand(positionals, values, group, verb);
  const config = loadConfig();
  if (group === "serve") {
    await serve(config);
    return -1; // keeps running; exits from its signal handler
  }
  if (group === "backup" || group === "restore") {
    // Before openServices: a restore must not create or migrate the database it replaces.
    const printed = await runBackupCommand(config, group, verb, values);
    process.stdout.write(values.json ? `${JSON.stringify(printed.json)}\n` : `${printed.text}\n`);
    return 0;
  }
  if (group === "copy") {
    // copy names both of its databases: neither is the configured one.
    const printed = await runCopyCommand(config, values);
    process.stdout.write(values.json ? `${JSON.stringify(printed.json)}\n` : `${printed.text}\n`);
    return 0;
  }
  // backup names its own source and checks it; restore may create the database it restores.
  if (!CREATES_DATABASE.has(group)) await requireExistingDatabase(config);
  const services = await openServices(config);
  try {
    if (group === "migrate") {
      const message = "Database schema is up to date.";
      process.stdout.write(values.json ? `${JSON.stringify({ migrated: true })}\n` : `${message}\n`);
      return 0;
    }
    const printed =
      group === "webhook"
        ? await runWebhookCommand(services, verb, values)
        : group === "user"
          ? await runUserCommand(services, verb, values)
          : group === "operator"
            ? await runOperatorCommand(services, verb)
            : await runWorkspaceCommand(services, group, verb, values);
    process.stdout.write(values.json ? `${JSON.stringify(printed.json)}\n` : `${printed.text}\n`);
    return 0;
  } finally {
    await services.database.close();
  }
}

function checkCommand(
  positionals: readonly string[],
  flags: Record<string, unknown>,
  group: string,
  verb: string | undefined,
): void {
  if (!Object.hasOwn(COMMANDS, group)) throw new UsageError(`Unknown command: ${group}.`);
  const verbs = COMMANDS[group];
  if (verbs && (verb === undefined || !Object.hasOwn(verbs, verb))) {
    throw new UsageError(
      verb === undefined
        ? `collabd ${group} needs one of: ${Object.keys(verbs).join(", ")}.`
        : `Unknown command: ${group} ${verb}.`,
    );
  }
  for (const flag of verbs?.[verb!] ?? []) {
    const value = flags[flag];
    if (typeof value !== "string" || value === "") throw new UsageError(`--${flag} is required.`);
  }
  const allowed = verbs || group === "backup" || group === "restore" ? 2 : 1;
  const extra = positionals[allowed];
  if (extra !== undefined) throw new UsageError(`Unexpected argument: ${extra}.`);
}

/** The package's version, read from package.json two levels up (src/cli or dist/cli). */
function version(): string {
  const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  return `collabd ${(JSON.parse(text) as { version: string }).version}`;
}

/**
 * Runs the command and turns its outcome into the exit code (EXIT). Any failure prints
 * one line naming the cause and what to do; the stack only with COLLABD_LOG_LEVEL=debug.
 */
export function runCli(argv: readonly string[]): void {
  main(argv).then((code) => {
    if (code >= 0) process.exitCode = code;
  }, exitOnFailure);
}

/** Prints what stopped the command or the server's start as one line (describeFailure) and exits with its code. */
export function exitOnFailure(error: unknown): never {
  const failure = describeFailure(error);
  const hint = failure.usage ? " Run collabd --help for usage." : "";
  process.stderr.write(`collabd: ${failure.message}${hint}\n`);
  if (process.env.COLLABD_LOG_LEVEL === "debug" && error instanceof Error && error.stack) {
    process.stderr.write(`${error.stack}\n`);
  }
  // Exit now: a failed start may leave timers or sockets behind that would keep the process up.
  process.exit(failure.exitCode);
}
