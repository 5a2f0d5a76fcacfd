import { useState } from "preact/hooks";
import { call, type Session } from "../api";
import { ErrorBox, Time } from "../ui";

interface Rotated {
  signingSecret: string;
  previousSigningSecretExpiresAt: number | null;
}

/** The grace choices offered; the API takes any 0..30 days in seconds. */
const GRACES: readonly { seconds: number; label: string }[] = [
  { seconds: 86_400, label: "24 hours (default)" },
  { seconds: 3_600, label: "1 hour" },
  { seconds: 7 * 86_400, label: "7 days" },
  { seconds: 0, label: "None: the old secret stops signing at once" },
];

/**
 * Rotates the signing secret through `webhooks/secret/rotate`, after a confirm step: a
 * mistaken click would otherwise start the clock on every receiver's old secret.
 */
export function RotateSecret({ session, onRotated }: { session: Session; onRotated: () => void }) {
  const [grace, setGrace] = useState(GRACES[0]!.seconds);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [rotated, setRotated] = useState<Rotated | null>(null);
  const [error, setError] = useState<unknown>(null);

  const rotate = async () => {
    setBusy(true);
    setError(null);
    try {
      const result = await call<Rotated>(session, "/v2/workspace/webhooks/secret/rotate", {
        graceSeconds: grace,
      });
      setRotated(result.data);
      setConfirming(false);
      onRotated();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="rotate-secret">
      <div class="inline">
        <label>
          Grace period for the old secret{" "}
          <select
            value={String(grace)}
            disabled={confirming}
            onChange={(e) => setGrace(Number((e.target as HTMLSelectElement).value))}
          >
            {GRACES.map((g) => (
              <option key={g.seconds} value={String(g.seconds)}>
                {g.label}
              </option>
            ))}
          </select>
        </label>{" "}
        {confirming ? (
          <fieldset class="inline">
            <legend>Confirm rotation</legend>
            <span>
              {grace === 0
                ? "Receivers still holding the old secret will reject deliveries at once."
                : "Receivers must switch to the new secret before the grace ends."}
            </span>{" "}
            <button type="button" disabled={busy} onClick={() => void rotate()}>
              Confirm rotation
            </button>{" "}
            <button type="button" disabled={busy} onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </fieldset>
        ) : (
          <button
            type="button"
            onClick={() => {
              setRotated(null);
              setConfirming(true);
            }}
          >
            Rotate secret
          </button>
        )}
      </div>
      {rotated && (
        <div role="status" class="saved">
          <p>
            New signing secret: <code class="new-secret">{rotated.signingSecret}</code>
          </p>
          <p>
            {rotated.previousSigningSecretExpiresAt === null ? (
              "The previous secret no longer signs."
            ) : (
              <>
                The previous secret also signs until <Time ms={rotated.previousSigningSecretExpiresAt} />.
              </>
            )}
          </p>
        </div>
      )}
      <ErrorBox error={error} />
    </div>
  );
}
