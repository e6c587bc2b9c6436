/**
 * What both executed-pod suites (build-pod.test.ts, build-pod-registries.test.ts) run the build pod
 * with: the SCC the package binds to the build ServiceAccount, and what the builder image adds to
 * the emulated root.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { BUILD_NAMESPACE, BUILD_SERVICE_ACCOUNT, BUILD_USER } from '../../builder/controller/build-job.js';
import { ContainerImage, loadScc, Scc } from './kubelet.js';

// Tests run from the repository root (as test/builder/package.test.ts assumes).
const ROOT = process.cwd();
const SCC_DIR = path.join(ROOT, 'test/builder/scc');

/** The SCC the package lets the build ServiceAccount use: the RoleBinding in package/, then that SCC's YAML. */
export function sccBoundInPackage(): Scc {
  const dir = path.join(ROOT, 'package/hosted-api');
  const bindings = readdirSync(dir)
    .filter((f) => f.endsWith('.RoleBinding.yaml') || f.endsWith('.ClusterRoleBinding.yaml'))
    .flatMap((f) => parseAllDocuments(readFileSync(path.join(dir, f), 'utf8')).map((d) => d.toJS()))
    .filter((b) => (b.subjects ?? []).some((s: { kind: string; name: string; namespace?: string }) => s.kind === 'ServiceAccount' && s.name === BUILD_SERVICE_ACCOUNT && s.namespace === BUILD_NAMESPACE));
  expect(bindings).toHaveLength(1);
  const [b] = bindings;
  // Namespaced, so the ServiceAccount may use the SCC in the build namespace only.
  expect(b).toMatchObject({ kind: 'RoleBinding', metadata: { namespace: BUILD_NAMESPACE }, roleRef: { kind: 'ClusterRole' } });
  const m = /^system:openshift:scc:([a-z0-9-]+)$/.exec(b.roleRef.name);
  if (!m) throw new Error(`the build ServiceAccount is bound to ${b.roleRef.name}, not an SCC's ClusterRole`);
  return loadScc(path.join(SCC_DIR, `${m[1]}.yaml`));
}

/** What the builder image adds to the emulated root: MCO's image (4.17+) and ours both have these. */
export function builderImage(): ContainerImage {
  return {
    user: 0,
    users: [{ name: BUILD_USER.name, uid: BUILD_USER.uid, gid: BUILD_USER.gid, home: '/home/build' }],
    groups: [{ name: 'tty', gid: 5 }, { name: BUILD_USER.name, gid: BUILD_USER.gid }],
    // useradd's default allocation (SUB_UID_MIN 100000, SUB_UID_COUNT 65536).
    subordinateIds: [{ name: BUILD_USER.name, start: 100000, count: 65536 }],
    // RHEL's shadow-utils installs both with file capabilities, not setuid root.
    files: [
      { path: '/usr/bin/newuidmap', from: '/usr/bin/newuidmap', mode: 0o755, capabilities: 'cap_setuid=ep' },
      { path: '/usr/bin/newgidmap', from: '/usr/bin/newgidmap', mode: 0o755, capabilities: 'cap_setgid=ep' },
    ],
    env: [{ name: 'PATH', value: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' }],
  };
}

