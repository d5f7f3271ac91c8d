/**
 * `hiring-admin`: the operator tool for what the API has no create endpoint for (partners, companies,
 * keys, job imports, talent channels). This module only parses arguments, decides where the data lives
 * and prints the result; the work is done by the domain functions in shared/.
 *
 * Output contract: a successful command prints exactly one JSON document on stdout and exits 0. A failed
 * one prints nothing on stdout and exactly one JSON document `{detail, code, errors?}` (the API's D2 shape)
 * on stderr, and exits 2 for argument errors (code `invalid`) or 1 for everything else (validation and
 * not-found errors of the domain functions, unreachable storage). `--help` prints plain text on stdout.
 *
 * Where it runs, decided in this order (see `whereHelp` below and docs/admin.md):
 *  1. `$DATA_DIR/runtime.json` exists and its pid is alive: the emulators of the running `npm start`.
 *  2. `TABLE_NAME` is set: AWS, as configured by the standard AWS environment and credential chain.
 *  3. Otherwise: embedded emulators started on `$DATA_DIR` for the duration of the command.
 */
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { join, resolve } from 'node:path';
import type { NewCompany } from '#companies/companies.js';
import { isHttpUrl } from '#platform/web-formats.js';

// ---------------------------------------------------------------------------------------------------
// Errors of the tool itself (the domain functions throw shared/errors.ts ApiErrors)

type ErrorBody = { detail: string; code: string; errors?: Record<string, string[]> };

/** A bad command line: printed in the D2 shape with code `invalid`, exit code 2. */
class UsageError extends Error {
  constructor(
    readonly errors: Record<string, string[]>,
    detail?: string,
  ) {
    super(detail ?? describe(errors));
  }

  body(): ErrorBody {
    return { detail: this.message, code: 'invalid', errors: this.errors };
  }
}

