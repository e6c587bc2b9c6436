/** `pkogen completion`: the bash script completes commands and each command's own options. */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers.js';

const tmp = tempDir('pkogen-completion-');
afterAll(() => tmp.cleanup());

function complete(script: string, words: string[]): string[] {
  const f = path.join(tmp.dir, 'pkogen.bash');
  writeFileSync(f, script);
  const words_ = words.map((w) => `'${w}'`).join(' ');
  const r = spawnSync('bash', ['--norc', '-c', `source ${f}; COMP_WORDS=(${words_}); COMP_CWORD=${words.length - 1}; _pkogen; printf '%s\\n' "\${COMPREPLY[@]}"`], { cwd: tmp.dir, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe('pkogen completion', () => {
  test('bash: commands, then the options of that command only', async () => {
    const r = await runCli(['completion', 'bash']);
    expect(r.code).toBe(0);
    expect(complete(r.stdout, ['pkogen', 'val'])).toEqual(['validate']);
    expect(complete(r.stdout, ['pkogen', 'li'])).toEqual(['lint-rollout']);
    expect(complete(r.stdout, ['pkogen', 'validate', '--str'])).toEqual(['--strict']);
    expect(complete(r.stdout, ['pkogen', 'init', '--pk'])).toEqual(['--pkogen']);
    // generate has no --strict
    expect(complete(r.stdout, ['pkogen', 'generate', '--str'])).toEqual([]);
    expect(complete(r.stdout, ['pkogen', 'completion', '--'])).toEqual(['--help']);
  });

  test('zsh (through bashcompinit) and fish scripts name every command and option', async () => {
    const z = await runCli(['completion', 'zsh']);
    expect(z.stdout).toMatch(/^#compdef pkogen\n/);
    expect(z.stdout).toContain('bashcompinit');
    expect(z.stdout).toContain('complete -o filenames -F _pkogen pkogen');
    const f = await runCli(['completion', 'fish']);
    expect(f.stdout).toContain("complete -c pkogen -f -n __fish_use_subcommand -a validate -d 'Validate a package with PKO\\'s rules and stricter checks'");
    expect(f.stdout).toContain("complete -c pkogen -n '__fish_seen_subcommand_from validate' -l strict\n");
    expect(f.stdout).toContain("complete -c pkogen -n '__fish_seen_subcommand_from generate' -l output -s o\n");
  });

  test('an unknown or missing shell is a usage error', async () => {
    expect(await runCli(['completion', 'tcsh'])).toEqual({ code: 2, stdout: '', stderr: 'pkogen: completion: SHELL must be one of bash, zsh, fish, got "tcsh"\n' });
    expect((await runCli(['completion'])).code).toBe(2);
  });
});
