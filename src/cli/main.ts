import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../config.js";
import { ApiError } from "../errors.js";
import { openServices } from "../services.js";
import { runWebhookCommand } from "../webhooks/cli.js";
import { runBackupCommand } from "./backup.js";
import { serve } from "./serve.js";
import { runWorkspaceCommand, UsageError } from "./workspace-commands.js";

const USAGE = `Usage: collabd <command> [options]

Commands:
  serve                                   run the HTTP service (default)
  migrate                                 bring the database schema up to date
  workspace create [--name N] [--json]    create a workspace and its first auth token
  workspace update --api-key K [--activity-service on|off] [--advanced-queries on|off] [--json]
  workspace show --api-key K [--json]
  token issue --api-key K [--json]        issue another auth token
  token revoke --api-key K --token T [--json]
  webhook rotate-secret --api-key K [--grace 24h] [--json]
                                          new signing secret; the old one also signs during the grace
  backup <file> [--force] [--json]        online copy of the SQLite database (PostgreSQL: pg_dump)
  restore <file> [--force] [--json]       copy a backup into the database; refuses while a server
                                          holds it unless --force (PostgreSQL: pg_restore)

Configuration comes from the environment (see README): COLLABD_DATABASE_URL, COLLABD_SECRET, PORT, HOST, ...`;

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
      force: { type: "boolean" },
      "activity-service": { type: "string" },
      "advanced-queries": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [group = "serve", verb] = positionals;
  if (values.help || group === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
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
        : await runWorkspaceCommand(services, group, verb, values);
    process.stdout.write(values.json ? `${JSON.stringify(printed.json)}\n` : `${printed.text}\n`);
    return 0;
  } finally {
    await services.database.close();
  }
}

/** Runs the command and turns its outcome into the exit code; known errors print one line. */
export function runCli(argv: readonly string[]): void {
  main(argv).then(
    (code) => {
      if (code >= 0) process.exitCode = code;
    },
    (error: unknown) => {
      const known = error instanceof UsageError || error instanceof ConfigError || error instanceof ApiError;
      process.stderr.write(
        `collabd: ${known ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`,
      );
      if (error instanceof UsageError || (error as { code?: string })?.code?.startsWith("ERR_PARSE_ARGS")) {
        process.stderr.write(`\n${USAGE}\n`);
      }
      process.exitCode = error instanceof ApiError && error.status === "NOT_FOUND" ? 3 : known ? 2 : 1;
    },
  );
}
