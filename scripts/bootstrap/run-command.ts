import { spawn } from 'node:child_process';
import { ProcessGroup } from '../processes.js';

/**
 * Every command still running, each in its own process group, so that ending it also ends what it
 * spawned (vite's esbuild, the initdb under runuser). Ended by `stopCommands`, by a signal to the
 * launcher (out of the terminal's group, a Ctrl-C no longer reaches them by itself), and, as a last
 * resort, when the launcher exits.
 */
const commands = new ProcessGroup(() => {});
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let signalsHandled = false;

/** Runs a command to completion; rejects with its output when it fails. */
export function runCommand(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  handleSignals();
  return new Promise((resolve, reject) => {
    const child = commands.adopt(command, spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }));
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code ?? signal}\n${output.trim()}`));
    });
  });
}

/** Ends every command still running (SIGTERM, SIGKILL after `graceMs`); resolves once each has exited. */
export function stopCommands(graceMs = 5_000): Promise<void> {
  return commands.stopAll(graceMs);
}

/**
 * A signal ends the running commands (SIGTERM: initdb removes its half-made cluster). When the
 * launcher has no handler of its own for it, the signal then does what it would have done: end it.
 */
function handleSignals(): void {
  if (signalsHandled) return;
  signalsHandled = true;
  for (const signal of SIGNALS) {
    const onSignal = () => {
      commands.killAll('SIGTERM');
      if (process.listenerCount(signal) > 1) return;
      process.off(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}
