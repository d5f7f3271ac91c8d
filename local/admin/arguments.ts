/**
 * Options and arguments of the admin commands, and how a bad command line becomes one usage error.
 *
 * The tool reports every problem of a command line in one error document (P42), while commander stops at
 * its first complaint. So the value parsers here do not throw: they return a `Refused` value that names
 * the problem, and `usageErrors` collects, for the command commander chose, the refused values together
 * with what commander complained about (missing or unknown options, missing or surplus arguments).
 */
import { type Command, type CommanderError } from 'commander';
import { isHttpUrl } from '#platform/web-formats.js';

/** An option or argument value that its parser refused; never reaches an action. */
export class Refused {
  constructor(readonly problems: string[]) {}
}

type Parse = (value: string) => unknown;

/** Wraps a value parser: repeated options and refused values become `Refused`. */
function parser(parse: Parse) {
  return (value: string | undefined, previous: unknown): any => {
    const problems = previous instanceof Refused ? [...previous.problems] : [];
    if (previous !== undefined) problems.push('Given more than once.');
    // Commander gives a required option the next word even when it is another option (`--name --kind
    // agency`); the tool has always refused that rather than name a partner "--kind".
    const parsed = value === undefined ? true : value.startsWith('--') ? new Refused(['Needs a value.']) : parse(value);
    if (parsed instanceof Refused) problems.push(...parsed.problems);
    return problems.length ? new Refused(problems) : parsed;
  };
}

function positiveInteger(value: string): number | Refused {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) return new Refused(['Must be a positive integer.']);
  return n;
}

/** The longest `--older-than`: ten years, far more than any event waits, and a date JavaScript and ISO 8601 still write (P272). */
export const MAX_SECONDS = 10 * 365 * 86_400;

function nonNegativeInteger(value: string): number | Refused {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) return new Refused(['Must be a whole number of seconds (0 or more).']);
  if (n > MAX_SECONDS) return new Refused([`Must be at most ${MAX_SECONDS} seconds (ten years).`]);
  return n;
}

/** The most `--limit` takes: what one DynamoDB Query page of attempts holds comfortably (P272). */
export const MAX_LIMIT = 1000;

function limitOf(value: string): number | Refused {
  const n = positiveInteger(value);
  return n instanceof Refused || n <= MAX_LIMIT ? n : new Refused([`Must be at most ${MAX_LIMIT}.`]);
}

/** The service's one rule for URLs it stores and hands out (web-formats.ts). */
function httpUrl(value: string): string | Refused {
  return isHttpUrl(value) ? value : new Refused(['Must be an http(s) URL.']);
}

// Value parsers for `.option()`, `.requiredOption()` and `.argument()`.
/** Any text. */
export const text = parser((v) => v);
/** A positive integer (ids are positive integers below 2^53). */
export const id = parser(positiveInteger);
/** A count of results, 1 to MAX_LIMIT. */
export const limit = parser(limitOf);
/** A duration in whole seconds, 0 to MAX_SECONDS. */
export const seconds = parser(nonNegativeInteger);
/** An http(s) URL. */
export const url = parser(httpUrl);
/** A flag without a value (so that a repeated flag is refused like any repeated option). */
export const flag = parser(() => true);

// ---------------------------------------------------------------------------------------------------
// Usage errors

const isOptionLike = (arg: string) => arg.length > 1 && arg.startsWith('-') && !/^-\d/.test(arg);
const findOption = (cmd: Command, flag: string) => cmd.options.find((o) => o.long === flag || o.short === flag);
const commandName = (cmd: Command): string => (cmd.parent?.parent ? `${commandName(cmd.parent)} ${cmd.name()}` : cmd.name());

/**
 * The options of `cmd`'s part of the command line that commander would put in cmd.args (unknown ones, and a flag
 * given `=value`), for a command line that stopped at its last word: an option whose value is missing.
 */
