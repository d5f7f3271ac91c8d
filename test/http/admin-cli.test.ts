/**
 * The admin tool's command line (commander): --help on every level, and bad command lines as one D2 error
 * document on stderr with exit code 2. Runs the tool in child processes with no server and no AWS settings, the
 * top-level help through the real bin shim and the rest through the tool's bundle (P341); none of these command
 * lines gets as far as the storage, which the test checks too.
 */
import { connectFlags } from '#delivery/connectors/registry.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCli, cleanEnv, runAdminTool, type CliResult } from '../helpers/admin-cli.js';

let work: string;
/** A data directory that must still not exist at the end: usage errors and help never start the storage. */
let dataDir: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'his-admin-cli-'));
  dataDir = join(work, 'data');
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The tool as the tests run it (its bundle, P341). */
const cli = (...args: string[]): Promise<CliResult> => adminCli(args, dataDir);
/** The tool through its bin shim, as an operator runs it. */
const shim = (...args: string[]): Promise<CliResult> => runAdminTool(args, cleanEnv(dataDir), { shim: true });

/** A usage error: exit code 2, nothing on stdout, and stderr is exactly one D2 document. */
function usageError(result: CliResult): { detail: string; code: string; errors: Record<string, string[]> } {
  expect(result.stdout).toBe('');
  expect(result.code).toBe(2);
  const body = JSON.parse(result.stderr);
  expect(body).toEqual({ detail: expect.any(String), code: 'invalid', errors: expect.any(Object) });
  return body;
}

/** Every command with its arguments and options, as docs/admin.md lists them. */
const COMMANDS: Record<string, string[]> = {
  'partner create': ['--name', '--kind'],
  'company create': ['--partner', '--name', '--ats', '--status', '--partner-company-id', '--entitle', '--is-test', '--contact-email'],
  'company invite': ['--partner', '--name', '--contact-email', '--partner-company-id'],
  'company invite-link': ['COMPANY_ID'],
  'company set-fallback-job': ['COMPANY_ID', '--job'],
  // The credential flags come from the connector registry (issue 24), one per flag.
  'company connect': ['COMPANY_ID', '--ats', ...connectFlags().map((f) => f.flag)],
  'company status': ['COMPANY_ID'],
  'company disconnect': ['COMPANY_ID'],
  'company entitle': ['COMPANY_ID', '--add', '--remove'],
  'company set-status': ['COMPANY_ID', 'STATUS'],
  'key create': ['--partner', '--company'],
  'key revoke': ['KEY_ID'],
  'jobs import': ['--company', '--file', '--partial'],
  'jobs sync': ['--company'],
  'jobs runs': ['--company', '--limit'],
  'applications deliveries': ['APPLICATION_ID', '--follow', '--timeout'],
  'channel create': ['--slug', '--name', '--logo', '--format', '--secret'],
  'channel update': ['--slug', '--disposition-url', '--indeed-client-id', '--indeed-client-secret'],
  'channel revoke-tokens': ['--slug'],
  'webhook create': ['--partner', '--url', '--events'],
  'webhook list': ['--partner'],
  'webhook delete': ['WEBHOOK_ID'],
  'webhook deliveries': ['WEBHOOK_ID', '--limit'],
  'outbox status': [],
  'outbox replay': ['--older-than'],
};
const GROUPS = [
  ...new Set(
    Object.keys(COMMANDS)
      .filter((c) => c.includes(' '))
      .map((c) => c.split(' ')[0]),
  ),
];

test('the bundle the tests run answers as the bin shim does, byte for byte (P341)', async () => {
  const lines = [['--help'], ['webhook', 'deliveries', '--help'], ['company', 'frobnicate'], ['key', 'create', '--partner', 'abc']];
  const [viaShim, viaBundle] = await Promise.all([
    Promise.all(lines.map((line) => shim(...line))),
    Promise.all(lines.map((line) => cli(...line))),
  ]);
  expect(viaBundle).toEqual(viaShim);
  expect(viaShim.map((r) => r.code)).toEqual([0, 0, 2, 2]);
});

test("under a Node older than 24 the shim runs itself again with the project's Node, with the same result", async () => {
  // Node 20 as far as the shim can tell, and a record of the command it re-runs itself with.
  const olderNode = [
    "import cp from 'node:child_process'; import { syncBuiltinESMExports } from 'node:module';",
    "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.11.0' } });",
    "const spawnSync = cp.spawnSync; cp.spawnSync = (command, ...rest) => { process.stderr.write('re-run: ' + command + '\\n'); return spawnSync(command, ...rest); };",
    'syncBuiltinESMExports();',
  ].join(' ');
  const preload = ['--import', `data:text/javascript,${encodeURIComponent(olderNode)}`];
  const line = ['key', 'create', '--partner', 'abc'];
  const [direct, rerun] = await Promise.all([shim(...line), runAdminTool(line, cleanEnv(dataDir), { shim: true, nodeArgs: preload })]);
  const [first, ...rest] = rerun.stderr.split('\n');
  expect(first).toBe(`re-run: ${join(process.cwd(), 'node_modules', 'node', 'bin', 'node')}`);
  expect({ code: rerun.code, stdout: rerun.stdout, stderr: rest.join('\n') }).toEqual({ code: 2, stdout: '', stderr: direct.stderr });
});

