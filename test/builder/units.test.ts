/** The controller's pure parts: flags, build Job synthesis, the hand-off and its feedback-loop filter. */
import { spawnSync } from 'node:child_process';
import { FlagError } from '../../builder/flags.js';
import { commandHelp, parseCommand, usage } from '../../builder/cli.js';
import { buildJob, BuildJobInput } from '../../builder/controller/build-job.js';
import { synthesizeContainerfile } from '../../builder/controller/build-script.js';
import { configWithoutHandoff, handoffConfigMap, osImageMachineConfigYaml, OS_IMAGE_MACHINE_CONFIG } from '../../builder/controller/handoff.js';
import { inputsHash, repositoryOf } from '../../builder/controller/decide.js';
import { hostedKubeconfig } from '../../builder/clusters/token-minter.js';
import yaml from 'js-yaml';

const input: BuildJobInput = {
  namespace: 'clusters-banana',
  jobName: 'build-workers-0123456789',
  buildName: 'workers-0123456789',
  configName: 'workers',
  nodePool: 'workers',
  releaseImage: 'quay.io/openshift-release-dev/ocp-release@sha256:' + 'a'.repeat(64),
  baseOSImage: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + 'b'.repeat(64),
  builderImage: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + 'c'.repeat(64),
  pushTag: 'quay.io/example/os:workers-0123456789',
  containerfile: 'FROM configs AS final\nRUN true\n',
  activeDeadlineSeconds: 1800,
  backoffLimit: 1,
  userNamespaces: true,
};

describe('flags', () => {
  it('parses Go-style flags, defaults and environment', () => {
    const v = parseCommand('controller', ['--hosted-kubeconfig=/k', '--leader-elect=false', '--build-backoff-limit', '4', '--build-user-namespaces'], { POD_NAMESPACE: 'ns1' });
    expect(v).toMatchObject({ namespace: 'ns1', 'hosted-kubeconfig': '/k', 'leader-elect': false, 'build-backoff-limit': 4, 'build-user-namespaces': true, 'pull-secret-name': 'pull-secret' });
  });

  it.each([
    [['--hosted-kubeconfig=/k', '--nope=1'], /unknown flag --nope/],
    [['--hosted-kubeconfig=/k', '--leader-elect=maybe'], /--leader-elect takes true or false/],
    [['--hosted-kubeconfig=/k', '--resync-period=-1'], /--resync-period takes a whole number/],
    [['--hosted-kubeconfig=/k', 'extra'], /unexpected argument "extra"/],
    [['--hosted-kubeconfig'], /needs a value/],
    [[], /--hosted-kubeconfig is required/],
  ])('refuses %j with a clear message', (args, msg) => {
    expect(() => parseCommand('controller', args as string[], { POD_NAMESPACE: 'ns' })).toThrow(FlagError);
    expect(() => parseCommand('controller', args as string[], { POD_NAMESPACE: 'ns' })).toThrow(msg);
  });

  it('needs a namespace from the flag or POD_NAMESPACE', () => {
    expect(() => parseCommand('controller', ['--hosted-kubeconfig=/k'], {})).toThrow(/--namespace is required \(or set POD_NAMESPACE\)/);
  });

  it('help lists every flag of every command', () => {
    expect(usage()).toMatch(/controller[\s\S]*webhook[\s\S]*token-minter/);
    expect(commandHelp('controller')).toContain('--build-user-namespaces');
    expect(commandHelp('webhook')).toContain('--tls-private-key-file=VALUE');
    expect(commandHelp('token-minter')).toContain('--oneshot');
  });

  it('control-plane takes every flag of the controller and of the webhook, each once', () => {
    const help = commandHelp('control-plane');
    for (const f of ['--leader-elect', '--hosted-kubeconfig=VALUE', '--tls-private-key-file=VALUE', '--max-bytes-in-flight=N', '--registry-allow=VALUE', '--tenant-layer=VALUE', '--metrics-port=N']) {
      expect(help.split('\n').filter((l) => l.trimStart().startsWith(`${f} `))).toHaveLength(1);
    }
    const flags = parseCommand('control-plane', ['--namespace=ns', '--hosted-kubeconfig=/k', '--tls-cert-file=/c', '--tls-private-key-file=/k2', '--registry-allow=mirror:5000']);
    expect([flags['registry-allow'], flags.port, flags['leader-elect']]).toEqual(['mirror:5000', 8443, true]);
    expect(() => parseCommand('control-plane', ['--namespace=ns', '--hosted-kubeconfig=/k'])).toThrow(/--tls-cert-file is required/);
  });
});

