/**
 * A partner's webhook receiver, as a partner would write one: an HTTP (or, given a key and certificate, HTTPS)
 * server on loopback that verifies
 * each delivery's Standard Webhooks signature with the `standardwebhooks` library and its signing secret,
 * records it, and answers with whatever status the test chose for that request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Delivery {
  id: string;
  timestamp: number;
  signature: string;
  body: string;
  event: Record<string, any>;
  /** Whether `Webhook.verify` accepted it (false when the test gave no secret yet, or the clock is far off). */
  verified: boolean;
  /** Whether the signature matches the body, id and timestamp under the secret (the same HMAC, no clock check). */
  signedCorrectly: boolean;
  /** The status the receiver answered. */
  status: number;
  receivedAt: number;
  /** HTTPS only: the server name the client sent (SNI). */
  servername?: string;
  /** The address the connection arrived at. */
  localAddress?: string;
}

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  /** The endpoint's secret, once `webhook create` printed it. */
  secret?: string;
  /** The status for the next request (default 200); `respond` may be replaced by the test. */
  respond: (n: number) => number;
  stop(): Promise<void>;
}

/** `tls`: serve HTTPS with this key and certificate, at `https://localhost:<port>` (the certificate's name). */
export async function startWebhookReceiver(path = '/hook', tls?: { key: string; cert: string }): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = { url: '', deliveries: [], respond: () => 200, stop: async () => undefined };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      let verified = false;
      let signedCorrectly = false;
      if (receiver.secret) {
        const wh = new Webhook(receiver.secret);
        try {
          wh.verify(body, headers);
          verified = true;
        } catch {
          verified = false;
        }
        const expected = wh.sign(headers['webhook-id'], new Date(Number(headers['webhook-timestamp']) * 1000), body);
        signedCorrectly = headers['webhook-signature'].split(' ').includes(expected);
      }
      const status = req.method === 'POST' && req.url === path ? receiver.respond(receiver.deliveries.length + 1) : 404;
      receiver.deliveries.push({
        id: headers['webhook-id'],
        timestamp: Number(headers['webhook-timestamp']),
        signature: headers['webhook-signature'],
        body,
        event: JSON.parse(body || '{}') as Record<string, any>,
        verified,
        signedCorrectly,
        status,
        receivedAt: Date.now(),
        servername: tls ? ((req.socket as TLSSocket).servername as string | false) || undefined : undefined,
        localAddress: req.socket.localAddress,
      });
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'ok' : 'not now');
    });
  };
  const server = tls ? createHttpsServer({ key: tls.key, cert: tls.cert }, handle) : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  receiver.url = tls ? `https://localhost:${port}${path}` : `http://127.0.0.1:${port}${path}`;
  receiver.stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return receiver;
}
