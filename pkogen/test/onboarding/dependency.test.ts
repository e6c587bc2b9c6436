/** `pkogen init`'s default dependency on pkogen: the pkogen that runs, wherever it was installed from. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pkogenOrigin } from '../../src/scaffold/dependency.js';

let tmp = '';
beforeAll(() => (tmp = mkdtempSync(path.join(tmpdir(), 'pkogen-dep-'))));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A project with pkogen under node_modules and npm's hidden lock file naming where it came from. */
function installed(name: string, entry: Record<string, unknown> | undefined): string {
  const project = path.join(tmp, name);
  const root = path.join(project, 'node_modules', 'pkogen');
  mkdirSync(root, { recursive: true });
  writeFileSync(path.join(root, 'package.json'), '{"name":"pkogen","version":"1.2.3"}');
  if (entry) writeFileSync(path.join(project, 'node_modules', '.package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { 'node_modules/pkogen': entry } }));
  return root;
}

describe('pkogenOrigin', () => {
  it('a registry install depends on ^VERSION', () => {
    expect(pkogenOrigin(installed('reg', { version: '1.2.3', resolved: 'https://registry.npmjs.org/pkogen/-/pkogen-1.2.3.tgz' }), '1.2.3')).toEqual({ spec: '^1.2.3', from: 'registry' });
  });

  it('a tarball install depends on the tarball, by absolute path', () => {
    expect(pkogenOrigin(installed('tgz', { version: '1.2.3', resolved: 'file:../dl/pkogen-1.2.3.tgz' }), '1.2.3')).toEqual({ spec: `file:${path.join(tmp, 'dl', 'pkogen-1.2.3.tgz')}`, from: 'tarball' });
  });

  it('a checkout (not under node_modules, or linked into one) depends on the checkout', () => {
    const checkout = path.join(tmp, 'checkout');
    mkdirSync(checkout);
    expect(pkogenOrigin(checkout, '1.2.3')).toEqual({ spec: `file:${checkout}`, from: 'checkout' });
    const ws = path.join(tmp, 'ws', 'node_modules');
    mkdirSync(ws, { recursive: true });
    symlinkSync(checkout, path.join(ws, 'pkogen'));
    expect(pkogenOrigin(path.join(ws, 'pkogen'), '1.2.3')).toEqual({ spec: `file:${checkout}`, from: 'checkout' });
  });

  it('without a lock file to tell (a global install), ^VERSION', () => {
    expect(pkogenOrigin(installed('global', undefined), '1.2.3')).toEqual({ spec: '^1.2.3', from: 'unknown' });
  });
});
