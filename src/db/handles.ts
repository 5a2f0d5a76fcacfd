import type { Kysely } from "kysely";
import type { Tables } from "./tables.js";

/**
 * The storage boundary, checked by the compiler at no runtime cost: both handles are the
 * same Kysely object at run time, told apart only by a phantom brand.
 */
declare const access: unique symbol;

/** The request path's read handle (`ctx.reader`): never waits behind a write (Database.reader). */
export type ReadDb = Kysely<Tables> & { readonly [access]: "read" };

/** The transaction `ctx.write` hands its callback: the only handle a write store function takes. */
export type WriteTx = Kysely<Tables> & { readonly [access]: "write" };

/** What a read store function takes: the read handle, or a write transaction (which can read too). */
export type Readable = Kysely<Tables> & { readonly [access]: "read" | "write" };

/** Brands the reader; for src/db only, where the handles are made. */
export function asReadDb(db: Kysely<Tables>): ReadDb {
  return db as ReadDb;
}

/**
 * Brands a transaction (or a connection inside BEGIN … COMMIT); for src/db and the process's
 * own background writers (the webhook worker), never for a service.
 */
export function asWriteTx(trx: Kysely<Tables>): WriteTx {
  return trx as WriteTx;
}

/**
 * Runs `work` on one consistent snapshot of the read handle (REPEATABLE READ on PostgreSQL,
 * one read transaction on SQLite), for a read made of several statements that must agree.
 */
export function readSnapshot<T>(reader: ReadDb, work: (snapshot: ReadDb) => Promise<T>): Promise<T> {
  return reader
    .transaction()
    .setIsolationLevel("repeatable read")
    .execute((trx) => work(asReadDb(trx)));
}
