/**
 * Progress of the long commands (`jobs import`, `jobs sync`, `outbox replay`; issue 25): a cli-progress bar on
 * stderr, drawn only when stderr is a terminal. Piped or redirected, nothing is drawn, so stdout holds the one
 * JSON document and stderr (on failure) the one error document, exactly as before (output.ts). The bar is
 * cleared when the command ends, before its result is printed.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  /** `done` of `total` so far; the first call starts the bar. Fits `onProgress` of the domain functions. */
  update(done: number, total: number): void;
  /** Removes the bar (a no-op when it never started). */
  stop(): void;
}

/** A bar for `task` on `stream` (stderr), or undefined when the stream is not a terminal. */
export function progressBar(task: string, stream: NodeJS.WriteStream = process.stderr): Progress | undefined {
  if (!stream.isTTY) return undefined;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${task} [{bar}] {value}/{total} ({percentage}%)`,
      hideCursor: true,
      clearOnComplete: true,
      // The bar never decides it is done: the command stops it (a total may still grow, P221).
      stopOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        started = true;
        bar.start(total, done);
        return;
      }
      bar.setTotal(total);
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}

/** Runs `work` with a bar for `task` (when stderr is a terminal), removing the bar however it ends. */
export async function withProgress<T>(task: string, work: (onProgress?: Progress['update']) => Promise<T>): Promise<T> {
  const bar = progressBar(task);
  try {
    return await work(bar && ((done, total) => bar.update(done, total)));
  } finally {
    bar?.stop();
  }
}
