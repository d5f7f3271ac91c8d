/**
 * Tracer (issue 25 item 3): each ATS call through `atsFetch` is one X-Ray subsegment named by the ATS, inside the
 * handler's `## name` subsegment, and nothing in what is sent names the URL (Lever's key is a query parameter)
 * or personal data. The process is set up as Lambda sets one up with active tracing (the X-Ray SDK's Lambda
 * mode, a trace header), and the X-Ray daemon is a UDP socket of this test on loopback, so what is checked is
 * what the SDK really sends. A second part: outside Lambda the Tracer is off and sends nothing.
 */
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import type * as AtsTracing from '#delivery/ats-tracing.js';
import type * as ConnectorHttp from '#delivery/connectors/http.js';

interface SentSegment {
  name: string;
  id: string;
  parent_id?: string;
  type?: string;
  annotations?: Record<string, unknown>;
  fault?: boolean;
  error?: boolean;
  throttle?: boolean;
  [field: string]: unknown;
}

let daemon: Socket;
let ats: Server;
let atsUrl: string;
const packets: string[] = [];

/** The subsegment documents received so far (each UDP packet: a JSON header line, then the document). */
function received(): SentSegment[] {
  return packets.map((packet) => JSON.parse(packet.slice(packet.indexOf('\n') + 1)) as SentSegment);
}

async function until(condition: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
}

const SECRET = 'lever-secret-key-123';
const PERSON = 'ada.lovelace@example.com';

beforeAll(async () => {
  daemon = createSocket('udp4');
  daemon.on('message', (message) => packets.push(message.toString('utf8')));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  ats = createServer((request, response) => {
    response.statusCode = request.url?.includes('/fail') ? 503 : request.url?.includes('/slow-down') ? 429 : 200;
    response.end('{}');
  });
  await new Promise<void>((resolve) => ats.listen(0, '127.0.0.1', resolve));
  atsUrl = `http://127.0.0.1:${(ats.address() as AddressInfo).port}`;
});

afterAll(async () => {
  daemon?.close();
  await new Promise((resolve) => ats?.close(resolve));
});

describe('inside Lambda with active tracing', () => {
  const saved = { ...process.env };
  let tracing: typeof AtsTracing;
  let http: typeof ConnectorHttp;

  beforeAll(async () => {
    // What Lambda sets; read by the Tracer and the X-Ray SDK when they load.
    Object.assign(process.env, {
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      LAMBDA_TASK_ROOT: '/var/task',
      AWS_LAMBDA_FUNCTION_NAME: 'his-test-JobImportWorker',
      _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
      AWS_XRAY_LOG_LEVEL: 'silent',
    });
    delete process.env.POWERTOOLS_TRACE_ENABLED;
    tracing = await import('#delivery/ats-tracing.js');
    http = await import('#delivery/connectors/http.js');
    tracing.traceAtsCalls();
  });

  afterAll(() => {
    process.env = saved;
    // Back to the plain wrapper: nothing else in this process traces.
    http.setAtsCallWrapper((_ats, call) => call());
  });

  test('the Tracer is on, and automatic HTTP capture (host names, full URLs) is off', () => {
    expect(tracing.tracer.isTracingEnabled()).toBe(true);
    expect((tracing.tracer as unknown as { captureHTTPsRequests: boolean }).captureHTTPsRequests).toBe(false);
  });

  test('one subsegment per ATS call, named by the ATS, under the handler subsegment; no URL, key or personal data sent', async () => {
    packets.length = 0;
    const handler = tracing.traced('JobImportWorker', async () => {
      const ok = await http.atsFetch('lever', `${atsUrl}/v1/postings/${encodeURIComponent(PERSON)}?api_key=${SECRET}`);
      const failed = await http.atsFetch('greenhouse', `${atsUrl}/fail?email=${encodeURIComponent(PERSON)}`);
      const limited = await http.atsFetch('personio', `${atsUrl}/slow-down`);
      await expect(http.atsFetch('lever', 'http://127.0.0.1:1/unreachable')).rejects.toThrow('lever is unreachable.');
      return [ok.status, failed.status, limited.status];
    });
    await expect(handler({}, {} as Context)).resolves.toEqual([200, 503, 429]);
    await until(() => received().length >= 5);
    const sent = received();
    expect(sent.map((s) => s.name)).toEqual(['ats:lever', 'ats:greenhouse', 'ats:personio', 'ats:lever', '## JobImportWorker']);
    const handlerSegment = sent[4];
    for (const call of sent.slice(0, 4)) {
      expect(call.parent_id).toBe(handlerSegment.id);
      expect(call.type).toBe('subsegment');
    }
    expect(sent[0].annotations).toEqual({ ats: 'lever', http_status: 200 });
    expect(sent[1]).toMatchObject({ annotations: { ats: 'greenhouse', http_status: 503 }, fault: true });
    expect(sent[2]).toMatchObject({ annotations: { ats: 'personio', http_status: 429 }, throttle: true, error: true });
    expect(sent[3]).toMatchObject({ annotations: { ats: 'lever' }, fault: true });
    expect(handlerSegment.annotations).toEqual({ ColdStart: expect.any(Boolean), Service: 'hiring-integration-service' });
    // Nothing of the URL: no host and port, no path, no query, no key, no e-mail address.
    const all = packets.join('\n');
    for (const forbidden of [
      SECRET,
      PERSON,
      encodeURIComponent(PERSON),
      atsUrl,
      '127.0.0.1',
      '/v1/postings',
      'api_key',
      '"http":',
      '"url"',
    ]) {
      expect({ forbidden, found: all.includes(forbidden) }).toEqual({ forbidden, found: false });
    }
  });

  test('an ATS name that is not a registered connector is not sent as given', async () => {
    packets.length = 0;
    await tracing.traced('JobImportWorker', () => http.atsFetch(`evil ${PERSON}`, `${atsUrl}/x`))({}, {} as Context);
    await until(() => received().length >= 2);
    expect(received()[0].name).toBe('ats:other');
    expect(packets.join('\n')).not.toContain(PERSON);
  });
});
