import "./styles.css";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { loadSession, type Session, saveSession, whenCredentialsRefused } from "./api";
import { href, parseRoute, type Route, VIEWS } from "./route";
import { Activities } from "./views/activities";
import { Deliveries } from "./views/deliveries";
import { Folders } from "./views/folders";
import { Notifications } from "./views/notifications";
import { Overview } from "./views/overview";
import { SignIn } from "./views/signin";
import { WebhookSettings } from "./views/webhook";

function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const [notice, setNotice] = useState("");
  const [route, setRoute] = useState<Route>(() => parseRoute(location.hash));

  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);

  useEffect(() => {
    whenCredentialsRefused((reason) => {
      saveSession(null);
      setSession(null);
      setNotice(
        `You were signed out because the service refused the API key or auth token (revoked or changed?): ${reason}`,
      );
    });
  }, []);

  useEffect(() => {
    const label = VIEWS.find(([name]) => name === route.view)?.[1] ?? "";
    document.title = session ? `${label} · collabd console` : "Sign in · collabd console";
  }, [route.view, session]);

  if (!session) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(s) => {
          saveSession(s);
          setNotice("");
          setSession(s);
        }}
      />
    );
  }

  const signOut = () => {
    saveSession(null);
    setSession(null);
    setNotice("Signed out.");
  };
  const props = { session, params: route.params };
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">collabd console</span>
        <nav aria-label="Views">
          <ul class="nav-list">
            {VIEWS.map(([name, label]) => (
              <li key={name}>
                <a href={href(name)} aria-current={route.view === name ? "page" : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          <code title="API key">{session.apiKey}</code>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {route.view === "overview" && <Overview {...props} />}
        {route.view === "deliveries" && <Deliveries {...props} />}
        {route.view === "webhook" && <WebhookSettings {...props} />}
        {route.view === "activities" && <Activities {...props} />}
        {route.view === "folders" && <Folders {...props} />}
        {route.view === "notifications" && <Notifications {...props} />}
      </main>
    </div>
  );
}

render(<App />, document.getElementById("app")!);