/** A failure of the tool's environment (data directory locked, storage unreachable): exit code 1. */
class ToolError extends Error {
  constructor(
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

function describe(errors: Record<string, string[]>): string {
  const fields = Object.keys(errors);
  if (fields.length === 1) return `Invalid value for "${fields[0]}": ${errors[fields[0]].join(' ')}`;
  return `Invalid values for ${fields.map((f) => `"${f}"`).join(', ')}.`;
}

// ---------------------------------------------------------------------------------------------------
// Command table

type OptionKind = 'string' | 'id' | 'flag';

interface OptionSpec {
  /** The option as typed, e.g. `--partner-company-id`. */
  flag: string;
  kind: OptionKind;
  required?: boolean;
  /** Shown in the usage line, e.g. `PARTNER_ID`. */
  value?: string;
  help: string;
}

interface PositionalSpec {
  name: string;
  kind: 'id';
  help: string;
}

interface Parsed {
  options: Record<string, string | number | boolean | undefined>;
  positionals: number[];
}

interface CommandSpec {
  group: string;
  action: string;
  summary: string;
  positionals: PositionalSpec[];
  options: OptionSpec[];
  /** Extra lines for the command's --help. */
  notes?: string[];
  /** A check across options that the table cannot express (for example "exactly one of"). */
  check?: (p: Parsed) => void;
  run(p: Parsed): Promise<unknown>;
}

const opt = (p: Parsed, flag: string) => p.options[flag];
const str = (p: Parsed, flag: string) => p.options[flag] as string | undefined;
const id = (p: Parsed, flag: string) => p.options[flag] as number | undefined;

const COMMANDS: CommandSpec[] = [
  {
    group: 'partner',
    action: 'create',
    summary: 'Create a partner (job board, agency or ATS vendor).',
    positionals: [],
    options: [
      { flag: '--name', kind: 'string', required: true, value: 'NAME', help: 'The partner name.' },
      { flag: '--kind', kind: 'string', value: 'KIND', help: 'job_board (default), agency or ats_vendor.' },
    ],
    notes: ['Prints the partner: {"id", "name", "kind", "created_at"}.'],
    async run(p) {
      const { createPartner } = await import('#companies/partners.js');
      return createPartner(str(p, '--name')!, str(p, '--kind'));
    },
  },
  {
    group: 'company',
    action: 'create',
    summary: 'Create a company of a partner; prints the Company object as the API shows it.',
    positionals: [],
    options: [
      { flag: '--partner', kind: 'id', required: true, value: 'PARTNER_ID', help: 'The owning partner.' },
      { flag: '--name', kind: 'string', required: true, value: 'NAME', help: 'The company name (the slug is derived from it).' },
      { flag: '--ats', kind: 'string', value: 'SLUG', help: 'The ATS the company uses (for example sandbox).' },
      { flag: '--status', kind: 'string', value: 'STATUS', help: 'invited, requested, active (default), failing, deactivated or deleted.' },
      { flag: '--partner-company-id', kind: 'string', value: 'ID', help: "The partner's own id for the company." },
      { flag: '--entitle', kind: 'string', value: 'LIST', help: 'Comma-separated entitlements: job_sync, candidate_sync, email_fallback.' },
      { flag: '--is-test', kind: 'flag', help: 'Mark the company as a test company.' },
      { flag: '--contact-email', kind: 'string', value: 'EMAIL', help: 'The contact e-mail (used by the e-mail fallback).' },
    ],
    async run(p) {
      const { createCompany, parseCompanyPatch } = await import('#companies/companies.js');
      const name = str(p, '--name')!;
      const partnerCompanyId = str(p, '--partner-company-id');
      const contactEmail = str(p, '--contact-email');
      // The field rules of the Company object (name length, e-mail format) are those of the update.
      parseCompanyPatch({
        name,
        ...(partnerCompanyId !== undefined ? { partner_company_id: partnerCompanyId } : {}),
        ...(contactEmail !== undefined ? { contact_email: contactEmail } : {}),
      });
      const entitle = str(p, '--entitle');
      return createCompany({
        partner: id(p, '--partner')!,
        name,
        ats: str(p, '--ats'),
        status: str(p, '--status') as NewCompany['status'],
        partner_company_id: partnerCompanyId,
        entitlements:
          entitle === undefined
            ? undefined
            : entitle
                .split(',')
                .map((e) => e.trim())
                .filter(Boolean),
        is_test: opt(p, '--is-test') === true,
        contact_email: contactEmail,
      });
    },
  },
  {
    group: 'company',
    action: 'set-fallback-job',
    summary: "Set the company's fallback job (used when the applied-for job is no longer published).",
    positionals: [{ name: 'COMPANY_ID', kind: 'id', help: 'The company.' }],
    options: [{ flag: '--job', kind: 'id', required: true, value: 'JOB_ID', help: 'An active job of that company.' }],
    notes: ['Prints the Company object as the API shows it.'],
    async run(p) {
      const { getCompanyRecord, setCompanyFields, toCompany } = await import('#companies/companies.js');
      const { getJob } = await import('#jobs/jobs.js');
      const { NotFoundError, invalidField } = await import('#platform/errors.js');
      const companyId = p.positionals[0];
      const jobId = id(p, '--job')!;
      if (!(await getCompanyRecord(companyId))) throw new NotFoundError(`Company ${companyId} does not exist.`);
      let job: Awaited<ReturnType<typeof getJob>>;
      try {
        job = await getJob(companyId, jobId);
      } catch (error) {
        if (error instanceof NotFoundError) throw new NotFoundError(`Job ${jobId} does not exist for company ${companyId}.`);
        throw error;
      }
      if (job.status !== 'active') throw invalidField('job', `The fallback job must be active; job ${jobId} is ${job.status}.`);
      await setCompanyFields(companyId, { fallback_job: jobId });
      return toCompany((await getCompanyRecord(companyId))!);
    },
  },
  {
    group: 'key',
    action: 'create',
    summary: 'Create an API key for a partner or for one company. The key is shown only this once.',
    positionals: [],
    options: [
      { flag: '--partner', kind: 'id', value: 'PARTNER_ID', help: 'A partner key (acts for all companies of the partner).' },
      { flag: '--company', kind: 'id', value: 'COMPANY_ID', help: 'A company key (acts only for that company).' },
    ],
    notes: ['Give exactly one of --partner and --company.', 'Prints {"id", "key", "scope"}.'],
    check(p) {
      const given = ['--partner', '--company'].filter((f) => p.options[f] !== undefined);
      if (given.length !== 1) throw new UsageError({ '--partner': ['Give exactly one of --partner and --company.'] });
    },
    async run(p) {
      const { createApiKey } = await import('#companies/api-keys.js');
      const partner = id(p, '--partner');
      return createApiKey(partner !== undefined ? { partner } : { company: id(p, '--company')! });
    },
  },
  {
    group: 'key',
    action: 'revoke',
    summary: 'Revoke an API key by its id.',
    positionals: [{ name: 'KEY_ID', kind: 'id', help: 'The id printed by `key create`.' }],
    options: [],
    notes: ['Prints {"id", "status": "revoked"}. Gateways may serve a cached authorization for up to the authorizer TTL.'],
    async run(p) {
      const { revokeApiKey } = await import('#companies/api-keys.js');
      return revokeApiKey(p.positionals[0]);
    },
  },
  {
    group: 'jobs',
    action: 'import',
    summary: "Run a job import for a company from a JSON file (an array of jobs in the spec's field names).",
    positionals: [],
    options: [
      { flag: '--company', kind: 'id', required: true, value: 'COMPANY_ID', help: 'The company whose jobs these are.' },
      { flag: '--file', kind: 'string', required: true, value: 'FILE', help: 'The JSON file (relative to the current directory).' },
      { flag: '--partial', kind: 'flag', help: 'The file is not the complete feed: jobs missing from it are not archived.' },
    ],
    notes: [
      'Every job needs an "external_id". Jobs are matched by it: new ones are created, changed ones updated,',
      'and (unless --partial) active jobs missing from the file are archived. Any invalid job rejects the',
      'whole file before anything is written; errors name the job, for example "[1].remote".',
      'Prints {"run_id", "created", "updated", "unchanged", "archived"}.',
    ],
    async run(p) {
      const file = resolve(str(p, '--file')!);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        throw new UsageError({
          '--file': [`Cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`],
        });
      }
      const { ValidationError } = await import('#platform/errors.js');
      let feed: unknown;
      try {
        feed = JSON.parse(text);
      } catch (error) {
        throw new ValidationError({ body: [`Not valid JSON: ${(error as Error).message}`] });
      }
      const { importJobs } = await import('#jobs/jobs.js');
      return importJobs(id(p, '--company')!, feed, { complete: opt(p, '--partial') !== true });
    },
  },
  {
    group: 'channel',
    action: 'create',
    summary: 'Create a talent channel (where applications come from, referenced by its slug).',
    positionals: [],
    options: [
      { flag: '--slug', kind: 'string', required: true, value: 'SLUG', help: 'Lower-case letters, digits, "-" and "_".' },
      { flag: '--name', kind: 'string', required: true, value: 'NAME', help: 'The display name.' },
      { flag: '--logo', kind: 'string', value: 'URL', help: 'An http(s) URL of the logo.' },
    ],
    notes: ['Prints the channel: {"id", "slug", "name", "logo", "created_at"}.'],
    check(p) {
      const logo = str(p, '--logo');
      if (logo !== undefined && !isHttpUrl(logo)) throw new UsageError({ '--logo': ['Must be an http(s) URL.'] });
    },
    async run(p) {
      const { createChannel } = await import('#applications/channels.js');
      return createChannel({ slug: str(p, '--slug')!, name: str(p, '--name')!, logo: str(p, '--logo') });
    },
  },
];

// ---------------------------------------------------------------------------------------------------
// Help

const whereHelp = `Where it runs (decided in this order; DATA_DIR defaults to .data, relative to the current directory):
  1. $DATA_DIR/runtime.json exists and its process is alive (npm start is running on that data
     directory): the tool talks to that server's emulators, so it works while the server runs.
  2. TABLE_NAME is set: AWS, configured by the standard AWS environment and credential chain
     (AWS_REGION, AWS_PROFILE, ...). An AWS_ENDPOINT_URL_DYNAMODB on a loopback address that nothing
     listens on is taken as left over from a stopped local server and skips this step.
  3. Otherwise: the embedded emulators are started on $DATA_DIR for the duration of the command
     (the server must be stopped; the data directory is created if missing).
FAKE_NOW (an ISO date-time) sets the clock, as for npm start. HIRING_ADMIN_DEBUG=1 prints the chosen
storage (and the stack of unexpected errors) on stderr.`;

const outputHelp = `Output: on success exactly one JSON document on stdout, exit code 0. On failure nothing on stdout
and one JSON document {"detail", "code", "errors"?} on stderr; exit code 2 for bad arguments (code
"invalid"), 1 for any other error (validation, not found, storage).`;

function usageLine(c: CommandSpec): string {
  const parts = [`hiring-admin ${c.group} ${c.action}`, ...c.positionals.map((a) => a.name)];
  if (c.group === 'key' && c.action === 'create') parts.push('(--partner PARTNER_ID | --company COMPANY_ID)');
  else
    for (const o of c.options) {
      const text = o.kind === 'flag' ? o.flag : `${o.flag} ${o.value ?? 'VALUE'}`;
      parts.push(o.required ? text : `[${text}]`);
    }
  return parts.join(' ');
}

function commandHelp(c: CommandSpec): string {
  const rows = [
    ...c.positionals.map((a) => [a.name, a.help]),
    ...c.options.map((o) => [o.kind === 'flag' ? o.flag : `${o.flag} ${o.value ?? 'VALUE'}`, o.help + (o.required ? ' Required.' : '')]),
    ['--help', 'Show this help.'],
  ];
  const width = Math.max(...rows.map(([left]) => left.length));
  return [
    `Usage: ${usageLine(c)}`,
    '',
    c.summary,
    '',
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`),
    ...(c.notes?.length ? ['', ...c.notes] : []),
    '',
    outputHelp,
    '',
    whereHelp,
    '',
  ].join('\n');
}

function mainHelp(group?: string): string {
  const commands = COMMANDS.filter((c) => group === undefined || c.group === group);
  return [
    'Usage: hiring-admin <group> <command> [options]      (or: npm run -s admin -- <group> <command> [options])',
    '',
    'Operator tool for what the API has no create endpoint for.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${usageLine(c)}`),
    '',
    "Run 'hiring-admin <group> <command> --help' for a command's options.",
    '',
    outputHelp,
    '',
    whereHelp,
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------
// Parsing

type Invocation = { help: string } | { command: CommandSpec; parsed: Parsed };

export function parseCommandLine(argv: string[]): Invocation {
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  const words = argv.filter((a) => a !== '--help' && a !== '-h');
  const [group, action] = words;
  const groups = [...new Set(COMMANDS.map((c) => c.group))];
  if (group === undefined || group.startsWith('-')) {
    if (wantsHelp) return { help: mainHelp() };
    throw new UsageError({ command: ['Missing command.'] }, "Missing command. Run 'hiring-admin --help'.");
  }
  if (!groups.includes(group)) throw new UsageError({ command: [`Unknown command "${group}". Use one of ${groups.join(', ')}.`] });
  const actions = COMMANDS.filter((c) => c.group === group);
  const command = actions.find((c) => c.action === action);
  if (!command) {
    if (wantsHelp && (action === undefined || action.startsWith('-'))) return { help: mainHelp(group) };
    const known = actions.map((c) => c.action).join(', ');
    throw new UsageError({
      command: [
        action === undefined
          ? `Missing command after "${group}"; use one of ${known}.`
          : `Unknown command "${group} ${action}". Use one of ${known}.`,
      ],
    });
  }
  if (wantsHelp) return { help: commandHelp(command) };
  return { command, parsed: parseArguments(command, words.slice(2)) };
}

function parseId(value: string, name: string, errors: Record<string, string[]>): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    (errors[name] ??= []).push('Must be a positive integer.');
    return NaN;
  }
  return n;
}

