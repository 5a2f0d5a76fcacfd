import { useEffect, useState } from "preact/hooks";
import { call, type Session } from "../api";
import { href } from "../route";
import { ErrorBox, Time } from "../ui";
import { RotateSecret } from "./rotate-secret";

interface WebhookConfig {
  useWebhookService: boolean;
  webhookServiceConfig: {
    authToken?: string;
    rawNotificationUrl?: string;
    processedNotificationUrl?: string;
    encodeData: boolean;
    encryptData: boolean;
    publicKey?: string;
    triggers: Record<string, boolean>;
  };
  signingSecret: string;
  previousSigningSecretExpiresAt?: number;
}

/** The nine comment trigger keys (docs/webhooks.md "Configure"), always offered; stored keys beyond them are listed too. */
const KNOWN_TRIGGERS = [
  "comment_annotation.add",
  "comment.add",
  "comment.update",
  "comment.delete",
  "comment_annotation.status_change",
  "comment_annotation.assign",
  "comment_annotation.priority_change",
  "comment.reaction_add",
  "comment.reaction_delete",
];

interface Draft {
  useWebhookService: boolean;
  rawNotificationUrl: string;
  processedNotificationUrl: string;
  authToken: string;
  clearAuthToken: boolean;
  encodeData: boolean;
  encryptData: boolean;
  publicKey: string;
  triggers: Record<string, boolean>;
  newTrigger: string;
}

function draftOf(config: WebhookConfig): Draft {
  const c = config.webhookServiceConfig;
  return {
    useWebhookService: config.useWebhookService,
    rawNotificationUrl: c.rawNotificationUrl ?? "",
    processedNotificationUrl: c.processedNotificationUrl ?? "",
    authToken: "",
    clearAuthToken: false,
    encodeData: c.encodeData,
    encryptData: c.encryptData,
    publicKey: c.publicKey ?? "",
    triggers: { ...Object.fromEntries(KNOWN_TRIGGERS.map((t) => [t, false])), ...c.triggers },
    newTrigger: "",
  };
}

