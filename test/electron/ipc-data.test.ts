import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { certificateTrustPlan, execFileRunner } from '../../electron/ipc/certificate.js';
import { APP, createRig, type Rig } from './ipc-rig.js';

/*
 * The handlers that act on the computer: the data directory, the certificate, backups and
 * restores, the log. Payloads are refused before any dialog opens; failures come back as
 * sentences; only one data operation runs at a time.
 */

let rig: Rig;
afterEach(() => rig?.close());

const NULL_PAYLOAD_CHANNELS = ['data-dir:choose', 'certificate:trust', 'backup:create', 'backup:restore', 'log:open'] as const;

describe('IPC handlers: payloads of the calls that take none', () => {
  for (const channel of NULL_PAYLOAD_CHANNELS) {
    it(`${channel} refuses a payload before doing anything`, async () => {
      rig = createRig();
      rig.answers.folder = rig.dir;
      rig.answers.backupTarget = join(rig.dir, 'b.tar');
      const before = rig.file();
      for (const payload of [{ path: '/etc' }, '/etc', 0, false, []]) {
        expect(await rig.handlers[channel](APP, payload)).toEqual({ ok: false, error: 'This call takes no payload.' });
      }
      expect(rig.calls).toEqual([]);
      expect(rig.commands).toEqual([]);
      expect(rig.file()).toBe(before);
    });
  }
});

describe('IPC handlers: the data directory', () => {
  it('cancelled: nothing changes', async () => {
    rig = createRig();
    expect(await rig.handlers['data-dir:choose'](APP, null)).toEqual({ ok: true, value: null });
    expect(rig.calls).toEqual(['chooseFolder']);
    expect(rig.settings.get().dataDir).toBeNull();
  });

  it('an empty folder, or one holding Hearth’s data: saved, and the server restarted on it', async () => {
    rig = createRig();
    const empty = join(rig.dir, 'new-home');
    mkdirSync(empty);
    writeFileSync(join(empty, '.DS_Store'), '');
    rig.answers.folder = empty;
    expect(await rig.handlers['data-dir:choose'](APP, null)).toEqual({ ok: true, value: empty });
    expect(rig.settings.get().dataDir).toBe(empty);
    expect(rig.calls).toEqual(['chooseFolder', `restartServer ${empty}`, 'settingsChanged true']);
    const earlier = join(rig.dir, 'earlier');
    mkdirSync(earlier);
    writeFileSync(join(earlier, 'hearth.sqlite3'), '');
    mkdirSync(join(earlier, 'media'));
    rig.answers.folder = earlier;
    expect(await rig.handlers['data-dir:choose'](APP, null)).toEqual({ ok: true, value: earlier });
    expect(rig.settings.get().dataDir).toBe(earlier);
  });

  it('refuses a folder of other things, a file, a missing folder and a relative path, changing nothing', async () => {
    rig = createRig();
    const docs = join(rig.dir, 'Documents');
    mkdirSync(docs);
    writeFileSync(join(docs, 'taxes.pdf'), 'x');
    const file = join(rig.dir, 'notes.txt');
    writeFileSync(file, 'x');
    const before = rig.file();
    const cases: [string, RegExp][] = [
      [docs, /holds other files/],
      [file, /is a file, not a folder/],
      [join(rig.dir, 'nowhere'), /does not exist/],
      ['relative/dir', /full path/],
    ];
    for (const [folder, message] of cases) {
      rig.answers.folder = folder;
      const result = await rig.handlers['data-dir:choose'](APP, null);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toMatch(message);
    }
    expect(rig.file()).toBe(before);
    expect(rig.calls.filter((c) => c.startsWith('restartServer'))).toEqual([]);
  });

  it('a server that will not start there: back to the old folder, restarted on it, and a sentence', async () => {
    rig = createRig();
    const target = join(rig.dir, 'broken');
    mkdirSync(target);
    rig.answers.folder = target;
    rig.answers.restartErrors = [new Error('the database could not be opened')];
    const result = await rig.handlers['data-dir:choose'](APP, null);
    expect(result).toEqual({ ok: false, error: 'Hearth could not start on that folder, so it stays where it was: the database could not be opened.' });
    expect(rig.settings.get().dataDir).toBeNull();
    expect(rig.calls).toEqual(['chooseFolder', `restartServer ${target}`, 'restartServer null']);
  });
});