function parseArguments(command: CommandSpec, args: string[]): Parsed {
  const errors: Record<string, string[]> = {};
  const parsed: Parsed = { options: {}, positionals: [] };
  const rawPositionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      rawPositionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      rawPositionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const spec = command.options.find((o) => o.flag === flag);
    if (!spec) {
      (errors[flag] ??= []).push(`Unknown option for "${command.group} ${command.action}".`);
      continue;
    }
    if (parsed.options[flag] !== undefined) (errors[flag] ??= []).push('Given more than once.');
    if (spec.kind === 'flag') {
      if (eq !== -1) (errors[flag] ??= []).push('Takes no value.');
      parsed.options[flag] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else if (i + 1 < args.length && !args[i + 1].startsWith('--')) value = args[++i];
    if (value === undefined) {
      (errors[flag] ??= []).push('Needs a value.');
      continue;
    }
    parsed.options[flag] = spec.kind === 'id' ? parseId(value, flag, errors) : value;
  }
  for (const spec of command.options) {
    if (spec.required && parsed.options[spec.flag] === undefined && !errors[spec.flag])
      (errors[spec.flag] ??= []).push('This option is required.');
  }
  command.positionals.forEach((spec, i) => {
    if (rawPositionals[i] === undefined) (errors[spec.name] ??= []).push('This argument is required.');
    else parsed.positionals.push(parseId(rawPositionals[i], spec.name, errors));
  });
  if (rawPositionals.length > command.positionals.length) {
    errors.arguments = [`Unexpected argument ${JSON.stringify(rawPositionals[command.positionals.length])}.`];
  }
  if (Object.keys(errors).length) throw new UsageError(errors);
  command.check?.(parsed);
  return parsed;
}