function unparsedOptions(cmd: Command, argv: string[]): string[] {
  let depth = 0;
  for (let c = cmd; c.parent; c = c.parent) depth += 1;
  const words = argv.slice(depth, -1);
  const found: string[] = [];
  for (let i = 0; i < words.length; i += 1) {
    if (!isOptionLike(words[i])) continue;
    const [flag, ...value] = words[i].split('=');
    const option = findOption(cmd, flag);
    // As commander does: a known option that takes a value takes the next word, whatever it is.
    if (option && !option.isBoolean()) i += value.length ? 0 : 1;
    else if (!option || value.length) found.push(words[i]);
  }
  return found;
}

/**
 * The usage errors of a command line that stopped at `cmd`: `complaint` is commander's first complaint,
 * absent when commander accepted the command line (the value parsers may still have refused values).
 * `argv` is the whole command line, for the one complaint commander raises before it has parsed it all.
 */
export function usageErrors(cmd: Command, argv: string[], complaint?: CommanderError): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (name: string, problem: string) => (errors[name] ??= []).push(problem);

  for (const option of cmd.options) {
    const value: unknown = cmd.getOptionValue(option.attributeName());
    if (value instanceof Refused) value.problems.forEach((p) => add(option.long ?? option.name(), p));
  }

  // A required value at the very end of the command line stops commander's parsing there.
  const parsedAll = complaint?.code !== 'commander.optionMissingArgument';
  if (!parsedAll) {
    const flag = argv[argv.length - 1].split('=')[0];
    add(findOption(cmd, flag)?.long ?? flag, 'Needs a value.');
  }

  // Positional arguments come first in cmd.args; from the first unknown option on, the rest is unknown. Stopped
  // early, commander has not set cmd.args: its options are found in the command line (P287, formerly the second
  // P42, in P272).
  const args = parsedAll ? cmd.args : unparsedOptions(cmd, argv);
  const firstUnknown = args.findIndex(isOptionLike);
  const operands = firstUnknown === -1 ? args : args.slice(0, firstUnknown);
  for (const arg of args.filter(isOptionLike)) {
    const [flag, ...value] = arg.split('=');
    const known = findOption(cmd, flag);
    if (known && known.isBoolean() && value.length) add(flag, 'Takes no value.');
    else add(flag, `Unknown option for "${commandName(cmd)}".`);
  }
  for (const option of cmd.options) {
    const name = option.long ?? option.name();
    if (option.mandatory && cmd.getOptionValue(option.attributeName()) === undefined && !errors[name])
      add(name, 'This option is required.');
  }
  if (parsedAll) {
    cmd.registeredArguments.forEach((argument, i) => {
      if (operands[i] === undefined) {
        if (argument.required) add(argument.name(), 'This argument is required.');
        return;
      }
      // Commander parses arguments only after its checks of the options, so they may not be parsed yet.
      const value: unknown = complaint ? argument.parseArg?.(operands[i], undefined) : cmd.processedArgs[i];
      if (value instanceof Refused) value.problems.forEach((p) => add(argument.name(), p));
    });
    if (operands.length > cmd.registeredArguments.length) {
      errors.arguments = [`Unexpected argument ${JSON.stringify(operands[cmd.registeredArguments.length])}.`];
    }
  }
  return errors;
}

/** For a command that takes exactly one of some options (checked before its action runs). */
export function exactlyOne(cmd: Command, flags: string[]): Record<string, string[]> | undefined {
  const given = flags.filter((flag) => cmd.getOptionValue(findOption(cmd, flag)!.attributeName()) !== undefined);
  if (given.length === 1) return undefined;
  return { [flags[0]]: [`Give exactly one of ${flags.join(' and ')}.`] };
}

/** The usage line in the tool's notation (`COMPANY_ID --job JOB_ID [--partial]`), from the command's own
 *  arguments and options; commander's default would be `[options] <COMPANY_ID>`. */
export function usageLine(cmd: Command): string {
  return [
    ...cmd.registeredArguments.map((a) => a.name()),
    ...cmd.options.map((o) => {
      const text = o.flags.replace(/[<>]/g, '');
      return o.mandatory ? text : `[${text}]`;
    }),
  ].join(' ');
}
