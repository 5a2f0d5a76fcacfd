import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { parsePostgresHosts } from "../../src/lib/pg-hosts.js";
import { TEST_SECRET } from "../support/server.js";

describe("multi-host PostgreSQL URLs", () => {
  it("reads libpq's host list and target_session_attrs, and gives node-postgres one host at a time", () => {
    const hosts = parsePostgresHosts(
      "postgres://collabd:s%40cret@db1.internal:5432,db2.internal:5433,[::1]/collabd?target_session_attrs=read-write&sslmode=disable",
    );
    expect(hosts.readWrite).toBe(true);
    expect(hosts.hosts).toEqual([
      { host: "db1.internal", port: 5432 },
      { host: "db2.internal", port: 5433 },
      { host: "::1", port: 5432 },
    ]);
    expect(hosts.urlFor(hosts.hosts[1]!)).toBe(
      "postgres://collabd:s%40cret@db2.internal:5433/collabd?sslmode=disable",
    );
    expect(hosts.urlFor(hosts.hosts[2]!)).toBe(
      "postgres://collabd:s%40cret@[::1]:5432/collabd?sslmode=disable",
    );
    const single = parsePostgresHosts("postgres://u@h/db");
    expect(single).toMatchObject({ readWrite: false, hosts: [{ host: "h", port: 5432 }] });
  });

  it("accepts several hosts in COLLABD_DATABASE_URL and COLLABD_DATABASE_READ_URL, and refuses what it cannot honour", () => {
    const env = { COLLABD_SECRET: TEST_SECRET };
    const config = loadConfig({
      ...env,
      COLLABD_DATABASE_URL: "postgres://u@a:5432,b:5432/db?target_session_attrs=read-write",
      COLLABD_DATABASE_READ_URL: "postgres://u@r1:5432,r2:5432/db",
    });
    expect(config.databaseReadUrl).toBe("postgres://u@r1:5432,r2:5432/db");
    expect(() =>
      loadConfig({ ...env, COLLABD_DATABASE_URL: "postgres://u@a,b/db?target_session_attrs=standby" }),
    ).toThrow(
      new ConfigError(
        "COLLABD_DATABASE_URL: target_session_attrs=standby is not supported; use read-write (or any).",
      ),
    );
    expect(() => loadConfig({ ...env, COLLABD_DATABASE_URL: "postgres://u@a:99999/db" })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig({ ...env, COLLABD_DATABASE_READ_URL: "postgres://u@r/db" })).toThrow(
      "COLLABD_DATABASE_READ_URL is for PostgreSQL: COLLABD_DATABASE_URL is SQLite.",
    );
  });
});
