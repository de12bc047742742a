import { createServer, type AddressInfo, type Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on loopback that keeps what it receives. */
export async function startSmtpSink(): Promise<{
  url: string;
  received: ReceivedMail[];
  close: () => Promise<void>;
}> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      cb(null, { user: auth.username });
    },
    onData(stream, session, cb) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (c: string) => (raw += c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${String(port)}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface MuteConnection {
  /** Bytes the client sent (an SMTP client says nothing before the greeting). */
  received: number;
  /** The client hung up (for example after its greeting timeout). */
  closed: boolean;
}

/**
 * A TCP server that accepts connections and never answers: no SMTP greeting, ever. A mail send
 * to it hangs until the client gives up. `connection(n)` resolves once n connections came in.
 */
export async function startMuteSmtp(): Promise<{
  url: string;
  connections: MuteConnection[];
  connection: (n: number) => Promise<MuteConnection>;
  close: () => Promise<void>;
}> {
  const connections: MuteConnection[] = [];
  const sockets = new Set<Socket>();
  const waiters: (() => void)[] = [];
  const server = createServer((socket) => {
    const conn: MuteConnection = { received: 0, closed: false };
    connections.push(conn);
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => (conn.received += chunk.length));
    socket.on('close', () => {
      conn.closed = true;
      sockets.delete(socket);
    });
    socket.on('error', () => undefined); // our own destroy() at close
    for (const wake of waiters.splice(0)) wake();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${String(port)}`,
    connections,
    async connection(n) {
      while (connections.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return connections[n - 1]!;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
