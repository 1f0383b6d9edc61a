import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Outcome } from '../contract/ipc.js';

/*
 * Trusting the instance's local certificate authority (the HTTPS listener's `tls/ca.pem`), so
 * other apps on this computer accept its `https://` address. Where the platform lets a person do
 * it for their own account in one click, Hearth runs the system's tool (which asks them to
 * confirm: a password sheet on macOS, a security warning on Windows); elsewhere it says how.
 */

/** What to do on this platform: run a command, or show instructions. */
export type TrustPlan =
  | { kind: 'command'; file: string; args: string[] }
  | { kind: 'manual'; instructions: string };

/** Where things are on this computer (injectable for tests). */
export interface TrustEnvironment {
  platform: NodeJS.Platform;
  homeDir: string;
  /** Windows' folder (%SystemRoot%), for an absolute path to certutil. */
  systemRoot?: string;
}

/**
 * The plan for trusting `caFile`:
 * - macOS: `security add-trusted-cert -r trustRoot -k ~/Library/Keychains/login.keychain-db FILE`
 *   (the person's login keychain, no administrator rights; macOS asks for their password);
 * - Windows: `certutil -user -addstore Root FILE` (the person's own root store; Windows asks);
 * - Linux and others: no single system store every app reads, so instructions instead.
 * Tools are named by absolute path, so a PATH entry cannot stand in for them.
 */
export function certificateTrustPlan(caFile: string, env: TrustEnvironment): TrustPlan {
  if (env.platform === 'darwin') {
    return { kind: 'command', file: '/usr/bin/security', args: ['add-trusted-cert', '-r', 'trustRoot', '-k', join(env.homeDir, 'Library', 'Keychains', 'login.keychain-db'), caFile] };
  }
  if (env.platform === 'win32') {
    const root = env.systemRoot ?? 'C:\\Windows';
    return { kind: 'command', file: `${root}\\System32\\certutil.exe`, args: ['-user', '-addstore', 'Root', caFile] };
  }
  return { kind: 'manual', instructions: manualInstructions(caFile) };
}

/** How to trust the certificate by hand on Linux (the README's steps, with this file's path). */
export function manualInstructions(caFile: string): string {
  return [
    'Linux has no single place every app reads trusted certificates from, so this takes a few steps.',
    `For the system and command-line tools, run: sudo cp "${caFile}" /usr/local/share/ca-certificates/hearth.crt && sudo update-ca-certificates.`,
    `For Chromium and Chrome, run: certutil -d sql:$HOME/.pki/nssdb -A -t C,, -n Hearth -i "${caFile}" (certutil is in the libnss3-tools package).`,
    'For Firefox, open Settings, Privacy & Security, Certificates, View Certificates, Authorities, Import, choose the file and tick “Trust this CA to identify websites”.',
  ].join(' ');
}

/** The result of running a command. */
export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs a program with arguments, no shell. */
export type CommandRunner = (file: string, args: string[]) => Promise<CommandResult>;

/**
 * Runs a program through execFile (no shell: the path is an argument, never parsed). Two minutes
 * at most: the system asks the person to confirm, and they may take a while.
 */
export const execFileRunner: CommandRunner = (file, args) =>
  new Promise((resolve) => {
    execFile(file, args, { timeout: 120_000, windowsHide: true }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ exitCode: code, stdout: String(stdout), stderr: String(stderr || (error && !stderr ? error.message : '')) });
    });
  });

/**
 * Trusts `caFile` for the person on this platform, or says why not (in a sentence): the file
 * missing, the platform without one-click trust (with its instructions), or what the system's
 * tool answered when it refused (such as the person cancelling).
 */
export async function trustCertificate(caFile: string, env: TrustEnvironment, run: CommandRunner = execFileRunner): Promise<Outcome<string>> {
  const found = await stat(caFile).catch(() => null);
  if (!found?.isFile()) return { ok: false, error: 'The certificate file is missing. It is made the first time the HTTPS address starts.' };
  const plan = certificateTrustPlan(caFile, env);
  if (plan.kind === 'manual') return { ok: false, error: `One click is not possible on this system. ${plan.instructions}` };
  const result = await run(plan.file, plan.args);
  if (result.exitCode !== 0) {
    const said = (result.stderr.trim() || result.stdout.trim()).split('\n')[0]?.trim();
    return { ok: false, error: `The certificate was not trusted${said ? `: ${said.replace(/\.$/, '')}` : ''}.` };
  }
  return { ok: true, value: 'The certificate is trusted. Apps on this computer now accept Hearth’s HTTPS address (restart a browser that was open).' };
}
