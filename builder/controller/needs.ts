/**
 * What a decision asks to have read before it can go on (decide.ts returns a `Need`), what each
 * read gives back, and the answers gathered for one config in one reconcile: the contract between
 * decide.ts, which asks, and observe.ts, which reads.
 */
import type { ReleaseImages, ResolveOptions } from './options.js';
import type { RunMountName } from './build-script.js';

export type RunFiles = Partial<Record<RunMountName, Record<string, string>>>;

/** What a decision needs read (or, for the wanted release, written) before it can go on. */
export type Need =
  | { need: 'clearWantedRelease'; nodePool: string; wanted: string }
  | { need: 'pushSecret'; name: string }
  | { need: 'baseSecret'; namespace: string; name: string }
  | { need: 'runFiles'; arch: string }
  | { need: 'trustBundle' }
  | { need: 'release'; releaseImage: string; options: ResolveOptions };

/** What each need gives back. */
export interface NeedResults {
  clearWantedRelease: true;
  /** The Secret's `.dockerconfigjson` (absent: no such Secret, or none in it). */
  pushSecret: { auth?: string };
  baseSecret: { auth?: string };
  /** `sources` names what was used (for the hash); a bad one is a status reason and message. */
  runFiles: { sources: string[]; files: RunFiles } | { reason: string; error: string };
  trustBundle: { pem?: string } | { error: string };
  release: ReleaseImages | { error: string };
}

/** What was read for one config in this reconcile, by need. */
export class Gathered {
  private readonly got = new Map<string, unknown>();
  get<N extends Need>(n: N): NeedResults[N['need']] | undefined {
    return this.got.get(JSON.stringify(n)) as NeedResults[N['need']] | undefined;
  }
  set<N extends Need>(n: N, v: NeedResults[N['need']]): void {
    this.got.set(JSON.stringify(n), v);
  }
  get size(): number {
    return this.got.size;
  }
}
