import { useState } from "preact/hooks";
import { type Session, verifyCredentials } from "../api";
import { ErrorBox, formValues } from "../ui";

/** Signs in with a workspace's API key and auth token, checked by one API call before they are kept. */
export function SignIn({ notice, onSignedIn }: { notice: string; onSignedIn: (s: Session) => void }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const values = formValues(event.currentTarget as HTMLFormElement);
    const session = { apiKey: values.apiKey ?? "", authToken: values.authToken ?? "" };
    setBusy(true);
    setError(null);
    try {
      await verifyCredentials(session);
      onSignedIn(session);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin" id="main">
      <h1>collabd console</h1>
      <p>
        Sign in with a workspace's API key and auth token. They are kept in this tab only and sent with every
        API call, so the console can do only what the API allows them.
      </p>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={submit} aria-label="Sign in">
        <label>
          API key
          <input name="apiKey" required autoComplete="off" spellcheck={false} />
        </label>
        <label>
          Auth token
          <input name="authToken" type="password" required autoComplete="off" />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <ErrorBox error={error} />
    </main>
  );
}
