import { runAdmin } from './cli.js';

/** The admin CLI's process (`npm run -s admin -- <command> [--flags]`): scripts/admin/cli.ts on this process's environment and streams. */
process.exitCode = await runAdmin(process.argv.slice(2), {
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