describe('the on-cluster-build CLI as a process', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, ['bin/on-cluster-build.js', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  it('prints help with exit 0, usage errors with exit 2, no stack trace', () => {
    const help = run('controller', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--hosted-kubeconfig');
    const bad = run('controller', '--bogus');
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toBe('on-cluster-build controller: unknown flag --bogus (see on-cluster-build controller --help)');
    const none = run();
    expect(none.status).toBe(2);
    expect(run('frobnicate').status).toBe(2);
    expect(run('--version').stdout).toMatch(/^on-cluster-build \d+\.\d+\.\d+/);
  });

  it('a controller without a reachable hosted kubeconfig fails with one JSON line, exit 1', () => {
    const r = spawnSync(process.execPath, ['bin/on-cluster-build.js', 'controller', '--hosted-kubeconfig=/nonexistent/kubeconfig', '--hosted-kubeconfig-wait=1', '--namespace=x', '--health-port=0'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: '1' },
      timeout: 20_000,
    });
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split('\n');
    const last = JSON.parse(lines[lines.length - 1]);
    expect(last).toMatchObject({ component: 'controller', msg: 'exiting', error: '/nonexistent/kubeconfig did not appear within 1s (is the token-minter container running?)' });
    expect(lines.map((l) => JSON.parse(l).msg)).toContain('waiting for the hosted kubeconfig');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('build Job', () => {
  it('runs as the build user under anyuid with two capabilities, has no API token, is bounded and idempotently named', () => {
    const job = buildJob(input) as any;
    expect(job.metadata.name).toBe(input.jobName);
    // HyperShift selects ConfigMaps by its NodePool label: build objects never carry it.
    expect(job.metadata.labels['hypershift.openshift.io/nodePool']).toBeUndefined();
    expect(job.metadata.labels['on-cluster-build.pkogen.io/nodepool']).toBe('workers');
    expect(job.spec).toMatchObject({ activeDeadlineSeconds: 1800, backoffLimit: 1 });
    expect(job.spec.template.metadata.annotations).toEqual({ 'openshift.io/required-scc': 'anyuid' });
    const pod = job.spec.template.spec;
    // userNamespaces is ignored (docs/design/build-pod.md "The build pod"): hostUsers: false cannot map the build user's range.
    expect(pod.hostUsers).toBeUndefined();
    expect(pod.serviceAccountName).toBe('on-cluster-build-builder');
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.securityContext).toEqual({ runAsUser: 1000, runAsGroup: 1000, runAsNonRoot: true });
    const c = pod.containers[0];
    expect(c.securityContext).toEqual({
      allowPrivilegeEscalation: true,
      capabilities: { drop: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETPCAP'] },
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
    });
    expect(c.image).toBe(input.builderImage);
    expect(c.terminationMessagePath).toBe('/dev/termination-log');
    for (const v of pod.volumes) expect(v.hostPath).toBeUndefined();
    expect(buildJob(input)).toEqual(job);
  });

  it('builds FROM the release base OS as "configs", then the user stages', () => {
    const cf = synthesizeContainerfile(input);
    expect(cf.split('\n')[1]).toBe(`FROM ${input.baseOSImage} AS configs`);
    expect(cf).toContain('FROM configs AS final\nRUN true');
    expect(cf).toContain(`releaseImage="${input.releaseImage}"`);
  });
});

describe('hand-off', () => {
  const pushed = 'quay.io/example/os@sha256:' + 'd'.repeat(64);
  it('is a ConfigMap HyperShift reads into the NodePool config', () => {
    const cm = handoffConfigMap('clusters-banana', 'workers', 'workers', pushed) as any;
    expect(cm.metadata.labels).toMatchObject({ 'hypershift.openshift.io/nto-generated-machine-config': 'true', 'hypershift.openshift.io/nodePool': 'workers' });
    expect(cm.metadata.name.startsWith('nto-mc-')).toBe(false);
    expect(cm.metadata.annotations).toBeUndefined();
    expect(yaml.load(cm.data.config)).toEqual({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: OS_IMAGE_MACHINE_CONFIG, labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
      spec: { osImageURL: pushed },
    });
  });

  it('our own MachineConfig never changes the build inputs', () => {
    const user = 'apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: 99-worker-ssh\n';
    const reencoded = `apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  labels:\n    machineconfiguration.openshift.io/role: worker\n  name: ${OS_IMAGE_MACHINE_CONFIG}\nspec:\n  osImageURL: ${pushed}\n`;
    expect(configWithoutHandoff([reencoded, user].join('\n---\n'))).toBe(configWithoutHandoff(user));
    expect(configWithoutHandoff(osImageMachineConfigYaml(pushed))).toBe('');
    // A user MachineConfig that also sets osImageURL, under another name, stays an input.
    const other = reencoded.replace(OS_IMAGE_MACHINE_CONFIG, '50-mine');
    expect(configWithoutHandoff(other)).not.toBe('');
    // Broken YAML in a document is left in place (HyperShift validated it; it is not ours).
    expect(configWithoutHandoff('a: [')).toBe('a: [');
  });
});

describe('names and hashes', () => {
  it.each([
    ['quay.io/org/os:latest', 'quay.io/org/os'],
    ['registry:5000/org/os:tag', 'registry:5000/org/os'],
    ['registry:5000/org/os', 'registry:5000/org/os'],
    ['quay.io/org/os@sha256:' + 'e'.repeat(64), 'quay.io/org/os'],
  ])('repository of %s', (spec, repo) => expect(repositoryOf(spec)).toBe(repo));

  it('hashes inputs independently of key order', () => {
    expect(inputsHash({ a: '1', b: '2' })).toBe(inputsHash({ b: '2', a: '1' }));
    expect(inputsHash({ a: '1', b: '2' })).not.toBe(inputsHash({ a: '1', b: '3' }));
    expect(inputsHash({ a: '1' })).toMatch(/^[0-9a-f]{10}$/);
  });
});

describe('token minter kubeconfig', () => {
  it('points at the token file, never embeds a token', () => {
    const kc = yaml.load(hostedKubeconfig('https://kube-apiserver:6443', 'Q0E=', '/var/run/hosted-token/token')) as any;
    expect(kc.clusters[0].cluster).toEqual({ server: 'https://kube-apiserver:6443', 'certificate-authority-data': 'Q0E=' });
    expect(kc.users[0].user).toEqual({ tokenFile: '/var/run/hosted-token/token', 'auth-provider': { name: 'tokenFile', config: { tokenFile: '/var/run/hosted-token/token' } } });
    expect(kc.users[0].user.token).toBeUndefined();
  });
});
