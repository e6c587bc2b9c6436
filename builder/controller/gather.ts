/**
 * Answers what one config's decision asks for before it can go on (needs.ts `Need`), each read by
 * name when the decision reaches it, so nothing is read that an earlier check refused: the push
 * and base Secrets (only their `.dockerconfigjson` is kept), the files RUN steps get, the trust
 * bundle, the release's images. One answer is a write: the fleet gate's wanted release is dropped
 * from the hand-off once the current token Secret names it.
 *
 * Trust: every object read here is tenant-writable except the trust bundle (HCP namespace) and
 * the hand-off; what RUN gets is read bounded, by name only, never logged or put in a message.
 */
import type { ReconcilerOptions } from './options.js';
import type { Gathered, Need, NeedResults, RunFiles } from './needs.js';
import { isConflict, RESOURCES } from '../clusters/kube.js';
import { runFiles } from './build-job.js';
import type { RunMountName } from './build-script.js';
import { WANTED_RELEASE_ANNOTATION } from './handoff.js';
import type { Obj, Observed } from './observe.js';
import { dockerConfigJson } from '../registry/dockerconfig.js';
import { trustBundleOf, USER_CA_BUNDLE } from '../hypershift/nodepool-facts.js';
import { ENTITLEMENT_SECRET, HOSTED_NAMESPACE, RPM_GPG_SECRET, YUM_REPOS_CONFIGMAP } from '../api/types.js';

export type GatherOptions = Pick<ReconcilerOptions, 'management' | 'hosted' | 'namespace' | 'resolveRelease'> & {
  log: (msg: string, fields?: Record<string, unknown>) => void;
};

export class Gather {
  constructor(private readonly o: GatherOptions) {}

  /** Reads (or, for the wanted release, writes) what `n` asks for, and adds the answer to `got`. */
  async answer(n: Need, got: Gathered, obs: Observed): Promise<void> {
    const answer = await this.answerOf(n, obs);
    got.set(n, answer);
  }

  private async answerOf(n: Need, obs: Observed): Promise<NeedResults[Need['need']]> {
    switch (n.need) {
      case 'runFiles':
        return this.runFileSources(n.arch);
      case 'release':
        try {
          return await this.o.resolveRelease(n.releaseImage, n.options);
        } catch (e) {
          return { error: (e as Error).message };
        }
      case 'clearWantedRelease':
        await this.clearWantedRelease(n.nodePool, n.wanted, obs);
        return true;
      case 'pushSecret':
      case 'baseSecret': {
        const sec = await this.o.hosted.get(RESOURCES.secrets, n.name, n.need === 'pushSecret' ? HOSTED_NAMESPACE : n.namespace);
        const auth = sec ? dockerConfigJson(sec) : undefined;
        return auth ? { auth } : {};
      }
      case 'trustBundle':
        return trustBundleOf(await this.o.management.get(RESOURCES.configMaps, USER_CA_BUNDLE.name, this.o.namespace));
    }
  }

  /**
   * What RUN steps get besides the base image (`RUN_MOUNTS`), each read by name only, bounded,
   * never logged or put in a message:
   * - `entitlement`: `openshift-config-managed/etc-pki-entitlement-<arch>` (insights-operator
   *   writes one per architecture when nodes have several), else `etc-pki-entitlement`;
   * - `yum-repos`: ConfigMap `etc-yum-repos-d`, `rpm-gpg`: Secret `etc-pki-rpm-gpg`, both in
   *   `HOSTED_NAMESPACE` (MCO's names).
   * None present: the build runs without (as MCO's does). `sources` names what was used (for the hash).
   */
  private async runFileSources(arch: string): Promise<NeedResults['runFiles']> {
    const h = this.o.hosted;
    const sources: string[] = [];
    const files: RunFiles = {};
    const take = (n: RunMountName, ref: string, data: Record<string, unknown> | undefined, encoding: 'base64' | 'text', reason: string) => {
      const f = runFiles(n, data, `${ref} in the hosted cluster`, encoding);
      if ('error' in f) return { reason, error: f.error };
      files[n] = f.files;
      sources.push(ref);
      return undefined;
    };
    for (const name of [`${ENTITLEMENT_SECRET.name}-${arch}`, ENTITLEMENT_SECRET.name]) {
      const sec = await h.get<Obj>(RESOURCES.secrets, name, ENTITLEMENT_SECRET.namespace);
      if (!sec) continue;
      const bad = take('entitlement', `Secret ${ENTITLEMENT_SECRET.namespace}/${name}`, sec.data, 'base64', 'EntitlementInvalid');
      if (bad) return bad;
      break;
    }
    const repos = await h.get<Obj>(RESOURCES.configMaps, YUM_REPOS_CONFIGMAP, HOSTED_NAMESPACE);
    if (repos) {
      const bad = take('yum-repos', `ConfigMap ${HOSTED_NAMESPACE}/${YUM_REPOS_CONFIGMAP}`, repos.data, 'text', 'RepositoriesInvalid');
      if (bad) return bad;
    }
    const gpg = await h.get<Obj>(RESOURCES.secrets, RPM_GPG_SECRET, HOSTED_NAMESPACE);
    if (gpg) {
      const bad = take('rpm-gpg', `Secret ${HOSTED_NAMESPACE}/${RPM_GPG_SECRET}`, gpg.data, 'base64', 'RepositoriesInvalid');
      if (bad) return bad;
    }
    return { sources, files };
  }

  /** Drops the fleet gate's wanted-release from a NodePool's hand-off (it is served: the current token Secret names it). */
  private async clearWantedRelease(nodePool: string, wanted: string, obs: Observed): Promise<void> {
    const h = obs.handoffs.get(nodePool);
    if (!h) return;
    const m = this.o.management;
    const have = await m.get<Obj>(RESOURCES.configMaps, h.name, this.o.namespace);
    if (!have || have.metadata.annotations?.[WANTED_RELEASE_ANNOTATION] !== wanted) return;
    const annotations = { ...(have.metadata.annotations ?? {}) };
    delete annotations[WANTED_RELEASE_ANNOTATION];
    try {
      await m.update(RESOURCES.configMaps, { ...have, metadata: { ...have.metadata, annotations } });
    } catch (e) {
      if (!isConflict(e)) throw e;
      return; // someone wrote it first: the next event brings it back here
    }
    const { wantedRelease: _, ...rest } = h;
    obs.handoffs.set(nodePool, rest);
    this.o.log('wanted release served', { nodePool, release: wanted });
  }
}