describe('IPC handlers: trusting the certificate', () => {
  it('macOS: the login keychain through /usr/bin/security, in one click', async () => {
    rig = createRig('darwin');
    const ca = join(rig.dir, 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\n');
    rig.answers.info = { ...rig.answers.info, caFile: ca };
    const result = await rig.handlers['certificate:trust'](APP, null);
    expect(result.ok).toBe(true);
    expect(rig.commands).toEqual([{ file: '/usr/bin/security', args: ['add-trusted-cert', '-r', 'trustRoot', '-k', '/Users/kim/Library/Keychains/login.keychain-db', ca] }]);
  });

  it('Windows: the person’s own root store through certutil; a refusal comes back as a sentence', async () => {
    rig = createRig('win32');
    const ca = join(rig.dir, 'ca.pem');
    writeFileSync(ca, 'x');
    rig.answers.info = { ...rig.answers.info, caFile: ca };
    rig.answers.commandResult = { exitCode: 2, stdout: '', stderr: 'CertUtil: The operation was canceled by the user.\r\nmore' };
    const result = await rig.handlers['certificate:trust'](APP, null);
    expect(result).toEqual({ ok: false, error: 'The certificate was not trusted: CertUtil: The operation was canceled by the user.' });
    expect(rig.commands).toEqual([{ file: 'C:\\Windows\\System32\\certutil.exe', args: ['-user', '-addstore', 'Root', ca] }]);
  });

  it('Linux: no command, the instructions instead', async () => {
    rig = createRig('linux');
    const ca = join(rig.dir, 'ca.pem');
    writeFileSync(ca, 'x');
    rig.answers.info = { ...rig.answers.info, caFile: ca };
    const result = await rig.handlers['certificate:trust'](APP, null);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/^One click is not possible on this system\. .*update-ca-certificates/);
    expect(rig.commands).toEqual([]);
    expect(certificateTrustPlan(ca, { platform: 'freebsd', homeDir: '/home/kim' }).kind).toBe('manual');
  });

  it('no certificate (no HTTPS address), or its file missing: a sentence, no command', async () => {
    rig = createRig('darwin');
    expect(await rig.handlers['certificate:trust'](APP, null)).toEqual({ ok: false, error: 'This instance has no local HTTPS address, so there is no certificate to trust.' });
    rig.answers.info = { ...rig.answers.info, caFile: join(rig.dir, 'missing.pem') };
    const missing = await rig.handlers['certificate:trust'](APP, null);
    expect(missing.ok).toBe(false);
    expect(rig.commands).toEqual([]);
  });

  it('the runner runs a real program without a shell and reports its exit code and error output', async () => {
    const node = process.execPath;
    const failed = await execFileRunner(node, ['-e', 'process.stderr.write("no; rm -rf /"); process.exit(3)']);
    expect(failed).toMatchObject({ exitCode: 3, stderr: 'no; rm -rf /' });
    const fine = await execFileRunner(node, ['-e', 'console.log(process.argv[1])', 'a file with spaces; $(echo x)']);
    expect(fine).toMatchObject({ exitCode: 0, stdout: 'a file with spaces; $(echo x)\n' });
  });
});

describe('IPC handlers: backup, restore and the log', () => {
  it('backup:create asks where, writes the backup, and sends its progress to the window', async () => {
    rig = createRig();
    const target = join(rig.dir, 'backup.tar');
    rig.answers.backupTarget = target;
    rig.answers.backup = async (path, onProgress) => {
      onProgress({ fraction: 0.25, stage: 'database' });
      onProgress({ fraction: 7, stage: 'files' });
      writeFileSync(path, 'archive');
      onProgress({ fraction: 1, stage: 'done' });
    };
    expect(await rig.handlers['backup:create'](APP, null)).toEqual({ ok: true, value: target });
    expect(rig.calls).toEqual(['chooseBackupTarget hearth-backup-2026-11-26.tar.gz', `backup ${target}`]);
    expect(rig.events).toEqual([
      { channel: 'progress', payload: { operation: 'backup', fraction: 0.25, stage: 'database' } },
      { channel: 'progress', payload: { operation: 'backup', fraction: 1, stage: 'files' } },
      { channel: 'progress', payload: { operation: 'backup', fraction: 1, stage: 'done' } },
    ]);
  });

  it('backup:create cancelled, or failing: null, or a sentence', async () => {
    rig = createRig();
    expect(await rig.handlers['backup:create'](APP, null)).toEqual({ ok: true, value: null });
    expect(rig.calls).toEqual(['chooseBackupTarget hearth-backup-2026-11-26.tar.gz']);
    rig.answers.backupTarget = join(rig.dir, 'b.tar');
    rig.answers.backup = async () => {
      throw new Error('the disk is full');
    };
    expect(await rig.handlers['backup:create'](APP, null)).toEqual({ ok: false, error: 'The backup was not made: the disk is full.' });
  });

  it('one data operation at a time: a second is refused while the first runs', async () => {
    rig = createRig();
    rig.answers.backupTarget = join(rig.dir, 'b.tar');
    let finish: () => void = () => undefined;
    rig.answers.backup = () => new Promise<void>((resolve) => (finish = resolve));
    const first = rig.handlers['backup:create'](APP, null);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await rig.handlers['backup:restore'](APP, null)).toEqual({ ok: false, error: 'Please wait: a backup is still in progress.' });
    expect(await rig.handlers['data-dir:choose'](APP, null)).toEqual({ ok: false, error: 'Please wait: a backup is still in progress.' });
    finish();
    expect(await first).toMatchObject({ ok: true });
    expect(rig.calls).not.toContain('chooseBackupSource');
    expect(rig.calls).not.toContain('chooseFolder');
  });

  it('backup:restore asks for the archive, restores it with progress; a refused archive is a sentence', async () => {
    rig = createRig();
    expect(await rig.handlers['backup:restore'](APP, null)).toEqual({ ok: true, value: null });
    const source = join(rig.dir, 'old.tar');
    rig.answers.backupSource = source;
    rig.answers.restore = async (_path, onProgress) => onProgress({ fraction: 0.5, stage: 'checking' });
    expect(await rig.handlers['backup:restore'](APP, null)).toEqual({ ok: true, value: source });
    expect(rig.events).toEqual([{ channel: 'progress', payload: { operation: 'restore', fraction: 0.5, stage: 'checking' } }]);
    rig.answers.restore = async () => {
      throw new Error('This file is not a Hearth backup.');
    };
    expect(await rig.handlers['backup:restore'](APP, null)).toEqual({ ok: false, error: 'The backup was not restored: This file is not a Hearth backup.' });
  });

  it('log:open opens the log, or says why not', async () => {
    rig = createRig();
    expect(await rig.handlers['log:open'](APP, null)).toEqual({ ok: true, value: null });
    rig.answers.openLogError = new Error('no application is set to open .log files');
    expect(await rig.handlers['log:open'](APP, undefined)).toEqual({ ok: false, error: 'The log could not be opened: no application is set to open .log files.' });
  });
});