describe('--help', () => {
  test('the top level lists every command with its usage line, on stdout with exit code 0', async () => {
    const [long, short] = await Promise.all([shim('--help'), shim('-h')]);
    expect(long.code).toBe(0);
    expect(long.stderr).toBe('');
    expect(long.stdout).toMatch(/^Usage: hiring-admin /);
    const listed = long.stdout
      .split('\n')
      .filter((line) => line.startsWith('  hiring-admin '))
      .map((line) => {
        const words = line.trim().split(' ').slice(1);
        const end = words.findIndex((w) => !/^[a-z][a-z-]*$/.test(w));
        return words.slice(0, end < 0 ? words.length : end).join(' ');
      });
    expect(listed.sort()).toEqual(Object.keys(COMMANDS).sort());
    expect(long.stdout).toContain('hiring-admin key create (--partner PARTNER_ID | --company COMPANY_ID)');
    expect(long.stdout).toContain('runtime.json');
    expect(short).toEqual(long);
  });

  test.each(GROUPS)('%s --help lists the commands of the group', async (group) => {
    const help = await cli(group, '--help');
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    expect(help.stdout).toMatch(new RegExp(`^Usage: hiring-admin ${group} <command>`));
    const commands = Object.keys(COMMANDS).filter((c) => c.startsWith(`${group} `));
    for (const command of commands) expect(help.stdout).toMatch(new RegExp(`^  ${command.split(' ')[1]}\\b`, 'm'));
  });

  test.each(Object.entries(COMMANDS))('%s --help shows its usage and every argument and option', async (command, names) => {
    const help = await cli(...command.split(' '), '--help');
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    const [usage, ...rest] = help.stdout.split('\n');
    expect(usage).toMatch(new RegExp(`^Usage: hiring-admin ${command}( |$)`));
    for (const name of names) expect(usage).toMatch(new RegExp(`[ (\\[]${name}([ )\\]]|$)`));
    // each option has a described line of its own
    for (const name of names.filter((n) => n.startsWith('--')))
      expect(rest.join('\n')).toMatch(new RegExp(`^  ${name} .*\\S\\s{2,}\\S`, 'm'));
    expect(help.stdout).toMatch(/^ {2}-h, --help\s+Show this help\./m);
  });

  test('a command without arguments or options shows none, not "[options]" (P272)', async () => {
    const [top, group, own] = await Promise.all([cli('--help'), cli('outbox', '--help'), cli('outbox', 'status', '--help')]);
    expect(top.stdout).toMatch(/^ {2}hiring-admin outbox status$/m);
    expect(top.stdout).not.toContain('outbox status [options]');
    expect(group.stdout).toMatch(/^ {2}status {2,}How many events wait/m);
    expect(group.stdout).toMatch(/^ {2}replay \[options\] {2,}Publish/m);
    expect(own.stdout).toMatch(/^Usage: hiring-admin outbox status\n/);
  });

  test('--help wins over a bad command line', async () => {
    const help = await cli('company', 'create', '--partner', 'abc', '--bogus', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: hiring-admin company create --partner PARTNER_ID --name NAME/);
  });
});