// ---------------------------------------------------------------------------------------------------
// Where: the running server's emulators, AWS, or embedded emulators

/** The file `npm start` writes in its data directory (RUNTIME_FILE of local/runtime.ts, which this
 *  module does not import: that would load the whole HTTP stack for one constant). */
const RUNTIME_FILE = 'runtime.json';

export type Where = { mode: 'server'; url: string; pid: number } | { mode: 'aws' } | { mode: 'embedded'; dataDir: string };

function pidAlive(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid < 1) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const isLoopback = (host: string) => ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host) || host.startsWith('127.');

/** Whether something accepts TCP connections at the URL's host and port. */
function reachable(url: string, timeoutMs = 1000): Promise<boolean> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(false);
  }
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  return new Promise((done) => {
    const socket = net.connect({ host: target.hostname.replace(/^\[|\]$/g, ''), port });
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

async function runningServer(dataDir: string): Promise<{ url: string; pid: number; env: Record<string, string> } | undefined> {
  const file = join(dataDir, RUNTIME_FILE);
  if (!existsSync(file)) return undefined;
  let runtime: { pid?: unknown; url?: unknown; env?: unknown };
  try {
    runtime = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined; // being written, or damaged: treat as absent
  }
  if (!pidAlive(runtime.pid) || !runtime.env || typeof runtime.env !== 'object') return undefined;
  const env = runtime.env as Record<string, string>;
  // A live pid whose emulators do not answer is a stale file whose pid was reused by another process.
  if (!env.AWS_ENDPOINT_URL_DYNAMODB || !(await reachable(env.AWS_ENDPOINT_URL_DYNAMODB))) return undefined;
  return { url: String(runtime.url ?? ''), pid: runtime.pid as number, env };
}

/** Points the environment at the storage the command will use; returns how to stop it afterwards. */
async function connect(dataDir: string): Promise<{ where: Where; stop(): Promise<void> }> {
  const server = await runningServer(dataDir);
  if (server) {
    Object.assign(process.env, server.env);
    return { where: { mode: 'server', url: server.url, pid: server.pid }, stop: async () => {} };
  }
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
  const staleLocalEndpoint = endpoint !== undefined && endpoint !== '' && isLoopbackUrl(endpoint) && !(await reachable(endpoint));
  if (process.env.TABLE_NAME && !staleLocalEndpoint) return { where: { mode: 'aws' }, stop: async () => {} };

  const { startEmulators } = await import('./emulators.js');
  embeddedDataDir = dataDir;
  const emulators = await startEmulators(dataDir);
  return { where: { mode: 'embedded', dataDir }, stop: () => emulators.stop() };
}

function dataDirInUse(dataDir: string): ToolError {
  return new ToolError(
    'data_dir_in_use',
    `The data directory ${dataDir} is locked by another process (a server whose runtime.json is missing?). Stop it, or point DATA_DIR elsewhere.`,
  );
}

function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopback(new URL(url).hostname);
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------------
// Main

function write(stream: NodeJS.WriteStream, value: unknown): Promise<void> {
  const text = typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`;
  return new Promise((done) => stream.write(text, () => done()));
}

/** The data directory of embedded mode, once its emulators are starting. */
let embeddedDataDir: string | undefined;

async function errorBody(error: unknown): Promise<{ body: ErrorBody; exitCode: number }> {
  if (error instanceof UsageError) return { body: error.body(), exitCode: 2 };
  if (embeddedDataDir !== undefined && /Database is (closed|not open)|\bLOCK\b/.test((error as Error)?.message ?? '')) {
    error = dataDirInUse(embeddedDataDir);
  }
  if (error instanceof ToolError) return { body: { detail: error.message, code: error.code }, exitCode: 1 };
  const { ApiError } = await import('#platform/errors.js');
  if (error instanceof ApiError) return { body: error.body() as ErrorBody, exitCode: 1 };
  const e = error as Error;
  if (e?.name === 'CredentialsProviderError' || /credential/i.test(e?.message ?? '')) {
    return { body: { detail: `AWS credentials: ${e.message}`, code: 'aws_credentials' }, exitCode: 1 };
  }
  if (process.env.HIRING_ADMIN_DEBUG) process.stderr.write(`${e?.stack ?? String(error)}\n`);
  return { body: { detail: `${e?.name ?? 'Error'}: ${e?.message ?? String(error)}`, code: 'internal_error' }, exitCode: 1 };
}

export async function main(argv: string[]): Promise<number> {
  // Node's warnings (for example node:sqlite's ExperimentalWarning in the emulators) would add to stderr,
  // which on failure must hold exactly the error document.
  process.removeAllListeners('warning');
  // The service's logger writes to stdout, which must hold only the result.
  process.env.LOG_LEVEL ??= 'SILENT';

  let stop: (() => Promise<void>) | undefined;
  try {
    const invocation = parseCommandLine(argv);
    if ('help' in invocation) {
      await write(process.stdout, invocation.help);
      return 0;
    }
    // Operators expect consecutive ids (partner 1, 2, ...): one id per counter reservation, unless set
    // otherwise. An import creates many jobs at once and keeps the service's block size.
    if (!(invocation.command.group === 'jobs' && invocation.command.action === 'import')) process.env.ID_BLOCK_SIZE ??= '1';
    const connection = await connect(resolve(process.env.DATA_DIR || '.data'));
    stop = connection.stop;
    if (process.env.HIRING_ADMIN_DEBUG) process.stderr.write(`hiring-admin: ${JSON.stringify(connection.where)}\n`);
    const result = await invocation.command.run(invocation.parsed);
    await write(process.stdout, result);
    return 0;
  } catch (error) {
    const { body, exitCode } = await errorBody(error);
    await write(process.stderr, body);
    return exitCode;
  } finally {
    try {
      await stop?.();
    } catch {
      // the command's outcome is already printed
    }
  }
}

/** Runs the tool on this process's arguments and exits with its exit code. */
export async function run(): Promise<never> {
  // An error thrown outside the command's promise chain (dynalite throws from its callbacks when it
  // cannot open a data directory that another process has locked) still ends in one error document.
  const crash = async (error: unknown) => {
    const { body, exitCode } = await errorBody(error);
    await write(process.stderr, body);
    process.exit(exitCode);
  };
  process.on('uncaughtException', (error) => void crash(error));
  process.on('unhandledRejection', (error) => void crash(error));
  const code = await main(process.argv.slice(2));
  // The SDK's keep-alive sockets would hold the process open; the output is flushed already.
  process.exit(code);
}

// Run when executed directly (`tsx local/admin.ts ...`); bin/hiring-admin.js imports it and calls run().
if (process.argv[1] !== undefined && /[\\/]local[\\/]admin\.ts$/.test(process.argv[1])) await run();
