/**
 * Peak memory of creating an application (issue 15), measured on the server process: the local runtime
 * (the HTTP adapter that the container shares, the handlers, the real clients) runs in a child process and
 * gets real HTTP requests; the emulators (DynamoDB Local in its JVM; fauxqs, the S3 stand-in) run in a second child process
 * so that the figure is the server's own. Each scenario gets a fresh server; its idle RSS after a warm-up
 * create is the baseline, and the peak is the kernel's high-water mark (VmHWM, reset through
 * /proc/PID/clear_refs before the scenario) together with sampling of VmRSS every 2 ms. Reported: peak minus
 * baseline, divided by the body (or the bodies in flight). A second pass runs `npm start` itself (issue 42 item 5):
 * its whole process tree is measured (npm, tsx, the server with fauxqs in it, DynamoDB Local's JVM), each
 * process's high-water mark reset before the scenario; the tree's peak is the sum of those marks, which is at
 * least the true peak of the tree (the processes need not peak at the same moment), and its RSS sum sampled every
 * 2 ms. The bodies are just below the create's 27.5 MB limit (`MAX_BODY_BYTES`), as JSON and as multipart.
 *
 *   BENCH_ONLY=npm-start|alone   only the `npm start` rows, or only the server-alone rows (docs/ untouched)
 *   BENCH_SCENARIOS=json,multipart,concurrent   only those scenarios (docs/ untouched)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_BODY_BYTES } from '../local/http-adapter.js';

const COMMAND = 'npm run bench:memory';
const TARGET = 2.5;
const PDF = Buffer.from('%PDF-1.7\n');

interface Demo {
  partnerKey: string;
  companyId: number;
}

function file(bytes: number, fill: number): Buffer {
  const data = Buffer.alloc(bytes, fill);
  PDF.copy(data, 0);
  return data;
}

/** A JSON create with two PDF attachments of `fileBytes` each, as Base64. */
function jsonBody(fileBytes: number): { body: Buffer; contentType: string } {
  const attachments = [0x41, 0x42].map((fill, i) => ({
    type: 'work_sample',
    name: `sample-${i}.pdf`,
    content_type: 'application/pdf',
    data: file(fileBytes, fill).toString('base64'),
  }));
  const text = JSON.stringify({ job: 1, candidate: { email: 'bench@example.com', full_name: 'Bench Mark' }, attachments });
  return { body: Buffer.from(text), contentType: 'application/json' };
}

/** A multipart create with two PDF file parts of `fileBytes` each. */
function multipartBody(fileBytes: number): { body: Buffer; contentType: string } {
  const boundary = '----bench-memory-boundary';
  const field = (name: string, value: string) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  const part = (name: string, filename: string, bytes: Buffer) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    bytes,
    Buffer.from('\r\n'),
  ];
  const body = Buffer.concat([
    field('job', '1'),
    field('candidate[email]', 'bench@example.com'),
    field('candidate[full_name]', 'Bench Mark'),
    ...part('cv', 'cv.pdf', file(fileBytes, 0x43)),
    ...part('work_sample', 'sample.pdf', file(fileBytes, 0x44)),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The size of each file that makes `build`'s body the largest below the create's limit (27.5 MB), by bisection. */
function largestFile(build: (fileBytes: number) => { body: Buffer; contentType: string }): number {
  let low = 0;
  let high = MAX_BODY_BYTES;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (bodyLength(build, mid) < MAX_BODY_BYTES) low = mid;
    else high = mid;
  }
  return low;
}

/** The length of `build(fileBytes)`'s body without building it: its length is affine in `fileBytes` (per Base64 group). */
function bodyLength(build: (fileBytes: number) => { body: Buffer }, fileBytes: number): number {
  const base = build(0).body.length;
  return build === jsonBody ? base + 2 * 4 * Math.ceil(fileBytes / 3) : base + 2 * fileBytes;
}

function post(url: string, demo: Demo, body: Buffer, contentType: string): Promise<number> {
  return send(url, demo, body, contentType).then((status) => {
    if (status !== 201) throw new Error(`create failed: ${status}`);
    return status;
  });
}

/** The status of one create (the concurrent scenario counts the answers instead of stopping at the first failure). */
function send(url: string, demo: Demo, body: Buffer, contentType: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/applications/`,
      {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${demo.partnerKey}`,
          'Company-Id': String(demo.companyId),
          'Content-Type': contentType,
          'Content-Length': String(body.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 201) process.stderr.write(`${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}\n`);
          resolve(res.statusCode ?? 0);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function status(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kB = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { rss: kB('VmRSS'), hwm: kB('VmHWM') };
}

/** Resets the peak RSS the kernel keeps for the process; false where that is not allowed. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `pid` and its descendants, from /proc (each process's parent is field 4 of its stat line). */
function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const tree: number[] = [];
  const visit = (p: number) => {
    tree.push(p);
    for (const child of children.get(p) ?? []) visit(child);
  };
  visit(pid);
  return tree;
}

/** A process's name as `ps` shows it, and what it runs when it is Node (`node local/server.ts`). */
function processName(pid: number): string {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const program = args[0]?.split('/').pop() ?? '?';
    const script = args.slice(1).find((a) => /\.(ts|js|mjs)$/.test(a) && !a.includes('node_modules/tsx'));
    return script ? `${program} ${script.split('/').slice(-2).join('/')}` : program;
  } catch {
    return '?';
  }
}

