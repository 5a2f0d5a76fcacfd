import { Agent, request } from "node:http";

/** The bench workspace: fixed credentials, created by seeding and by the server's bootstrap. */
export const BENCH_CREDS = {
  apiKey: "bench-api-key-0123456789",
  authToken: "bench-auth-token-0123456789abcdef",
};

export type Creds = typeof BENCH_CREDS;

/** Headers of an authenticated operation call. */
export function headersFor(creds: Creds = BENCH_CREDS): Record<string, string> {
  return {
    "content-type": "application/json",
    "x-svc-api-key": creds.apiKey,
    "x-svc-auth-token": creds.authToken,
  };
}

/** Keep-alive connections, so a sequential latency sample is one round trip, not a handshake too. */
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** POSTs a raw body and resolves with the status and parsed body; bounded by `timeoutMs`. */
export function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs = 60_000,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        try {
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
        } catch (error) {
          reject(error);
        }
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`${url} took over ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** Calls an operation with `{data}` and resolves with the body; anything but 200 throws. */
export async function call(base: string, path: string, data: unknown, creds: Creds = BENCH_CREDS) {
  const res = await post(base + path, JSON.stringify({ data }), headersFor(creds));
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}
