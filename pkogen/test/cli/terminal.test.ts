/**
 * Colour only on a terminal (NO_COLOR, FORCE_COLOR honoured), only on the severities of text
 * findings; progress on stderr after a second of work, on a terminal only, never for json.
 */
import { jest } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { colorSeverities, progress, useColor } from '../../src/cli/terminal.js';
import { ROOT, tempDir } from '../helpers.js';

const tmp = tempDir('pkogen-terminal-');
afterAll(() => tmp.cleanup());
const pkg = path.join(tmp.dir, 'pkg');
beforeAll(() => {
  mkdirSync(pkg);
  writeFileSync(path.join(pkg, 'manifest.yaml'), 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: tty\nspec:\n  scopes: [Namespaced]\n  phases: [{name: deploy}]\n');
  writeFileSync(path.join(pkg, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n    package-operator.run/phase: deploy\n    package-operator.run/collision-protection: Nope\n');
});

async function run(args: string[], env: NodeJS.ProcessEnv, isTTY: { stdout: boolean; stderr: boolean } | undefined) {
  let out = '';
  let err = '';
  const io: CliIO = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env, cwd: ROOT, isTTY };
  const code = await main(args, io);
  return { code, out, err };
}

const ESC = '\x1b[';

describe('colour', () => {
  it('follows the terminal, NO_COLOR and FORCE_COLOR', () => {
    expect(useColor({}, true)).toBe(true);
    expect(useColor({}, false)).toBe(false);
    expect(useColor({}, undefined)).toBe(false);
    expect(useColor({ NO_COLOR: '1' }, true)).toBe(false);
    expect(useColor({ NO_COLOR: '' }, true)).toBe(true);
    expect(useColor({ TERM: 'dumb' }, true)).toBe(false);
    expect(useColor({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(useColor({ FORCE_COLOR: '0' }, true)).toBe(false);
    expect(useColor({ NO_COLOR: '1', FORCE_COLOR: '1' }, true)).toBe(false);
  });

  it('marks only the severity word at the start of a finding line', () => {
    expect(colorSeverities('error: a.yaml: x\n  warning: y\nnot an error: z\n')).toBe(`${ESC}1;31merror${ESC}0m: a.yaml: x\n  ${ESC}1;33mwarning${ESC}0m: y\nnot an error: z\n`);
  });

  it('validate colours text findings on a terminal, and never with NO_COLOR, in a pipe or in json', async () => {
    const tty = await run(['validate', pkg], {}, { stdout: true, stderr: true });
    expect(tty.code).toBe(1);
    expect(tty.out).toContain(`${ESC}1;31merror${ESC}0m: cm.yaml:7`);
    const noColor = await run(['validate', pkg], { NO_COLOR: '1' }, { stdout: true, stderr: true });
    expect(noColor.out).toMatch(/^error: cm\.yaml:7/);
    expect(noColor.out).not.toContain(ESC);
    expect((await run(['validate', pkg], {}, { stdout: false, stderr: false })).out).not.toContain(ESC);
    expect((await run(['validate', pkg, '-o', 'json'], {}, { stdout: true, stderr: true })).out).not.toContain(ESC);
    expect((await run(['validate', pkg], { FORCE_COLOR: '1' }, undefined)).out).toContain(ESC);
  });
});

describe('progress', () => {
  afterEach(() => jest.useRealTimers());

  function fakeIO(stderrTTY: boolean) {
    const written: string[] = [];
    const io: CliIO = { stdout: () => undefined, stderr: (t) => void written.push(t), env: {}, cwd: ROOT, isTTY: { stdout: true, stderr: stderrTTY } };
    return { io, written };
  }

  it('shows after a second of work on a terminal, and is erased at the end', () => {
    jest.useFakeTimers();
    const { io, written } = fakeIO(true);
    const p = progress(io, 'validating pkg');
    jest.advanceTimersByTime(999);
    expect(written).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(written).toEqual(['\r| validating pkg…']);
    jest.advanceTimersByTime(120);
    expect(written[1]).toBe('\r/ validating pkg…');
    p.stop();
    expect(written.at(-1)).toBe(`\r${ESC}K`);
    const n = written.length;
    jest.advanceTimersByTime(5000);
    expect(written.length).toBe(n);
  });

  it('says nothing for short work, off a terminal, or when the format is not text', () => {
    jest.useFakeTimers();
    const quick = fakeIO(true);
    progress(quick.io, 'x').stop();
    jest.advanceTimersByTime(5000);
    expect(quick.written).toEqual([]);
    const pipe = fakeIO(false);
    progress(pipe.io, 'x');
    jest.advanceTimersByTime(5000);
    expect(pipe.written).toEqual([]);
    const json = fakeIO(true);
    progress(json.io, 'x', { enabled: false });
    jest.advanceTimersByTime(5000);
    expect(json.written).toEqual([]);
  });
});