/** Whether a process of the group `pgid` is still running (its group is field 5 of its stat line). */
function groupAlive(pgid: number): boolean {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

/** RSS and high-water marks summed over processes (one that has gone counts 0). */
function treeStatus(pids: number[]): { rss: number; hwm: number } {
  let rss = 0;
  let hwm = 0;
  for (const pid of pids) {
    try {
      const one = status(pid);
      rss += one.rss;
      hwm += one.hwm;
    } catch {
      // gone
    }
  }
  return { rss, hwm };
}

interface Child {
  pid: number;
  url: string;
  /** Every process of it is measured (`npm start`: npm, tsx, the server, DynamoDB Local's JVM). */
  tree?: boolean;
  stop(): Promise<void>;
}

function spawnNode(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', ...args], {
    env: { ...process.env, LOG_LEVEL: 'ERROR', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitFor(path: string, child: ChildProcess): Promise<void> {
  // `BENCH_START_TIMEOUT_MS`: more patience on a machine loaded by other work (as bench/harness.ts).
  const deadline = Date.now() + Number(process.env.BENCH_START_TIMEOUT_MS ?? 90_000);
  while (!existsSync(path)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${path} did not appear`);
    await sleep(100);
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

/** The server alone, against the emulators process of the run. */
async function separateServer(dataDir: string): Promise<Child> {
  rmSync(join(dataDir, 'runtime.json'), { force: true });
  const child = spawnNode(['bench/memory-processes.ts', 'server', dataDir], {});
  await waitFor(join(dataDir, 'runtime.json'), child);
  await waitFor(join(dataDir, 'demo.json'), child);
  const { url } = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as { url: string };
  return { pid: child.pid!, url, stop: () => stopChild(child) };
}

/** `npm start` itself, in a process group of its own (stopped as a terminal's Ctrl-C would: the whole group). */
async function npmStart(): Promise<Child & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'his-bench-memory-'));
  const child = spawn('npm', ['start', '--silent'], {
    env: { ...process.env, LOG_LEVEL: 'ERROR', DATA_DIR: dataDir, PORT: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGINT');
      await exited;
    }
    // What is left of the group (the server finishing its stop) gets the time it needs, then goes.
    for (let i = 0; i < 100 && groupAlive(child.pid!); i++) await sleep(100);
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitFor(join(dataDir, 'demo.json'), child);
    await waitFor(join(dataDir, 'runtime.json'), child);
  } catch (error) {
    await stop();
    throw error;
  }
  const { url } = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as { url: string };
  return { pid: child.pid!, url, tree: true, dataDir, stop };
}

interface Scenario {
  name: string;
  bodies: { body: Buffer; contentType: string }[];
}

interface Row {
  server: string;
  /** Processes measured together (`npm start`: its whole tree). */
  processes: number;
  scenario: string;
  requests: number;
  body_MB: number;
  baseline_MB: number;
  peak_MB: number;
  peak_above_baseline_MB: number;
  x_body: number;
  target: number;
  met: boolean;
  /** Creates answered 201 (all of them, or the row is not met). */
  created: number;
  /** The processes that grew, each by its own high-water mark above its idle RSS, MB. */
  by_process: string;
  emulators_peak_above_baseline_MB: number | null;
  ms: number;
}

const mb = (bytes: number) => +(bytes / 1e6).toFixed(1);

async function measure(server: Child, demo: Demo, scenario: Scenario, label: string, emulatorsPid?: number): Promise<Row> {
  // Warm-up: module loading, clients and the authorizer cache are not charged to the scenario.
  await post(server.url, demo, jsonBody(100_000).body, 'application/json');
  const small = multipartBody(100_000);
  await post(server.url, demo, small.body, small.contentType);
  await sleep(1500);
  const pids = server.tree ? processTree(server.pid) : [server.pid];
  const baseline = treeStatus(pids).rss;
  const idle = new Map(pids.map((pid) => [pid, status(pid).rss]));
  const emulatorsBaseline = emulatorsPid ? status(emulatorsPid).rss : 0;
  const exact = pids.every(resetPeak) && (!emulatorsPid || resetPeak(emulatorsPid));
  let peak = baseline;
  let emulatorsPeak = emulatorsBaseline;
  const sample = () => {
    try {
      peak = Math.max(peak, treeStatus(pids).rss);
      if (emulatorsPid) emulatorsPeak = Math.max(emulatorsPeak, status(emulatorsPid).rss);
    } catch {
      // the process is gone; the run fails below
    }
  };
  const sampler = setInterval(sample, 2);
  const started = performance.now();
  const statuses = await Promise.all(scenario.bodies.map((b) => send(server.url, demo, b.body, b.contentType))).finally(() =>
    clearInterval(sampler),
  );
  const ms = performance.now() - started;
  sample();
  if (exact) {
    peak = Math.max(peak, treeStatus(pids).hwm);
    if (emulatorsPid) emulatorsPeak = Math.max(emulatorsPeak, status(emulatorsPid).hwm);
  }
  // Each process's share: its own high-water mark above its idle RSS (processes that grew by under 1 MB left out).
  const byProcess = exact
    ? pids
        .map((pid) => ({ name: processName(pid), grew: mb(status(pid).hwm - idle.get(pid)!) }))
        .filter((p) => p.grew >= 1)
        .map((p) => `${p.name} ${p.grew}`)
        .join(', ')
    : '';
  const bodyBytes = scenario.bodies.reduce((sum, b) => sum + b.body.length, 0);
  const ratio = +((peak - baseline) / bodyBytes).toFixed(2);
  return {
    server: label,
    processes: pids.length,
    scenario: scenario.name,
    requests: scenario.bodies.length,
    body_MB: mb(bodyBytes),
    baseline_MB: mb(baseline),
    peak_MB: mb(peak),
    peak_above_baseline_MB: mb(peak - baseline),
    x_body: ratio,
    target: TARGET,
    created: statuses.filter((s) => s === 201).length,
    met: ratio <= TARGET && statuses.every((s) => s === 201),
    by_process: byProcess,
    emulators_peak_above_baseline_MB: emulatorsPid ? mb(emulatorsPeak - emulatorsBaseline) : null,
    ms: Math.round(ms),
  };
}

const jsonFile = largestFile(jsonBody);
const multipartFile = largestFile(multipartBody);
const json = jsonBody(jsonFile);
const multipart = multipartBody(multipartFile);
const allScenarios: (Scenario & { id: string })[] = [
  { id: 'json', name: `one JSON create, two ${mb(jsonFile)} MB PDFs as Base64`, bodies: [json] },
  { id: 'multipart', name: `one multipart create, two ${mb(multipartFile)} MB PDF file parts`, bodies: [multipart] },
  {
    id: 'concurrent',
    name: '20 concurrent large creates (10 JSON as above, 10 multipart as above)',
    bodies: [...Array(10).fill(json), ...Array(10).fill(multipart)],
  },
];
const ONLY = process.env.BENCH_ONLY;
const CHOSEN = process.env.BENCH_SCENARIOS?.split(',');
const scenarios = allScenarios.filter((s) => !CHOSEN || CHOSEN.includes(s.id));
const partial = Boolean(ONLY || CHOSEN);

const rows: Row[] = [];
const runDir = mkdtempSync(join(tmpdir(), 'his-bench-memory-'));
const emulators = ONLY === 'npm-start' ? undefined : spawnNode(['bench/memory-processes.ts', 'emulators', runDir], {});
try {
  if (emulators) await waitFor(join(runDir, 'emulators.json'), emulators);
  for (const scenario of emulators ? scenarios : []) {
    const server = await separateServer(runDir);
    try {
      const demo = JSON.parse(readFileSync(join(runDir, 'demo.json'), 'utf8')) as Demo;
      rows.push(await measure(server, demo, scenario, 'server alone (emulators in another process)', emulators!.pid));
      process.stderr.write(`measured: ${scenario.name} (server alone)\n`);
    } finally {
      await server.stop();
    }
  }
  for (const scenario of ONLY === 'alone' ? [] : scenarios) {
    const server = await npmStart();
    try {
      const demo = JSON.parse(readFileSync(join(server.dataDir, 'demo.json'), 'utf8')) as Demo;
      rows.push(await measure(server, demo, scenario, '`npm start` (its process tree)'));
      process.stderr.write(`measured: ${scenario.name} (npm start)\n`);
    } finally {
      await server.stop();
    }
  }
} finally {
  if (emulators) await stopChild(emulators);
  rmSync(runDir, { recursive: true, force: true });
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, ${Math.round(totalmem() / 2 ** 30)} GiB, ${process.platform} ${release()}, Node ${process.version}`;
const date = new Date().toISOString();
const load = loadavg().map((l) => l.toFixed(2));
const jsonPath = join('docs', 'benchmarks.json');
let doc: Record<string, unknown> = {};
try {
  doc = JSON.parse(readFileSync(jsonPath, 'utf8')) as Record<string, unknown>;
} catch {
  // a first run writes the file
}
doc.memory = { command: COMMAND, date, machine, load_average_at_end: load.map(Number), rows };
if (!partial) writeFileSync(jsonPath, `${JSON.stringify(doc, null, 2)}\n`);

const table = [
  '| server | processes | scenario | body MB | created | idle RSS MB | peak RSS MB | peak above idle MB | × body (target ≤ 2.5) | met | of it, by process (high-water mark above idle) MB | emulators process, peak above idle MB | ms |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.server} | ${r.processes} | ${r.scenario} | ${r.body_MB} | ${r.created}/${r.requests} | ${r.baseline_MB} | ${r.peak_MB} | ${r.peak_above_baseline_MB} | ${r.x_body} | ${r.met ? 'met' : '**not met**'} | ${r.by_process || '–'} | ${r.emulators_peak_above_baseline_MB ?? '–'} | ${r.ms} |`,
  ),
].join('\n');
const section = [
  '<!-- bench:memory -->',
  '## Peak memory of creating an application (issue 15)',
  '',
  `Command: \`${COMMAND}\` (runs \`bench/create-memory.ts\`). ${date.slice(0, 10)}, ${machine}, load average ${load.join(' / ')} at the end (the machine is shared).`,
  '',
  "Real HTTP requests, bodies just below the create's 27.5 MB limit. \"Server alone\": the local runtime (the HTTP adapter the container shares, the handlers, the real clients; sync poller and schedules idle) in one process, the emulators in another, so the figure is the server's own; the emulators' process is reported beside it (having grown in an earlier row, it grows less in later ones). \"`npm start`\" (issue 42 item 5): `npm start` itself, measured as its whole process tree (npm, the server with fauxqs in it, DynamoDB Local's JVM): the peak is the sum of each process's high-water mark (VmHWM, reset before the scenario), at least the tree's true peak, and the sum of RSS sampled every 2 ms. Each row gets a fresh server; its idle RSS after two small warm-up creates is the baseline. × body: the peak above the idle RSS divided by the body (for the concurrent row, by all 20 bodies).",
  '',
  table,
  '',
  "Before issue 15 (the adapter concatenating the body into one string, `JSON.parse` of it, each Base64 attachment decoded whole, busboy's file chunks concatenated), `npm start` on this machine peaked at 5.9–6.0× a 26.7 MB JSON body, 5.9–7.4× a 20 MB multipart body, and at 2.8 GB for 20 concurrent large creates. Since P289 `npm start` runs its server with `--max-semi-space-size=1`: almost all of a large create's memory is Buffers (the body's chunks, the upload's parts, and in fauxqs, the S3 stand-in in the same process, each part as received, all parts of a file until the upload completes and their concatenation), which die young but were freed only when a scavenge or a full collection found them; with a 1 MB young generation a scavenge comes every megabyte of JavaScript allocation and frees them sooner (docs/decisions.md, P289: within the noise of a loaded machine). Since P331 fauxqs keeps multipart parts on disk and appends them to the object's file at completion (`local/fauxqs-disk-parts.ts`) instead of holding every part and their concatenation; what is left of the S3 leg is one part in flight on each side (docs/decisions.md, P332). Since P367 the server runs with `--expose-gc`, and the S3 stand-in asks for a full collection once each part is stored: the dead parts and chunks, whose memory is outside V8's heap, go then instead of when a full collection happens to come (docs/decisions.md, P367).",
  '<!-- /bench:memory -->',
].join('\n');
const mdPath = join('docs', 'benchmarks.md');
const md = readFileSync(mdPath, 'utf8');
const marked = /<!-- bench:memory -->[\s\S]*<!-- \/bench:memory -->/;
if (!partial) writeFileSync(mdPath, marked.test(md) ? md.replace(marked, section) : `${md.trimEnd()}\n\n${section}\n`);
console.log(table);
console.log(`load average ${load.join(' / ')} at the end`);
