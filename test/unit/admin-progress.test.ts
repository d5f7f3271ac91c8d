/**
 * The admin tool's progress bar (issue 25, P221): drawn on a terminal only, removed when the command ends.
 */
import { PassThrough } from 'node:stream';
import { progressBar, withProgress } from '../../local/admin/progress.js';

/** A stream that says it is a terminal (as process.stderr does on one), collecting what is drawn. */
function terminal(isTTY: boolean) {
  const stream = Object.assign(new PassThrough(), { isTTY, columns: 100, rows: 30 }) as unknown as NodeJS.WriteStream & PassThrough;
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  return { stream, drawn: () => chunks.join('') };
}

test('on a terminal the bar shows the task and done of total, and is cleared at the end', () => {
  const { stream, drawn } = terminal(true);
  const bar = progressBar('Writing jobs', stream)!;
  expect(bar).toBeDefined();
  bar.update(0, 4);
  bar.update(2, 4);
  // (Redraws are throttled: 2/4 may not be drawn.) A total that grows (events written during a replay) is shown.
  bar.update(5, 5);
  bar.stop();
  const text = drawn();
  expect(text).toContain('Writing jobs [');
  expect(text).toContain('0/4 (0%)');
  expect(text).toContain('5/5 (100%)');
  // clearOnComplete: the last thing written erases the line (ESC [ 2K or ESC [ 0K after moving to column 0).
  const ESC = String.fromCharCode(27);
  expect(text.slice(text.lastIndexOf('5/5')).endsWith(`${ESC}[2K`)).toBe(true);
});

test('piped or redirected (not a terminal), there is no bar and nothing is written', () => {
  const { stream, drawn } = terminal(false);
  expect(progressBar('Writing jobs', stream)).toBeUndefined();
  expect(drawn()).toBe('');
});

test('withProgress passes no reporter when stderr is not a terminal, and returns what the work returns', async () => {
  const wasTTY = process.stderr.isTTY;
  Object.defineProperty(process.stderr, 'isTTY', { value: false, configurable: true });
  try {
    let given: unknown = 'unset';
    const result = await withProgress('Publishing events', async (onProgress) => {
      given = onProgress;
      return { published: 0 };
    });
    expect(given).toBeUndefined();
    expect(result).toEqual({ published: 0 });
    await expect(withProgress('Publishing events', () => Promise.reject(new Error('storage down')))).rejects.toThrow('storage down');
  } finally {
    Object.defineProperty(process.stderr, 'isTTY', { value: wasTTY, configurable: true });
  }
});
