/** One host of a PostgreSQL URL. */
export interface PostgresHost {
  readonly host: string;
  readonly port: number;
}

/**
 * A PostgreSQL URL as libpq reads it: one or more hosts (`host1:5432,host2:5432`) and
 * `target_session_attrs`. node-postgres reads neither, so collabd reads them itself
 * (src/db/targets.ts) and hands node-postgres one host at a time.
 */
export interface PostgresHosts {
  readonly hosts: readonly PostgresHost[];
  /** `target_session_attrs=read-write` (or `primary`): only a host that accepts writes will do. */
  readonly readWrite: boolean;
  /** The URL naming `host` alone, without `target_session_attrs`: what node-postgres parses. */
  urlFor(host: PostgresHost): string;
}

const URL_PARTS = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/;
const DEFAULT_PORT = 5432;
/** libpq's values this reading supports: any host, or one that accepts writes. */
const SESSION_ATTRS: Readonly<Record<string, boolean>> = { any: false, "read-write": true, primary: true };

/** Reads the hosts of a postgres:// URL; throws an Error naming what is wrong (config.ts makes it a ConfigError). */
export function parsePostgresHosts(url: string): PostgresHosts {
  const parts = URL_PARTS.exec(url);
  if (!parts) throw new Error("expected postgres://user:password@host:port/database");
  const [, scheme, userInfo, hostList, rest] = parts as unknown as [
    string,
    string,
    string | undefined,
    string,
    string,
  ];
  const queryAt = rest.indexOf("?");
  const path = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const query = new URLSearchParams(queryAt < 0 ? "" : rest.slice(queryAt + 1));
  const attrs = query.get("target_session_attrs") ?? "any";
  if (!Object.hasOwn(SESSION_ATTRS, attrs)) {
    throw new Error(`target_session_attrs=${attrs} is not supported; use read-write (or any)`);
  }
  query.delete("target_session_attrs");
  const hosts =
    hostList === "" ? [{ host: "localhost", port: DEFAULT_PORT }] : hostList.split(",").map(parseHost);
  const search = query.toString();
  const prefix = `${scheme}${userInfo === undefined ? "" : `${userInfo}@`}`;
  const suffix = `${path}${search === "" ? "" : `?${search}`}`;
  return {
    hosts,
    readWrite: SESSION_ATTRS[attrs]!,
    urlFor: ({ host, port }) => `${prefix}${host.includes(":") ? `[${host}]` : host}:${port}${suffix}`,
  };
}

function parseHost(text: string): PostgresHost {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(text);
  if (!match) throw new Error(`host "${text}" is not host or host:port`);
  const host = match[1]!.replace(/^\[(.*)\]$/, "$1");
  const port = match[2] === undefined ? DEFAULT_PORT : Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new Error(`port of "${text}" is not 1 to 65535`);
  return { host, port };
}