describe('bad command lines: one D2 document on stderr, exit code 2', () => {
  test('a missing or unknown command', async () => {
    const [none, unknown, noAction, unknownAction] = await Promise.all([
      cli(),
      cli('frobnicate'),
      cli('company'),
      cli('company', 'frobnicate'),
    ]);
    expect(usageError(none)).toEqual({
      detail: "Missing command. Run 'hiring-admin --help'.",
      code: 'invalid',
      errors: { command: ['Missing command.'] },
    });
    expect(usageError(unknown).errors).toEqual({
      command: ['Unknown command "frobnicate". Use one of partner, company, key, jobs, applications, channel, webhook, outbox.'],
    });
    expect(usageError(noAction).errors).toEqual({
      command: [
        'Missing command after "company"; use one of create, invite, invite-link, set-fallback-job, connect, status, disconnect, entitle, set-status.',
      ],
    });
    expect(usageError(unknownAction).errors).toEqual({
      command: [
        'Unknown command "company frobnicate". Use one of create, invite, invite-link, set-fallback-job, connect, status, disconnect, entitle, set-status.',
      ],
    });
  });

  test('a missing required option or argument', async () => {
    const [partner, channel, fallback] = await Promise.all([
      cli('partner', 'create', '--kind', 'agency'),
      cli('channel', 'create', '--slug', 'board'),
      cli('company', 'set-fallback-job'),
    ]);
    expect(usageError(partner)).toEqual({
      detail: 'Invalid value for "--name": This option is required.',
      code: 'invalid',
      errors: { '--name': ['This option is required.'] },
    });
    expect(usageError(channel).errors).toEqual({ '--name': ['This option is required.'] });
    expect(usageError(fallback).errors).toEqual({ COMPANY_ID: ['This argument is required.'], '--job': ['This option is required.'] });
  });

  test('a bad integer names the option or argument', async () => {
    const [option, equals, argument, negative, olderThan, fraction] = await Promise.all([
      cli('key', 'create', '--partner', 'abc'),
      cli('jobs', 'import', '--company=1e3', '--file', 'jobs.json'),
      cli('key', 'revoke', '7x'),
      cli('company', 'set-fallback-job', '-3', '--job', '0'),
      cli('outbox', 'replay', '--older-than', 'an hour'),
      cli('outbox', 'replay', '--older-than=1.5'),
    ]);
    expect(usageError(option)).toEqual({
      detail: 'Invalid value for "--partner": Must be a positive integer.',
      code: 'invalid',
      errors: { '--partner': ['Must be a positive integer.'] },
    });
    expect(usageError(equals).errors).toEqual({ '--company': ['Must be a positive integer.'] });
    expect(usageError(argument).errors).toEqual({ KEY_ID: ['Must be a positive integer.'] });
    expect(usageError(negative).errors).toEqual({ COMPANY_ID: ['Must be a positive integer.'], '--job': ['Must be a positive integer.'] });
    expect(usageError(olderThan).errors).toEqual({ '--older-than': ['Must be a whole number of seconds (0 or more).'] });
    expect(usageError(fraction).errors).toEqual({ '--older-than': ['Must be a whole number of seconds (0 or more).'] });
  });

  test('numbers past what the command can use: --limit above 1,000, --older-than above ten years (P272)', async () => {
    const [limit, olderThan, safeMax, zero] = await Promise.all([
      cli('webhook', 'deliveries', '1', '--limit', '2147483648'),
      cli('outbox', 'replay', '--older-than', '99999999999'),
      cli('outbox', 'replay', '--older-than=9007199254740991'),
      cli('webhook', 'deliveries', '1', '--limit', '0'),
    ]);
    expect(usageError(limit)).toEqual({
      detail: 'Invalid value for "--limit": Must be at most 1000.',
      code: 'invalid',
      errors: { '--limit': ['Must be at most 1000.'] },
    });
    expect(usageError(olderThan).errors).toEqual({ '--older-than': ['Must be at most 315360000 seconds (ten years).'] });
    expect(usageError(safeMax).errors).toEqual({ '--older-than': ['Must be at most 315360000 seconds (ten years).'] });
    expect(usageError(zero).errors).toEqual({ '--limit': ['Must be a positive integer.'] });
  });

  test('an option without its value at the end: the problems before it are reported too (P287, P272)', async () => {
    const [unknown, flagValue] = await Promise.all([
      cli('company', 'create', '--partner', 'abc', '--bogus', '--name'),
      cli('jobs', 'import', '--partial=yes', '--colour=red', '--company', '1', '--file'),
    ]);
    expect(usageError(unknown).errors).toEqual({
      '--partner': ['Must be a positive integer.'],
      '--bogus': ['Unknown option for "company create".'],
      '--name': ['Needs a value.'],
    });
    expect(usageError(flagValue).errors).toEqual({
      '--partial': ['Takes no value.'],
      '--colour': ['Unknown option for "jobs import".'],
      '--file': ['Needs a value.'],
    });
  });

  test('unknown options, options without their value, repeated options, surplus arguments', async () => {
    const [unknown, noValue, optionAsValue, flagValue, twice, surplus, neither, both, logo] = await Promise.all([
      cli('partner', 'create', '--name', 'Board', '--colour', 'red'),
      cli('partner', 'create', '--name'),
      cli('partner', 'create', '--name', '--kind', 'agency'),
      cli('jobs', 'import', '--company', '1', '--file', 'jobs.json', '--partial=yes'),
      cli('partner', 'create', '--name', 'A', '--name', 'B'),
      cli('key', 'revoke', '1', '2'),
      cli('key', 'create'),
      cli('key', 'create', '--partner', '1', '--company', '2'),
      cli('channel', 'create', '--slug', 'board', '--name', 'Board', '--logo', 'ftp://board.example/logo.png'),
    ]);
    expect(usageError(unknown).errors).toEqual({ '--colour': ['Unknown option for "partner create".'] });
    expect(usageError(noValue).errors).toEqual({ '--name': ['Needs a value.'] });
    expect(usageError(optionAsValue).errors).toEqual({ '--name': ['Needs a value.'], arguments: ['Unexpected argument "agency".'] });
    expect(usageError(flagValue).errors).toEqual({ '--partial': ['Takes no value.'] });
    expect(usageError(twice).errors).toEqual({ '--name': ['Given more than once.'] });
    expect(usageError(surplus).errors).toEqual({ arguments: ['Unexpected argument "2".'] });
    expect(usageError(neither).errors).toEqual({ '--partner': ['Give exactly one of --partner and --company.'] });
    expect(usageError(both).errors).toEqual({ '--partner': ['Give exactly one of --partner and --company.'] });
    expect(usageError(logo).errors).toEqual({ '--logo': ['Must be an http(s) URL.'] });
  });

  test('none of the above started the storage', () => {
    expect(existsSync(dataDir)).toBe(false);
  });
});
