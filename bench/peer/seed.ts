import { loadSqlite } from "../../src/db/sqlite-driver.js";

const Database = await loadSqlite();

/** One document of the peer's store and how many records it holds. */
export interface PeerDocument {
  readonly organizationId: string;
  readonly documentId: string;
  readonly records: number;
}

/**
 * Creates the peer's database (`bench/peer/server.ts`) with the same documents and record
 * counts as collabd's activities scenario, each record the public JSON collabd answers
 * (`sampleActivity`, the bench's, its id, metadata and timestamp), behind the one index its
 * query needs.
 */
export function seedPeer(
  path: string,
  documents: readonly PeerDocument[],
  sampleActivity: (i: number) => object,
): void {
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.exec(`CREATE TABLE activities (
      id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, document_id TEXT NOT NULL,
      timestamp INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE INDEX activities_by_document ON activities (organization_id, document_id, timestamp, id);`);
    const insert = db.prepare("INSERT INTO activities VALUES (?, ?, ?, ?, ?)");
    const start = Date.now() - 30 * 24 * 3600 * 1000;
    let n = 0;
    const seedAll = db.transaction(() => {
      for (const doc of documents) {
        for (let i = 0; i < doc.records; i++, n++) {
          const id = `peer-${n.toString(36).padStart(16, "0")}`;
          const timestamp = start + Math.floor(n / 1000);
          const record = {
            id,
            ...sampleActivity(i),
            metadata: {
              apiKey: "bench-api-key-0123456789",
              documentId: doc.documentId,
              organizationId: doc.organizationId,
            },
            timestamp,
          };
          insert.run(id, doc.organizationId, doc.documentId, timestamp, JSON.stringify(record));
        }
      }
    });
    seedAll();
  } finally {
    db.close();
  }
}
