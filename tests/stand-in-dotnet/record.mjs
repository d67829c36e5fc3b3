// The stand-in dotnet's answer to every command line that is not FSAC (see ./dotnet): it
// appends one JSON line to $FSLENS_STAND_IN_LOG (when set) with its arguments, working
// directory, exit code and the environment variables named FSLENS_STAND_IN_*, then answers:
//
//   --version                      prints an SDK version (8.0.100, or $FSLENS_STAND_IN_SDK) and exits 0
//   anything else                  prints "stand-in dotnet: <arguments as JSON>" on stdout and a
//                                  line on stderr, and exits with $FSLENS_STAND_IN_EXIT_CODE (default 0)
//
// With FSLENS_STAND_IN_ECHO_STDIN=1 it first copies its standard input to stdout (up to the end
// of input: callers that keep stdin open must not set it). With FSLENS_STAND_IN_SIGNAL=NAME it
// ends by that signal instead of an exit code.
import fs from "node:fs";

const argv = process.argv.slice(2);
const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith("FSLENS_STAND_IN_")));
const version = argv.length === 1 && argv[0] === "--version";
const exitCode = version ? 0 : Number(process.env.FSLENS_STAND_IN_EXIT_CODE ?? 0);
const signal = version ? undefined : process.env.FSLENS_STAND_IN_SIGNAL;

if (process.env.FSLENS_STAND_IN_LOG) {
  const record = { argv, cwd: process.cwd(), exitCode, signal, environment, at: new Date().toISOString() };
  fs.appendFileSync(process.env.FSLENS_STAND_IN_LOG, `${JSON.stringify(record)}\n`);
}
if (version) {
  process.stdout.write(`${process.env.FSLENS_STAND_IN_SDK ?? "8.0.100"}\n`);
  process.exit(0);
}
if (process.env.FSLENS_STAND_IN_ECHO_STDIN === "1") {
  process.stdout.write(fs.readFileSync(0));
}
process.stdout.write(`stand-in dotnet: ${JSON.stringify(argv)}\n`);
process.stderr.write(`stand-in dotnet: exiting with ${signal ? `signal ${signal}` : exitCode}\n`);
if (signal) {
  process.kill(process.pid, signal);
  // A signal the process does not die of would leave it running: end it anyway.
  setTimeout(() => process.exit(exitCode), 1000);
} else {
  process.exitCode = exitCode;
}
