import { useEffect, useState } from "preact/hooks";
import { call, type Session } from "../api";
import { href, navigate } from "../route";
import { Empty, ErrorBox, formValues, ListFooter, splitList, Time, usePagedList } from "../ui";

interface Folder {
  folderId: string;
  folderName: string;
  parentFolderId: string;
  accessType: string;
  inheritAccessFromParent: boolean;
  ancestors: string[];
  createdAt: number;
  lastUpdated: number;
  subFolders?: Folder[];
}

interface DocumentRecord {
  documentId: string;
  documentName: string;
  folderId: string;
  accessType: string;
  inheritAccessFromParent: boolean;
  lastUpdated: number;
}

interface Organization {
  organizationId: string;
  organizationName?: string;
}

type Grants = Record<string, { organization?: GrantMap; folders?: GrantMap; documents?: GrantMap }>;
/** permissions get's effective access (docs/contract.md "Access"): a role, or an error entry; `expiresAt` in seconds. */
type GrantMap = Record<string, { accessRole?: string; expiresAt?: number; error?: string }>;

/** Folders and documents: the organization's tree, loaded a level at a time, and who holds grants. */
export function Folders({ session, params }: { session: Session; params: URLSearchParams }) {
  const organizationId = params.get("organizationId") ?? "";
  const folderId = params.get("folderId") ?? "root";
  return (
    <section aria-labelledby="folders-title">
      <h1 id="folders-title">Folders &amp; documents</h1>
      <form
        class="filters"
        key={organizationId}
        aria-label="Organization"
        onSubmit={(e) => {
          e.preventDefault();
          navigate("folders", formValues(e.currentTarget));
        }}
      >
        <label>
          Organization id
          <input name="organizationId" required defaultValue={organizationId} />
        </label>
        <button type="submit">Open</button>
      </form>
      {organizationId ? (
        <div class="split">
          <FolderTree
            key={organizationId}
            session={session}
            organizationId={organizationId}
            current={folderId}
          />
          <FolderPanel
            key={`${organizationId}/${folderId}`}
            session={session}
            organizationId={organizationId}
            folderId={folderId}
          />
        </div>
      ) : (
        <Organizations session={session} />
      )}
    </section>
  );
}

function Organizations({ session }: { session: Session }) {
  const list = usePagedList<Organization>(session, "/v2/organizations/get", { pageSize: 100 });
  return (
    <>
      <h2>Organizations</h2>
      <ul class="plain">
        {list.items.map((o) => (
          <li key={o.organizationId}>
            <a href={href("folders", { organizationId: o.organizationId })}>{o.organizationId}</a>
            {o.organizationName ? <span class="muted"> {o.organizationName}</span> : null}
          </li>
        ))}
      </ul>
      <ListFooter list={list} noun="organizations" />
    </>
  );
}

function FolderTree(props: { session: Session; organizationId: string; current: string }) {
  const [tops, setTops] = useState<Folder[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    call<Folder[]>(props.session, "/v2/organizations/folders/get", {
      organizationId: props.organizationId,
      maxDepth: 0,
    }).then((r) => setTops(r.data), setError);
  }, [props.session, props.organizationId]);
  return (
    <nav class="tree" aria-label="Folder tree">
      <ErrorBox error={error} />
      {tops && (
        <ul aria-label={`Folders of ${props.organizationId}`}>
          <li>
            <a
              href={href("folders", { organizationId: props.organizationId })}
              aria-current={props.current === "root" ? "true" : undefined}
            >
              (root)
            </a>
          </li>
          {tops.map((f) => (
            <FolderNode key={f.folderId} {...props} folder={f} />
          ))}
        </ul>
      )}
      {tops && tops.length === 0 && <Empty>No folders yet.</Empty>}
    </nav>
  );
}

function FolderNode(props: { session: Session; organizationId: string; current: string; folder: Folder }) {
  const { folder, session, organizationId, current } = props;
  const [children, setChildren] = useState<Folder[] | null>(null);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const toggle = async () => {
    if (!open && children === null) {
      try {
        const r = await call<Folder[]>(session, "/v2/organizations/folders/get", {
          organizationId,
          folderId: folder.folderId,
          maxDepth: 1,
        });
        setChildren(r.data[0]?.subFolders ?? []);
      } catch (e) {
        setError(e);
        return;
      }
    }
    setOpen(!open);
  };
  return (
    <li data-folder={folder.folderId}>
      <button
        type="button"
        class="twisty"
        aria-expanded={open}
        onClick={() => void toggle()}
        aria-label={`${open ? "Collapse" : "Expand"} ${folder.folderName}`}
      >
        {open ? "▾" : "▸"}
      </button>
      <a
        href={href("folders", { organizationId, folderId: folder.folderId })}
        aria-current={current === folder.folderId ? "true" : undefined}
      >
        {folder.folderName}
      </a>{" "}
      <AccessBadge accessType={folder.accessType} inherited={folder.inheritAccessFromParent} />
      <ErrorBox error={error} />
      {open && children && (
        <ul>
          {children.length === 0 && <li class="muted">No subfolders.</li>}
          {children.map((f) => (
            <FolderNode key={f.folderId} {...props} folder={f} />
          ))}
        </ul>
      )}
    </li>
  );
}