/** The webhook configuration editor (docs/contract.md "Webhook configuration") and the signing secret. */
export function WebhookSettings({ session }: { session: Session; params: URLSearchParams }) {
  const [config, setConfig] = useState<WebhookConfig | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [saveError, setSaveError] = useState<unknown>(null);
  const [saved, setSaved] = useState("");
  const [revealed, setRevealed] = useState(false);

  const load = async () => {
    try {
      const result = await call<WebhookConfig>(session, "/v2/workspace/webhookconfig/get", {});
      setConfig(result.data);
      setDraft(draftOf(result.data));
      setLoadError(null);
    } catch (e) {
      setLoadError(e);
    }
  };
  // load once per session
  useEffect(() => {
    void load();
  }, [session]);

  if (loadError) return <ErrorBox error={loadError} />;
  if (!config || !draft) return <p class="muted">Loading…</p>;

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft({ ...draft, [key]: value });
  const save = async (event: Event) => {
    event.preventDefault();
    setSaved("");
    setSaveError(null);
    const update: Record<string, unknown> = {
      rawNotificationUrl: draft.rawNotificationUrl.trim(),
      processedNotificationUrl: draft.processedNotificationUrl.trim(),
      encodeData: draft.encodeData,
      encryptData: draft.encryptData,
      triggers: draft.triggers,
    };
    // The stored key comes back as it was stored; send it only when changed, "" clears it.
    if (draft.publicKey.trim() !== (config.webhookServiceConfig.publicKey ?? "")) {
      update.publicKey = draft.publicKey.trim();
    }
    if (draft.clearAuthToken) update.authToken = "";
    else if (draft.authToken) update.authToken = draft.authToken;
    try {
      const result = await call<null>(session, "/v2/workspace/webhookconfig/update", {
        useWebhookService: draft.useWebhookService,
        webhookServiceConfig: update,
      });
      setSaved(result.message);
      await load();
    } catch (e) {
      setSaveError(e);
    }
  };

  const c = config.webhookServiceConfig;
  return (
    <section aria-labelledby="webhook-title">
      <h1 id="webhook-title">Webhook settings</h1>
      <p>
        <a href={href("deliveries", { status: "failed" })}>Failed deliveries</a>
        {" · "}
        <a href={href("deliveries", { status: "pending" })}>Pending deliveries</a>
      </p>
      <form class="config" onSubmit={save} aria-label="Webhook configuration">
        <label class="check">
          <input
            type="checkbox"
            name="useWebhookService"
            checked={draft.useWebhookService}
            onChange={(e) => set("useWebhookService", e.currentTarget.checked)}
          />
          Webhook service enabled
        </label>
        <label>
          Raw notification URL
          <input
            name="rawNotificationUrl"
            type="text"
            inputMode="url"
            value={draft.rawNotificationUrl}
            onInput={(e) => set("rawNotificationUrl", e.currentTarget.value)}
          />
        </label>
        <label>
          Processed notification URL
          <input
            name="processedNotificationUrl"
            type="text"
            inputMode="url"
            value={draft.processedNotificationUrl}
            onInput={(e) => set("processedNotificationUrl", e.currentTarget.value)}
          />
        </label>
        <label>
          Auth token sent to receivers{" "}
          <span class="muted">(stored: {c.authToken || "none"}; leave empty to keep)</span>
          <input
            name="authToken"
            type="password"
            autoComplete="off"
            value={draft.authToken}
            onInput={(e) => set("authToken", e.currentTarget.value)}
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            name="clearAuthToken"
            checked={draft.clearAuthToken}
            onChange={(e) => set("clearAuthToken", e.currentTarget.checked)}
          />
          Remove the auth token
        </label>
        <label class="check">
          <input
            type="checkbox"
            name="encodeData"
            checked={draft.encodeData}
            onChange={(e) => set("encodeData", e.currentTarget.checked)}
          />
          Base64-encode payloads (encodeData)
        </label>
        <label class="check">
          <input
            type="checkbox"
            name="encryptData"
            checked={draft.encryptData}
            onChange={(e) => set("encryptData", e.currentTarget.checked)}
          />
          Encrypt payloads (encryptData, needs a public key)
        </label>
        <label>
          Public key (RSA, PEM or base64 DER)
          <textarea
            name="publicKey"
            rows={4}
            spellcheck={false}
            value={draft.publicKey}
            onInput={(e) => set("publicKey", e.currentTarget.value)}
          />
        </label>
        <fieldset>
          <legend>Triggers</legend>
          {Object.entries(draft.triggers).map(([key, on]) => (
            <label class="check" key={key}>
              <input
                type="checkbox"
                name={`trigger:${key}`}
                checked={on}
                onChange={(e) => set("triggers", { ...draft.triggers, [key]: e.currentTarget.checked })}
              />
              {key}
            </label>
          ))}
          <span class="inline">
            <label>
              Other trigger
              <input
                name="newTrigger"
                value={draft.newTrigger}
                onInput={(e) => set("newTrigger", e.currentTarget.value)}
              />
            </label>
            <button
              type="button"
              disabled={draft.newTrigger.trim() === ""}
              onClick={() =>
                setDraft({
                  ...draft,
                  triggers: { ...draft.triggers, [draft.newTrigger.trim()]: true },
                  newTrigger: "",
                })
              }
            >
              Add trigger
            </button>
          </span>
        </fieldset>
        <button type="submit">Save configuration</button>
        {saved && (
          <p class="saved" role="status">
            {saved}
          </p>
        )}
        <ErrorBox error={saveError} />
      </form>

      <h2>Signing secret</h2>
      <p>
        Deliveries are signed with this secret (Standard Webhooks <code>webhook-signature</code>).
      </p>
      <p class="secret">
        <code>{revealed ? config.signingSecret : "whsec_••••••••••••••••"}</code>{" "}
        <button type="button" aria-pressed={revealed} onClick={() => setRevealed(!revealed)}>
          {revealed ? "Hide" : "Reveal"}
        </button>
      </p>
      {config.previousSigningSecretExpiresAt !== undefined && (
        <p>
          The previous secret still signs too until <Time ms={config.previousSigningSecretExpiresAt} />.
        </p>
      )}
      <RotateSecret session={session} onRotated={() => void load()} />
    </section>
  );
}
