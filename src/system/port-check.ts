// Whether the API's address is free, checked before a daemon creates or migrates anything: a
// port already taken would otherwise fail the start only after a new data folder and database
// were made for nothing.
import net from 'node:net';
import { AppError } from '../errors.ts';

/** Resolves when host:port can be listened on (0: any port, always free); else 409 port_in_use naming who answers there. */
export async function ensurePortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    const server = net.createServer();
    server.once('error', (e: NodeJS.ErrnoException) => resolve(e));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
  if (error === null) return;
  if (error.code !== 'EADDRINUSE' && error.code !== 'EACCES') throw error;
  const where = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  // Another waybill (its /healthz answers {"status":"ok"}) is the likely case: say so.
  const other = await fetch(`${where}/healthz`, { signal: AbortSignal.timeout(1_000) }).then(
    async (r) => (r.ok && (await r.text()).includes('"status":"ok"') ? 'another waybill, by its /healthz,' : 'another program'),
    () => 'another program',
  );
  throw new AppError(
    'port_in_use',
    409,
    error.code === 'EACCES'
      ? `cannot listen on ${host}:${port}: permission denied (ports below 1024 need privileges); set PORT to another port`
      : `${host}:${port} is already in use (${other} listens there: ${where}); stop it, or set PORT to another port. Nothing was created.`,
  );
}