function AccessBadge({ accessType, inherited }: { accessType: string; inherited: boolean }) {
  return (
    <span
      class={`badge access-${accessType}`}
      title={inherited ? "inherited from the parent" : "set on itself"}
    >
      {accessType}
      {inherited ? " (inherited)" : " (own)"}
    </span>
  );
}

function FolderPanel(props: { session: Session; organizationId: string; folderId: string }) {
  const { session, organizationId, folderId } = props;
  const [folder, setFolder] = useState<Folder | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (folderId === "root") return;
    call<Folder[]>(session, "/v2/organizations/folders/get", { organizationId, folderId, maxDepth: 0 }).then(
      (r) => setFolder(r.data[0] ?? null),
      setError,
    );
  }, [session, organizationId, folderId]);
  const docs = usePagedList<DocumentRecord>(session, "/v2/organizations/documents/get", {
    organizationId,
    folderId,
    pageSize: 50,
  });
  return (
    <div class="panel">
      <ErrorBox error={error} />
      {folderId === "root" ? (
        <h2>Documents outside any folder</h2>
      ) : (
        folder && (
          <>
            <h2>{folder.folderName}</h2>
            <dl class="facts">
              <dt>Folder id</dt>
              <dd>
                <code>{folder.folderId}</code>
              </dd>
              <dt>Path</dt>
              <dd>{[...folder.ancestors, folder.folderId].join(" / ")}</dd>
              <dt>Access</dt>
              <dd>
                <AccessBadge accessType={folder.accessType} inherited={folder.inheritAccessFromParent} />
              </dd>
              <dt>Updated</dt>
              <dd>
                <Time ms={folder.lastUpdated} />
              </dd>
            </dl>
          </>
        )
      )}
      <h3>Documents</h3>
      <ul class="plain documents">
        {docs.items.map((d) => (
          <li key={d.documentId}>
            <strong>{d.documentName}</strong> <code>{d.documentId}</code>{" "}
            <AccessBadge accessType={d.accessType} inherited={d.inheritAccessFromParent} />{" "}
            <a href={href("activities", { organizationId, documentId: d.documentId })}>Activity</a>
            {" · "}
            <a href={href("notifications", { organizationId, documentId: d.documentId })}>Notifications</a>
          </li>
        ))}
      </ul>
      <ListFooter list={docs} noun="documents" />
      <GrantsLookup {...props} />
    </div>
  );
}

/**
 * Access is listed per user (the API asks for user ids): the organization's and this
 * folder's, as permissions get decides it; users without access there get no row.
 */
function GrantsLookup({
  session,
  organizationId,
  folderId,
}: {
  session: Session;
  organizationId: string;
  folderId: string;
}) {
  const [grants, setGrants] = useState<Grants | null>(null);
  const [error, setError] = useState<unknown>(null);
  const lookUp = async (event: Event) => {
    event.preventDefault();
    const userIds = splitList(formValues(event.currentTarget as HTMLFormElement).userIds);
    if (!userIds) return;
    setError(null);
    try {
      const r = await call<Grants>(session, "/v2/auth/permissions/get", {
        organizationId,
        userIds,
        ...(folderId !== "root" ? { folderIds: [folderId] } : {}),
      });
      setGrants(r.data);
    } catch (e) {
      setError(e);
    }
  };
  const rows = Object.entries(grants ?? {}).flatMap(([userId, g]) =>
    (["organization", "folders", "documents"] as const).flatMap((kind) =>
      Object.entries(g[kind] ?? {}).flatMap(([id, grant]) =>
        grant.accessRole === undefined
          ? []
          : [{ userId, kind, id, accessRole: grant.accessRole, expiresAt: grant.expiresAt }],
      ),
    ),
  );
  return (
    <div class="grants">
      <h3>Grants per user</h3>
      <form class="filters" onSubmit={lookUp} aria-label="Grants lookup">
        <label>
          User ids
          <input name="userIds" placeholder="user-1, user-2" required />
        </label>
        <button type="submit">Look up</button>
      </form>
      <ErrorBox error={error} />
      {grants && rows.length === 0 && <Empty>No live grants for these users here.</Empty>}
      {rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">On</th>
              <th scope="col">Id</th>
              <th scope="col">Role</th>
              <th scope="col">Expires</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.userId}/${r.kind}/${r.id}`}>
                <td>{r.userId}</td>
                <td>{r.kind}</td>
                <td>
                  <code>{r.id}</code>
                </td>
                <td>{r.accessRole}</td>
                <td>
                  <Time ms={r.expiresAt === undefined ? undefined : r.expiresAt * 1000} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
