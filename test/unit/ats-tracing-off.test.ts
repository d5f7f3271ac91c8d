/**
 * Outside Lambda (`npm start`, the tests, the admin tool) the Tracer is off: an ATS call through `atsFetch` with
 * the tracing wrapper set just makes the call, and nothing is sent to an X-Ray daemon. Inside Lambda:
 * ats-tracing.test.ts.
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';

test('outside Lambda the Tracer is off, ATS calls go through untouched and no segment is sent', async () => {
  const daemon = createSocket('udp4');
  const packets: Buffer[] = [];
  daemon.on('message', (message) => packets.push(message));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  const ats = createServer((_request, response) => response.end('{}'));
  await new Promise<void>((resolve) => ats.listen(0, '127.0.0.1', resolve));
  const saved = { ...process.env };
  try {
    delete process.env.AWS_EXECUTION_ENV;
    delete process.env.LAMBDA_TASK_ROOT;
    process.env.AWS_XRAY_DAEMON_ADDRESS = `127.0.0.1:${daemon.address().port}`;
    const tracing = await import('#delivery/ats-tracing.js');
    const http = await import('#delivery/connectors/http.js');
    tracing.traceAtsCalls();
    expect(tracing.tracer.isTracingEnabled()).toBe(false);
    const handler = tracing.traced('JobImportWorker', async () => {
      const response = await http.atsFetch('lever', `http://127.0.0.1:${(ats.address() as AddressInfo).port}/v1/postings`);
      return response.status;
    });
    await expect(handler({}, {} as Context)).resolves.toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(packets).toEqual([]);
    http.setAtsCallWrapper((_ats, call) => call());
  } finally {
    process.env = saved;
    daemon.close();
    await new Promise((resolve) => ats.close(resolve));
  }
});
