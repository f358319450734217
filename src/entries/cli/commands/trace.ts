import { EXIT, packageVersion, type CliContext } from "../cli-io.js";
import { issueTraceCommand, parseIssueRef } from "../issue-trace-command.js";
import { traceCommand } from "../trace-command.js";

export interface TraceFlags {
  format: "json" | "otlp";
  output?: string;
  repo?: string;
  installation?: string;
}

/** `playbook-bot trace`: a local run's trace, or an issue's (`owner/repo#n`, read from GitHub). */
export async function traceAny(ctx: CliContext, run: string, opts: TraceFlags): Promise<number> {
  const { io } = ctx;
  const issue = parseIssueRef(run);
  if (!issue) return traceCommand(run, { ...opts, version: packageVersion() }, io);
  const installation = Number(opts.installation ?? 0);
  if (!Number.isSafeInteger(installation) || installation < 0) {
    io.err("playbook-bot: --installation takes a number, the app's installation id\n");
    return EXIT.invalid;
  }
  const options = {
    format: opts.format,
    installation,
    version: packageVersion(),
    ...(opts.output ? { output: opts.output } : {}),
  };
  return issueTraceCommand(issue, options, io, process.env);
}
