import { createSocket, type Socket } from "node:dgram";
import { once } from "node:events";
import type { AddressInfo } from "node:net";

/**
 * A tiny DNS server on 127.0.0.1 (UDP) for the c-ares tests: names in `answers` get A
 * records, names in `silent` are never answered (a hung name server), anything else is
 * NXDOMAIN. AAAA questions for known names get an empty answer. Counts every query.
 */
export class FakeDns {
  readonly queries: { name: string; type: number }[] = [];
  private readonly socket: Socket = createSocket("udp4");
  server = "";

  private constructor(
    private readonly answers: Readonly<Record<string, { address: string; ttl: number }>>,
    private readonly silent: ReadonlySet<string>,
  ) {}

  static async start(
    answers: Record<string, { address: string; ttl: number }>,
    silent: string[],
  ): Promise<FakeDns> {
    const dns = new FakeDns(answers, new Set(silent));
    dns.socket.on("message", (message, peer) => dns.answer(message, peer.port, peer.address));
    dns.socket.bind(0, "127.0.0.1");
    await once(dns.socket, "listening");
    dns.server = `127.0.0.1:${(dns.socket.address() as AddressInfo).port}`;
    return dns;
  }

  async close(): Promise<void> {
    this.socket.close();
    await once(this.socket, "close");
  }

  private answer(query: Buffer, port: number, address: string): void {
    const labels: string[] = [];
    let at = 12;
    while (query[at]! > 0) {
      labels.push(query.subarray(at + 1, at + 1 + query[at]!).toString("ascii"));
      at += 1 + query[at]!;
    }
    const questionEnd = at + 5;
    const name = labels.join(".").toLowerCase();
    const type = query.readUInt16BE(at + 1);
    this.queries.push({ name, type });
    if (this.silent.has(name)) return;
    const known = this.answers[name];
    const records: Buffer[] = [];
    if (known && type === 1) {
      const record = Buffer.alloc(16);
      record.writeUInt16BE(0xc00c, 0); // the name, by pointer to the question
      record.writeUInt16BE(1, 2); // A
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(known.ttl, 6);
      record.writeUInt16BE(4, 10);
      Buffer.from(known.address.split(".").map(Number)).copy(record, 12);
      records.push(record);
    }
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // id
    header.writeUInt16BE(known ? 0x8180 : 0x8183, 2); // response, recursion; NOERROR or NXDOMAIN
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records.length, 6);
    const reply = Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
    this.socket.send(reply, port, address);
  }
}
