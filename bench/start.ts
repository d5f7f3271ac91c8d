/**
 * `npm run bench:start`: how long `npm start`'s service takes to serve on a new data directory (the demo
 * seeded) and on the same directory again, and its resident memory once ready (the Node process and every
 * process it started, such as DynamoDB Local's JVM), over several rounds. With `BENCH_COMPARE_DIR=<another
 * checkout>` the other checkout is measured in the same run, rounds interleaved, and each figure is given as
 * a ratio to it (issue 21: before and after DynamoDB Local). Each start runs `tsx local/server.ts` in that
 * checkout, as `npm start` does after its prerequisites check.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const dirs = [resolve('.'), ...(process.env.BENCH_COMPARE_DIR ? [resolve(process.env.BENCH_COMPARE_DIR)] : [])];

/** The resident memory of a process and its descendants, in MB. */
function treeRssMb(pid: number): number {
  const kb = (p: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
  const children = (p: number): number[] =>
    readdirSync(`/proc/${p}/task`).flatMap((t) =>
      readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  let total = 0;
  const queue = [pid];
  while (queue.length) {
    const p = queue.pop()!;
    if (!existsSync(`/proc/${p}`)) continue;
    total += kb(p);
    queue.push(...children(p));
  }
  return total / 1024;
}

async function startOnce(dir: string, dataDir: string): Promise<{ readyMs: number; rssMb: number; stopMs: number }> {
  const started = performance.now();
  const child = spawn(join(dir, 'node_modules/.bin/tsx'), ['local/server.ts'], {
    cwd: dir,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'ERROR', DEMO: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const readyMs = await new Promise<number>((done, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`no banner within 120 s:\n${out}`)), 120_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/listening on http/.test(out)) {
        clearTimeout(timer);
        done(performance.now() - started);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => fail(new Error(`exited with ${code}:\n${out}`)));
  });
  child.removeAllListeners('exit');
  // Settled: a second for the pollers' first rounds.
  await new Promise((r) => setTimeout(r, 1000));
  const rssMb = treeRssMb(child.pid!);
  const stopping = performance.now();
  await new Promise<void>((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
  return { readyMs, rssMb, stopMs: performance.now() - stopping };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
type Row = { first: number[]; again: number[]; rss: number[]; stop: number[] };
const results = new Map<string, Row>(dirs.map((d) => [d, { first: [], again: [], rss: [], stop: [] }]));
for (let round = 0; round < ROUNDS; round++)
  for (const dir of round % 2 ? [...dirs].reverse() : dirs) {
    const dataDir = mkdtempSync(join(tmpdir(), 'his-bench-start-'));
    try {
      const first = await startOnce(dir, dataDir);
      const again = await startOnce(dir, dataDir);
      const row = results.get(dir)!;
      row.first.push(first.readyMs);
      row.again.push(again.readyMs);
      row.rss.push(again.rssMb);
      row.stop.push(again.stopMs);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

const base = dirs.length > 1 ? results.get(dirs[1])! : undefined;
const ratio = (value: number, of?: number[]) => (of ? ` (${(value / median(of)).toFixed(2)}×)` : '');
console.log(
  `Command: BENCH_ROUNDS=${ROUNDS}${base ? ` BENCH_COMPARE_DIR=${dirs[1]}` : ''} npm run bench:start; medians of ${ROUNDS} rounds`,
);
console.log('| checkout | ready, new data dir (demo seeded) ms | ready again ms | RSS once ready, with child processes MB | stop ms |');
console.log('|---|---|---|---|---|');
for (const [dir, row] of results) {
  const of = dir === dirs[0] ? base : undefined;
  console.log(
    `| ${dir} | ${median(row.first).toFixed(0)}${ratio(median(row.first), of?.first)} | ${median(row.again).toFixed(0)}${ratio(median(row.again), of?.again)} | ${median(row.rss).toFixed(0)}${ratio(median(row.rss), of?.rss)} | ${median(row.stop).toFixed(0)}${ratio(median(row.stop), of?.stop)} |`,
  );
}
