import { createOperatorToken, revokeOperatorToken } from "../areas/operator/service.js";
import type { Services } from "../context.js";
import { type Printed, UsageError } from "./workspace-commands.js";

/**
 * `collabd operator create-token` and `revoke-token` (docs/contract.md "Operator API"): the
 * credential of the operator API. create-token prints the id and token once (the token is
 * stored as its hash); run again, it rotates the token and keeps the id. revoke-token removes
 * the credential, and the operator API refuses everyone until create-token runs again. Neither
 * is cached anywhere, so both take effect with the next request of every process.
 */
export async function runOperatorCommand(services: Services, verb: string | undefined): Promise<Printed> {
  const { db } = services.database;
  switch (verb) {
    case "create-token": {
      const made = await createOperatorToken(db, services.clock);
      return {
        json: { workspaceId: made.workspaceId, workspaceAuthToken: made.workspaceAuthToken },
        text:
          `x-svc-workspace-id:         ${made.workspaceId}\n` +
          `x-svc-workspace-auth-token: ${made.workspaceAuthToken}\n` +
          "Shown this once: collabd stores only its hash.",
      };
    }
    case "revoke-token":
      await revokeOperatorToken(db);
      return { json: { revoked: true }, text: "Operator token revoked." };
    default:
      throw new UsageError(`Unknown command: operator ${verb ?? ""}`.trim());
  }
}
