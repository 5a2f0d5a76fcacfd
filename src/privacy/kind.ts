import type { Readable, WriteTx } from "../db/handles.js";

import type { Position } from "../jobs/types.js";

export type { Position };

/** Whose data one erasure task removes, and where. */
export interface ErasureScope {
  readonly workspaceId: string;
  readonly userId: string;
  /** null: every organization of the workspace. */
  readonly organizationIds: readonly string[] | null;
  /** Stands in for the user id in records that are kept (activities): derived per job, holds no user data. */
  readonly pseudonym: string;
  /**
   * The name and e-mail the user was stored with (their profiles, read when the job was created):
   * the metadata kinds also find them typed without the user's id (typed.ts).
   */
  readonly typed: readonly string[];
  readonly now: number;
  /** The key of sealed values (Keys.atRest): stored Idempotency-Key answers are sealed. */
  readonly atRest: Buffer;
}

export interface ExportScope {
  readonly workspaceId: string;
  readonly organizationId: string;
  readonly userId: string;
}

export interface BatchResult {
  /** Rows deleted or rewritten by this batch. */
  readonly erased: number;
  /** Where the next batch starts; null when the kind is done for this user. */
  readonly next: Position;
}

export interface ExportPage {
  readonly items: unknown[];
  /** Where the next page starts; null when nothing is left. */
  readonly next: Position;
}

/**
 * One kind of personal data (docs/privacy.md): how to export a user's rows of it and how
 * to erase them. `erase` does a bounded amount of work in the caller's short transaction
 * and must be idempotent: a batch re-run after a crash finds its rows gone or rewritten.
 * Areas added later (users, comments) add a module to the registry (registry.ts).
 */
export interface PersonalDataKind {
  /** Stable: stored in privacy_tasks.kind. */
  readonly name: string;
  /** Key of users/data/get's `data` this kind fills; absent: erased only. */
  readonly exportKey?: string;
  export?(read: Readable, scope: ExportScope, after: Position, limit: number): Promise<ExportPage>;
  /** Absent: another kind erases these rows (reactions go with the comments); no task of its own. */
  erase?(tx: WriteTx, scope: ErasureScope, after: Position, batch: number): Promise<BatchResult>;
}
