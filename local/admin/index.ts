/**
 * `hiring-admin`: the operator tool for what the API has no create endpoint for (partners, companies,
 * keys, job imports, talent channels). It parses the command line with commander, calls the domain
 * functions in shared/ and prints the result; see docs/admin.md.
 *
 * Each area is one module that adds its command group (`partner`, `company`, ...) to the program; a new
 * area is one more module in AREAS. The output contract is in output.ts, where a command runs in
 * context.ts, and how a bad command line becomes one usage error in arguments.ts.
 */
import { Command, Help, type CommanderError } from 'commander';
import { applicationCommands } from './applications.js';
import { usageErrors, usageLine } from './arguments.js';
import { channelCommands } from './channels.js';
import { companyCommands } from './companies.js';
import { connectionCommands } from './connections.js';
import { Session } from './context.js';
import { jobsCommands } from './jobs.js';
import { keyCommands } from './keys.js';
import { outboxCommands } from './outbox.js';
import { errorBody, UsageError, write } from './output.js';
import { partnerCommands } from './partners.js';
import { webhookCommands } from './webhooks.js';

const AREAS = [
  partnerCommands,
  companyCommands,
  keyCommands,
  jobsCommands,
  applicationCommands,
  connectionCommands,
  channelCommands,
  webhookCommands,
  outboxCommands,
];

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

/** Commander stopped parsing at `command` (help shown, or a complaint about the command line). */
class Stopped extends Error {
  constructor(
    readonly command: Command,
    readonly reason: CommanderError,
  ) {
    super(reason.message);
  }
}

function* commandsOf(command: Command): Generator<Command> {
  yield command;
  for (const sub of command.commands) yield* commandsOf(sub);
}

const isLeaf = (command: Command) => command.commands.length === 0;

export function buildProgram(session: Session, stdout: string[]): Command {
  const program = new Command('hiring-admin')
    .description('Operator tool for what the API has no create endpoint for.')
    .usage('<group> <command> [options]      (or: npm run -s admin -- <group> <command> [options])')
    .helpOption('-h, --help', 'Show this help.')
    .helpCommand(false)
    // Help goes to stdout once the command line is handled; commander's own error text is replaced by
    // the one D2 document main() prints.
    .configureOutput({ writeOut: (text) => stdout.push(text), writeErr: () => {}, outputError: () => {} })
    .configureHelp({
      optionTerm: (option) => option.flags.replace(/[<>]/g, ''),
      // A command that takes nothing has the usage line " " (commander puts "[options]" for an empty one, P272).
      commandUsage(this: Help, command: Command) {
        return Help.prototype.commandUsage.call(this, command).trimEnd();
      },
      subcommandTerm: (command) =>
        [
          command.name(),
          ...command.registeredArguments.map((a) => a.name()),
          ...(!isLeaf(command) ? ['<command>'] : command.options.length ? ['[options]'] : []),
        ].join(' '),
    })
    .addHelpText('afterAll', `\n${outputHelp}\n\n${whereHelp}\n`)
    .hook('preAction', (_program, command) => {
      const errors = usageErrors(command, []);
      if (Object.keys(errors).length) throw new UsageError(errors);
    });

  for (const area of AREAS) area(program, session);

  for (const command of commandsOf(program)) {
    command.exitOverride((reason) => {
      throw new Stopped(command, reason);
    });
    if (command === program) continue;
    command.helpCommand(false);
    // Commander's generated usage is "[options] <COMPANY_ID>"; the tool's names the options.
    if (!isLeaf(command)) command.usage('<command> [options]');
    else if (command.usage().startsWith('[options]')) command.usage(usageLine(command) || ' ');
  }
  const leaves = [...commandsOf(program)].filter(isLeaf);
  program.addHelpText(
    'after',
    [
      '',
      'All commands:',
      ...leaves.map((c) => `  ${program.createHelp().commandUsage(c)}`),
      '',
      "Run 'hiring-admin <group> <command> --help' for a command's options.",
    ].join('\n'),
  );
  return program;
}

/** The usage error for commander's complaint about the command line at `command`. */
function complaintError(command: Command, reason: CommanderError, argv: string[]): UsageError {
  const names = command.commands.map((c) => c.name()).join(', ');
  const path = command.parent ? `${command.name()} ` : '';
  if (!isLeaf(command)) {
    if (reason.code === 'commander.help') {
      // help({error: true}): the tool or a group without its command
      if (!command.parent) return new UsageError({ command: ['Missing command.'] }, "Missing command. Run 'hiring-admin --help'.");
      return new UsageError({ command: [`Missing command after "${command.name()}"; use one of ${names}.`] });
    }
    if (reason.code === 'commander.unknownCommand') {
      return new UsageError({ command: [`Unknown command "${path}${command.args[0]}". Use one of ${names}.`] });
    }
  }
  const errors = usageErrors(command, argv, reason);
  return new UsageError(Object.keys(errors).length ? errors : { command: [reason.message.replace(/^error: /, '')] });
}

export async function main(argv: string[], session = new Session()): Promise<number> {
  // Node's warnings (for example node:sqlite's ExperimentalWarning in the emulators) would add to stderr,
  // which on failure must hold exactly the error document.
  process.removeAllListeners('warning');
  // The service's logger writes to stdout, which must hold only the result.
  process.env.LOG_LEVEL ??= 'SILENT';

  const stdout: string[] = [];
  try {
    try {
      await buildProgram(session, stdout).parseAsync(argv, { from: 'user' });
    } catch (error) {
      if (!(error instanceof Stopped)) throw error;
      if (error.reason.exitCode === 0) {
        await write(process.stdout, stdout.join('')); // --help
        return 0;
      }
      throw complaintError(error.command, error.reason, argv);
    }
    await write(process.stdout, session.result);
    return 0;
  } catch (error) {
    const { body, exitCode } = await errorBody(error, session.embeddedDataDir);
    await write(process.stderr, body);
    return exitCode;
  } finally {
    await session.stop();
  }
}

/** Runs the tool on this process's arguments and exits with its exit code. */
export async function run(): Promise<never> {
  // An error thrown outside the command's promise chain (dynalite throws from its callbacks when it
  // cannot open a data directory that another process has locked) still ends in one error document.
  const session = new Session();
  const crash = async (error: unknown) => {
    const { body, exitCode } = await errorBody(error, session.embeddedDataDir);
    await write(process.stderr, body);
    process.exit(exitCode);
  };
  process.on('uncaughtException', (error) => void crash(error));
  process.on('unhandledRejection', (error) => void crash(error));
  const code = await main(process.argv.slice(2), session);
  // The SDK's keep-alive sockets would hold the process open; the output is flushed already.
  process.exit(code);
}

// Run when executed directly (`tsx local/admin/index.ts ...`); bin/hiring-admin.js imports it and calls run().
if (process.argv[1] !== undefined && /[\\/]local[\\/]admin[\\/]index\.ts$/.test(process.argv[1])) await run();
