// One log line per request, written when the reply is sent: method, path (without the query,
// which may carry a key), status and time taken in ms, with the request id. Fastify's own two
// lines (incoming, completed) are left out. At the route's level: the dashboard's polled reads
// log at warn, so they are not in the log.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class RequestLines extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      path: request.url.split('?')[0],
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}
