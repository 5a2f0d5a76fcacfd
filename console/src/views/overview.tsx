import { useEffect, useState } from "preact/hooks";
import { call, type Session } from "../api";
import { href } from "../route";
import { ErrorBox } from "../ui";

interface Sample {
  readonly at: number;
  readonly total: number;
  readonly errors: number;
}

/** Sums `collabd_http_requests_total` from the Prometheus text: all requests, and those answered ≥ 400. */
export function parseRequests(text: string): { total: number; errors: number } {
  let total = 0;
  let errors = 0;
  for (const line of text.split("\n")) {
    const match = /^collabd_http_requests_total\{([^}]*)\}\s+([0-9.e+]+)/.exec(line);
    if (!match) continue;
    const count = Number(match[2]);
    const code = /code="(\d+)"/.exec(match[1] ?? "")?.[1];
    total += count;
    if (code && Number(code) >= 400) errors += count;
  }
  return { total, errors };
}

/** How many deliveries have a status, counted a page at a time up to a bound. */
const COUNT_PAGES = 5;
async function countDeliveries(session: Session, status: string): Promise<string> {
  let count = 0;
  let pageToken = "";
  for (let page = 0; page < COUNT_PAGES; page++) {
    const r = await call<unknown[]>(session, "/v2/workspace/webhooks/deliveries/get", {
      status,
      pageSize: 1000,
      ...(pageToken ? { pageToken } : {}),
    });
    count += r.data.length;
    pageToken = r.pageToken ?? "";
    if (!pageToken) return String(count);
  }
  return `${count}+`;
}

const percent = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : "—");

/** Request and error rates from the service's /metrics (the whole service), and this workspace's backlog. */
export function Overview({ session }: { session: Session; params: URLSearchParams }) {
  const [samples, setSamples] = useState<Sample[]>([]);
  const [metricsError, setMetricsError] = useState("");
  const [backlog, setBacklog] = useState<{ pending: string; failed: string } | null>(null);
  const [backlogError, setBacklogError] = useState<unknown>(null);

  const sample = async () => {
    try {
      const res = await fetch("/metrics", { credentials: "omit", cache: "no-store" });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const counts = parseRequests(await res.text());
      setSamples((before) => [...before.slice(-1), { at: Date.now(), ...counts }]);
      setMetricsError("");
    } catch (e) {
      setMetricsError(`The service's metrics could not be read (${(e as Error).message}).`);
    }
  };
  const refreshBacklog = async () => {
    try {
      const [pending, failed] = await Promise.all([
        countDeliveries(session, "pending"),
        countDeliveries(session, "failed"),
      ]);
      setBacklog({ pending, failed });
      setBacklogError(null);
    } catch (e) {
      setBacklogError(e);
    }
  };
  // sampled once per session, then every 10 s
  useEffect(() => {
    void sample();
    void refreshBacklog();
    const timer = setInterval(() => void sample(), 10_000);
    return () => clearInterval(timer);
  }, [session]);

  const last = samples.at(-1);
  const first = samples.length > 1 ? samples[0] : undefined;
  const seconds = first && last ? (last.at - first.at) / 1000 : 0;
  const rate = first && last && seconds > 0 ? ((last.total - first.total) / seconds).toFixed(2) : null;
  const windowErrors = first && last ? percent(last.errors - first.errors, last.total - first.total) : null;

  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <div class="cards">
        <section class="card" aria-labelledby="traffic-title">
          <h2 id="traffic-title">Requests (whole service)</h2>
          {metricsError && (
            <p class="error" role="alert">
              {metricsError}
            </p>
          )}
          {last && (
            <dl class="facts">
              <dt>Request rate</dt>
              <dd data-metric="rate">{rate === null ? "measuring… (10 s)" : `${rate} /s`}</dd>
              <dt>Error rate</dt>
              <dd data-metric="error-rate">{windowErrors ?? "measuring… (10 s)"}</dd>
              <dt>Requests since start</dt>
              <dd data-metric="total">{last.total}</dd>
              <dt>Answered ≥ 400 since start</dt>
              <dd data-metric="errors">
                {last.errors} ({percent(last.errors, last.total)})
              </dd>
            </dl>
          )}
          <button type="button" onClick={() => void sample()}>
            Sample now
          </button>
        </section>
        <section class="card" aria-labelledby="backlog-title">
          <h2 id="backlog-title">Delivery backlog (this workspace)</h2>
          <ErrorBox error={backlogError} />
          {backlog && (
            <dl class="facts">
              <dt>Pending</dt>
              <dd data-metric="pending">
                <a href={href("deliveries", { status: "pending" })}>{backlog.pending}</a>
              </dd>
              <dt>Failed</dt>
              <dd data-metric="failed">
                <a href={href("deliveries", { status: "failed" })}>{backlog.failed}</a>
              </dd>
            </dl>
          )}
          <button type="button" onClick={() => void refreshBacklog()}>
            Refresh
          </button>
        </section>
      </div>
    </section>
  );
}
