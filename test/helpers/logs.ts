/**
 * Everything the service writes in this test process (the handlers and workers run in it): the logger's
 * stdout and stderr lines and any console call, kept so that a test can look for personal data, tokens or
 * secrets in them. Call it in `beforeAll`; `stop()` in `afterAll` restores the streams and silences the logger.
 */
import { jest } from '@jest/globals';
import { logger } from '#platform/logger.js';

export function captureServiceLogs(): { text(): string; stop(): void } {
  let logs = '';
  const written = (chunk: unknown) => (logs += String(chunk));
  const spies = [
    ...[process.stdout, process.stderr].map((stream) => jest.spyOn(stream, 'write').mockImplementation((chunk) => (written(chunk), true))),
    ...(['log', 'info', 'error', 'warn'] as const).map((level) =>
      jest.spyOn(console, level).mockImplementation((...args) => written(args.join(' '))),
    ),
  ];
  logger.setLogLevel('INFO');
  return {
    text: () => logs,
    stop() {
      for (const spy of spies) spy.mockRestore();
      logger.setLogLevel('SILENT');
    },
  };
}
