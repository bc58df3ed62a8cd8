import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { track, waitForOutput } from '../../support/nodeProcess.js';
import { tempFolder } from '../../support/tempFolder.js';

/** The unprivileged user other local users run as ("nobody"). */
const NOBODY = 65534;

/**
 * Run as another user: binds the abstract socket name the lock used to be (drawn from the
 * file's path, so anyone could), then tries to open the data file to lock it, and says
 * what it got.
 */
const SQUATTER = `
const fs = require('node:fs');
const net = require('node:net');
const [file, name] = process.argv.slice(1);
const tryOpen = (flags) => { try { fs.closeSync(fs.openSync(file, flags)); return 'opened'; } catch (error) { return error.code; } };
net.createServer().listen({ path: '\\0' + name }, () => {
  console.log(JSON.stringify({ forWriting: tryOpen('r+'), forReading: tryOpen('r') }));
});
`;

describe('JSON-file storage and other local users', () => {
  it('Should let no other user block or take a data file, by its old lock name or by the file itself', async () => {
    const folder = tempFolder();
    // Other users may reach the folder: only the file's own permissions keep them out.
    fs.chmodSync(folder, 0o755);
    const file = path.join(folder, 'animals.json');
    const first = await openJsonFileStorage({ file });
    await first.create({ name: 'Private', categoryId: 1, status: 'sold' });
    await first.close();

    const name = `animal-store/${createHash('sha256').update(fs.realpathSync(file)).digest('hex')}`;
    const squatter = track(
      spawn(process.execPath, ['-e', SQUATTER, file, name], { cwd: '/', uid: NOBODY, gid: NOBODY, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    try {
      const [line] = await waitForOutput(squatter, /\{.*\}/);
      expect(JSON.parse(line)).toEqual({ forWriting: 'EACCES', forReading: 'EACCES' });

      const storage = await openJsonFileStorage({ file });
      expect(await storage.list({ after: 0, limit: 10 })).toEqual([{ id: 1, name: 'Private', categoryId: 1, status: 'sold' }]);
      await storage.close();
    } finally {
      squatter.child.kill('SIGKILL');
    }
  });
});
