// A loopback TCP proxy that can silently drop everything: in black-hole mode it keeps accepting and
// keeps every connection open but forwards no byte in either direction (no RST, no FIN) — what a
// dropped network path looks like to both ends. Connections that lived through a black-hole stay dead
// after heal(), as a real path that lost data cannot resume; new connections forward normally.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface BlackholeProxy {
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  blackhole(): void;
  /** Black-holes everything when a client next sends data (so a request is in flight when it starts). */
  blackholeOnNextRequest(): Promise<void>;
  heal(): void;
  close(): Promise<void>;
}

export async function startBlackholeProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<BlackholeProxy> {
  let dropping = false;
  let armed: (() => void) | undefined;
  const open = new Set<{ client: Socket; upstream: Socket | undefined; dead: boolean }>();
  let accepted = 0;
  const server: Server = createServer((client) => {
    accepted++;
    const conn = { client, upstream: undefined as Socket | undefined, dead: dropping };
    open.add(conn);
    const cleanup = () => { open.delete(conn); client.destroy(); conn.upstream?.destroy(); };
    client.on('error', cleanup);
    client.on('close', cleanup);
    if (conn.dead) return; // accepted, never answered
    const upstream = connect(targetPort, targetHost);
    conn.upstream = upstream;
    upstream.on('error', cleanup);
    upstream.on('close', () => { if (!conn.dead) cleanup(); });
    client.on('data', (d) => {
      if (armed) { const fire = armed; armed = undefined; fire(); }
      if (!conn.dead) upstream.write(d);
    });
    upstream.on('data', (d) => { if (!conn.dead) client.write(d); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const blackhole = () => {
    dropping = true;
    for (const c of open) c.dead = true;
  };
  return {
    port,
    get accepted() { return accepted; },
    blackhole,
    blackholeOnNextRequest() {
      return new Promise<void>((resolve) => { armed = () => { blackhole(); resolve(); }; });
    },
    heal() {
      dropping = false;
    },
    close: () => new Promise((resolve) => {
      for (const c of open) { c.client.destroy(); c.upstream?.destroy(); }
      server.close(() => resolve());
    }),
  };
}
