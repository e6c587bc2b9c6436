/**
 * `on-cluster-build token-minter`: the only process that sees the hosted cluster's admin
 * kubeconfig. It asks the hosted kube-apiserver for a short-lived token of the controller's own
 * ServiceAccount there (TokenRequest), and writes that token and a kubeconfig that reads it into
 * a volume shared with the controller, renewing at 80% of the token's life. This is HyperShift's
 * own token-minter pattern (support/controlplane-component/token-minter-container.go), in our
 * image so that it needs no release-specific image.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import yaml from 'js-yaml';
import { Kube, RESOURCES } from './kube.js';
import { abortableSleep } from './leader.js';

export interface MinterOptions {
  /** The admin kubeconfig (HyperShift's `service-network-admin-kubeconfig`). */
  adminKubeconfig: string;
  serviceAccountNamespace: string;
  serviceAccountName: string;
  /** Directory written: `token` and `kubeconfig`. */
  outputDir: string;
  expirationSeconds: number;
  oneShot: boolean;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

function atomicWrite(file: string, content: string, mode: number): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode });
  renameSync(tmp, file);
}

/** A kubeconfig for the hosted cluster that reads its token from `tokenFile` (re-read as it rotates). */
export function hostedKubeconfig(server: string, caData: string | undefined, tokenFile: string): string {
  return yaml.dump(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'hosted', cluster: { server, ...(caData ? { 'certificate-authority-data': caData } : {}) } }],
      // `auth-provider` tokenFile: client-node re-reads it every minute; `tokenFile`: the same for kubectl.
      users: [{ name: 'on-cluster-build', user: { tokenFile, 'auth-provider': { name: 'tokenFile', config: { tokenFile } } } }],
      contexts: [{ name: 'hosted', context: { cluster: 'hosted', user: 'on-cluster-build' } }],
      'current-context': 'hosted',
    },
    { sortKeys: true, lineWidth: -1 },
  );
}

export async function mintOnce(admin: Kube, o: MinterOptions): Promise<{ expiresInSeconds: number }> {
  const r = { ...RESOURCES.serviceAccountTokens };
  const res = (await admin.request(
    'POST',
    admin.path(r, o.serviceAccountNamespace, o.serviceAccountName, 'token'),
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: o.expirationSeconds } },
  )) as { status?: { token?: string; expirationTimestamp?: string } };
  const token = res.status?.token;
  if (!token) throw new Error('TokenRequest returned no token');
  const cluster = admin.config.getCurrentCluster()!;
  const caData = cluster.caData ?? (cluster.caFile ? readFileSync(cluster.caFile).toString('base64') : undefined);
  mkdirSync(o.outputDir, { recursive: true });
  const tokenFile = path.join(o.outputDir, 'token');
  atomicWrite(tokenFile, token, 0o600);
  atomicWrite(path.join(o.outputDir, 'kubeconfig'), hostedKubeconfig(cluster.server, caData, tokenFile), 0o600);
  const expires = res.status?.expirationTimestamp ? (Date.parse(res.status.expirationTimestamp) - Date.now()) / 1000 : o.expirationSeconds;
  return { expiresInSeconds: Math.max(60, expires) };
}

export async function runTokenMinter(o: MinterOptions, signal: AbortSignal): Promise<void> {
  const log = o.log ?? (() => {});
  const admin = await Kube.load(o.adminKubeconfig);
  let attempt = 0;
  while (!signal.aborted) {
    try {
      const { expiresInSeconds } = await mintOnce(admin, o);
      attempt = 0;
      log('token minted', { serviceAccount: `${o.serviceAccountNamespace}/${o.serviceAccountName}`, expiresInSeconds: Math.round(expiresInSeconds) });
      if (o.oneShot) return;
      await abortableSleep(expiresInSeconds * 800, signal);
    } catch (e) {
      attempt++;
      // The ServiceAccount appears when PKO reconciles the hosted-cluster phase: keep trying.
      log('token request failed', { error: (e as Error).message, attempt });
      if (o.oneShot && attempt >= 5) throw e;
      await abortableSleep(Math.min(60_000, 1000 * 2 ** Math.min(attempt, 6)), signal);
    }
  }
}
