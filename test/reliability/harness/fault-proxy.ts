import { createServer, type Server, type Socket, connect } from 'node:net';

/**
 * A small TCP fault proxy between Tributary and PostgreSQL, for the "stalled database link"
 * scenarios. Modes:
 * - `pass`: bytes flow (after `delayMs`, if set, per chunk and in order);
 * - `stall`: the link goes silent both ways: sockets stay open, bytes are held (a hung network or
 *   a frozen server, which is worse than a refused connection because nothing errors by itself).
 * Held bytes are bounded (`maxHeldBytes` per direction); past that the connection is cut.
 */
export type ProxyMode = 'pass' | 'stall';

export interface FaultProxy {
  port: number;
  setMode(mode: ProxyMode): void;
  setDelay(ms: number): void;
  /** Connections currently open through the proxy. */
  connections(): number;
  close(): Promise<void>;
}

interface Pipe {
  queue: { chunk: Buffer; at: number }[];
  held: number;
  timer: NodeJS.Timeout | undefined;
}

export async function startFaultProxy(
  target: { host: string; port: number },
  maxHeldBytes = 8 * 1024 * 1024,
): Promise<FaultProxy> {
  let mode: ProxyMode = 'pass';
  let delayMs = 0;
  const open = new Set<Socket>();
  const pumps = new Set<() => void>();

  const wire = (from: Socket, to: Socket) => {
    const pipe: Pipe = { queue: [], held: 0, timer: undefined };
    const pump = () => {
      clearTimeout(pipe.timer);
      pipe.timer = undefined;
      if (mode === 'stall') return;
      const now = Date.now();
      while (pipe.queue.length > 0) {
        const head = pipe.queue[0] as { chunk: Buffer; at: number };
        const due = head.at + delayMs;
        if (due > now) {
          pipe.timer = setTimeout(pump, due - now);
          return;
        }
        pipe.queue.shift();
        pipe.held -= head.chunk.length;
        if (!to.destroyed) to.write(head.chunk);
      }
    };
    pumps.add(pump);
    from.on('data', (chunk: Buffer) => {
      pipe.queue.push({ chunk, at: Date.now() });
      pipe.held += chunk.length;
      if (pipe.held > maxHeldBytes) {
        from.destroy();
        to.destroy();
        return;
      }
      pump();
    });
    from.on('close', () => {
      clearTimeout(pipe.timer);
      pumps.delete(pump);
      // Deliver what is due, then close the other side (a stalled link never delivers it).
      if (mode === 'pass' && pipe.queue.length === 0) to.end();
      else to.destroy();
    });
    from.on('error', () => to.destroy());
  };

  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    open.add(client);
    client.on('close', () => open.delete(client));
    wire(client, upstream);
    wire(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('fault proxy has no address');
  return {
    port: address.port,
    setMode(next) {
      mode = next;
      for (const pump of pumps) pump();
    },
    setDelay(ms) {
      delayMs = ms;
    },
    connections: () => open.size,
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
