import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import * as path from 'node:path';
import type { SourceFile } from 'ts-morph';
import { REPO, rel, sources, specifiers } from './source-imports.js';

/**
 * The boundary between the repository's two products (shared/docs/architecture.md):
 * on-cluster-build (resources/, builder/) uses pkogen as any other team would, by package name
 * and the sub-paths pkogen's package.json exports; neither side uses a dependency it does not
 * declare. Checked on the real sources with ts-morph.
 */
const readJson = (p: string) => JSON.parse(readFileSync(path.join(REPO, p), 'utf8')) as Record<string, any>;
const rootPkg = readJson('package.json');
const pkogenPkg = readJson('pkogen/package.json');

/** The npm package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
const isBuiltin = (spec: string) => spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]!);

const ours = sources(['resources/**/*.ts', 'builder/**/*.ts']);

describe('the boundary between on-cluster-build and pkogen', () => {
  it('finds both sides', () => {
    expect(ours.filter((f) => rel(f.getFilePath()).startsWith('resources/')).length).toBeGreaterThan(2);
    expect(ours.filter((f) => rel(f.getFilePath()).startsWith('builder/')).length).toBeGreaterThan(10);
  });

  it("resources/ and builder/ import pkogen only by package name and the sub-paths its package.json exports", () => {
    const exported = new Set(Object.keys(pkogenPkg.exports).filter((k) => k !== './package.json').map((k) => (k === '.' ? 'pkogen' : `pkogen/${k.slice(2)}`)));
    const offenders: string[] = [];
    for (const f of ours) {
      for (const spec of specifiers(f)) {
        const file = rel(f.getFilePath());
        if (spec.startsWith('.')) {
          const target = rel(path.resolve(path.dirname(f.getFilePath()), spec));
          if (!/^(resources|builder)\//.test(target)) offenders.push(`${file} imports ${spec} (outside resources/ and builder/)`);
        } else if (packageOf(spec) === 'pkogen' && !exported.has(spec)) offenders.push(`${file} imports ${spec} (not an exported sub-path of pkogen)`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('each side uses only the dependencies its package.json declares', () => {
    const declared = (pkg: Record<string, any>, dev: boolean) => new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {}), ...(dev ? Object.keys(pkg.devDependencies ?? {}) : [])]);
    const offenders: string[] = [];
    const check = (files: SourceFile[], pkg: Record<string, any>, self: string) => {
      for (const f of files) {
        // Run-time code needs run-time dependencies; a type-only import may name a dev dependency.
        const runtime = new Set(specifiers(f, { runtimeOnly: true }));
        for (const spec of specifiers(f)) {
          if (spec.startsWith('.') || isBuiltin(spec)) continue;
          const name = packageOf(spec);
          if (name === self) continue;
          if (!declared(pkg, !runtime.has(spec)).has(name)) offenders.push(`${rel(f.getFilePath())} uses ${name}, which ${pkg.name}'s package.json does not declare`);
        }
      }
    };
    check(ours, rootPkg, rootPkg.name);
    check(sources(['pkogen/src/**/*.ts']), pkogenPkg, 'pkogen');
    expect(offenders).toEqual([]);
  });

  it('generating our package never loads the Kubernetes client (resources/ takes only the API constants from builder/)', () => {
    // `make package` and `make verify` import resources/; builder/cli.ts, the controller and the
    // webhook server load @kubernetes/client-node (~430 ms of module loading per run).
    const byPath = new Map(ours.map((f) => [rel(f.getFilePath()), f]));
    const seen = new Map<string, string>(); // file -> the file that imported it
    const queue = [...byPath.keys()].filter((p) => p.startsWith('resources/'));
    for (const p of queue) seen.set(p, '');
    const offenders: string[] = [];
    while (queue.length) {
      const p = queue.shift()!;
      const f = byPath.get(p)!;
      for (const spec of specifiers(f, { runtimeOnly: true })) {
        if (spec === '@kubernetes/client-node') offenders.push(`${p} (imported by ${seen.get(p) || 'make package'}) imports ${spec}`);
        if (!spec.startsWith('.')) continue;
        const ts = rel(path.resolve(path.dirname(f.getFilePath()), spec)).replace(/\.js$/, '.ts');
        if (!seen.has(ts) && byPath.has(ts)) {
          seen.set(ts, p);
          queue.push(ts);
        }
      }
    }
    expect([...seen.keys()].some((p) => p.startsWith('builder/'))).toBe(true);
    expect(offenders).toEqual([]);
  });
});
