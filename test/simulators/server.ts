/**
 * The HTTP plumbing of the ATS simulators: a server on loopback on an ephemeral port that reads each
 * request whole (multipart parsed with busboy), records it, and hands it to the simulator's handler.
 * Simulators follow what each vendor documents (see ../../../shared/ats-apis.md); tests assert on
 * `requests` to check the exact request a connector sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';

/**
 * For a test file whose simulators enforce no per-second limit, because their vendors document none (Ashby,
 * Greenhouse, Recruitee) or count over a window whose headers the connector paces by (Teamtailor, Personio): the
 * connectors' own pacing waits for nothing in this file (ATS_PACING_SCALE=0, P366), so that a test does not sit
 * out 200 ms before each request. Pacing itself is tested with the scale unset (connector-errors.test.ts), and the
 * files of SmartRecruiters and Workable, whose simulators refuse a request over the documented rate, keep it.
 */
export function withoutPacing(): void {
  process.env.ATS_PACING_SCALE = '0';
}

export interface RecordedFile {
  field: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

export interface RecordedRequest {
  method: string;
  /** Path without the simulator's prefix handling: exactly as received. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: Buffer;
  json?: unknown;
  /** Multipart fields (repeated names keep every value). */
  fields: Record<string, string[]>;
  files: RecordedFile[];
  /** The status the simulator answered. */
  status?: number;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A raw body (for XML or deliberately broken answers). */
  raw?: string;
}

export type Handler = (request: RecordedRequest) => Reply | Promise<Reply>;

export interface SimulatorServer {
  url: string;
  requests: RecordedRequest[];
  stop(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function parseMultipart(headers: IncomingMessage['headers'], body: Buffer): Promise<Pick<RecordedRequest, 'fields' | 'files'>> {
  const fields: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  const files: RecordedFile[] = [];
  await new Promise<void>((resolve, reject) => {
    const parser = busboy({ headers, limits: { fileSize: 64 * 1024 * 1024 } });
    parser.on('field', (name, value) => (fields[name] ??= []).push(value));
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () =>
        files.push({ field, filename: info.filename ?? '', contentType: info.mimeType, bytes: Buffer.concat(chunks) }),
      );
    });
    parser.on('close', () => resolve());
    parser.on('error', reject);
    parser.end(body);
  });
  return { fields, files };
}

export async function startSimulatorServer(handler: Handler): Promise<SimulatorServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const body = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://simulator');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers,
        body,
        fields: {},
        files: [],
      };
      const type = headers['content-type'] ?? '';
      if (type.startsWith('multipart/form-data')) Object.assign(request, await parseMultipart(req.headers, body));
      else if (type.startsWith('application/json') && body.length) {
        try {
          request.json = JSON.parse(body.toString('utf8'));
        } catch {
          request.json = undefined;
        }
      }
      requests.push(request);
      const reply = await handler(request);
      request.status = reply.status;
      const payload = reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
      res.writeHead(reply.status, {
        'Content-Type': reply.raw !== undefined ? 'application/xml' : 'application/json',
        ...(reply.headers ?? {}),
      });
      res.end(payload);
    })().catch((error: Error) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`simulator error: ${error.message}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The Basic auth user of a request, if any. */
export function basicUser(request: RecordedRequest): { user: string; password: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const cut = decoded.indexOf(':');
  return cut < 0 ? undefined : { user: decoded.slice(0, cut), password: decoded.slice(cut + 1) };
}
