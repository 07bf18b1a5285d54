// A TCP relay to the test database that can stop answering: while frozen it accepts
// connections and takes what clients send, but passes nothing on and answers nothing (a
// database host that hangs, a network that drops packets), until thawed.
import net from 'node:net';

export interface FreezableProxy {
  /** `url` with its host and port replaced by the relay's. */
  url: string;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function freezableProxy(url: string): Promise<FreezableProxy> {
  const target = new URL(url);
  let frozen = false;
  const held: (() => void)[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    const connectUpstream = (): void => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      sockets.add(upstream);
      upstream.on('close', () => {
        sockets.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      // Each chunk waits while frozen (kept in order), either way.
      const relay = (from: net.Socket, to: net.Socket): void => {
        from.on('data', (chunk: Buffer) => {
          if (!frozen && held.length === 0) to.write(chunk);
          else held.push(() => to.write(chunk));
        });
      };
      relay(client, upstream);
      relay(upstream, client);
    };
    if (frozen) held.push(connectUpstream);
    else connectUpstream();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((server.address() as net.AddressInfo).port);
  return {
    url: relayed.toString(),
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const release of held.splice(0)) release();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
