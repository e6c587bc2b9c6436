/**
 * Registry credentials from a `.dockerconfigjson` (the HCP namespace's `pull-secret`), as the
 * registry client's `credentials` hook. Key matching is the one src/oci/credentials.ts does for
 * auth files (containers/image rules): the repository, then each parent namespace, then the
 * host; URL keys mean the whole host; Docker Hub's aliases are one host. No helpers: a Secret
 * cannot run programs. No secret value ever reaches a message.
 */
import { Location, UserError } from 'pkogen/model';
import { AuthEntry, authKeysFor, Credential, credentialFromAuthEntry, normalizeAuthKey } from 'pkogen/oci';

export type CredentialLookup = (registry: string, repository: string) => Promise<Credential | undefined>;

/** A parsed `.dockerconfigjson`: normalized key → entry (first key of each normalized form wins). */
export interface DockerConfig {
  auths: Map<string, { key: string; entry: AuthEntry }>;
  where: Location;
}

/** Largest `.dockerconfigjson` accepted (a Secret holds at most 1 MiB). */
const MAX_DOCKERCONFIG_CHARS = 4 << 20;

/**
 * Parses `.dockerconfigjson` text. `where` names its source for errors (e.g.
 * `{ file: 'Secret ns/pull-secret', path: 'data[.dockerconfigjson]' }`).
 */
export function parseDockerConfigJson(text: string, where: Location): DockerConfig {
  if (text.length > MAX_DOCKERCONFIG_CHARS) throw new UserError(`docker config is larger than ${MAX_DOCKERCONFIG_CHARS} characters`, where);
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text, which holds secrets: say only where.
    throw new UserError('docker config is not valid JSON', where);
  }
  if (!j || typeof j !== 'object' || Array.isArray(j)) throw new UserError('docker config is not a JSON object', where);
  const raw = (j as { auths?: unknown }).auths;
  const auths = new Map<string, { key: string; entry: AuthEntry }>();
  if (raw === undefined) return { auths, where };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new UserError('docker config "auths" is not an object', at(where, 'auths'));
  for (const key of Object.keys(raw).sort()) {
    const e = (raw as Record<string, unknown>)[key];
    const loc = at(where, `auths[${JSON.stringify(key)}]`);
    if (!e || typeof e !== 'object' || Array.isArray(e)) throw new UserError('docker config entry is not an object', loc);
    for (const f of ['auth', 'identitytoken', 'registrytoken', 'username', 'password'] as const) {
      const v = (e as Record<string, unknown>)[f];
      if (v !== undefined && typeof v !== 'string') throw new UserError(`docker config entry field "${f}" is not a string`, loc);
    }
    const n = normalizeAuthKey(key);
    if (!auths.has(n)) auths.set(n, { key, entry: e as AuthEntry });
  }
  return { auths, where };
}

function at(where: Location, field: string): Location {
  return { ...where, path: where.path ? `${where.path}.${field}` : field };
}

/** The credential for `registry/repository`, or undefined (anonymous). */
export function credentialFor(cfg: DockerConfig, registry: string, repository: string): Credential | undefined {
  for (const k of authKeysFor(registry, repository)) {
    const hit = cfg.auths.get(k);
    if (!hit) continue;
    const c = credentialFromAuthEntry(hit.entry, at(cfg.where, `auths[${JSON.stringify(hit.key)}]`));
    if (c) return c;
  }
  return undefined;
}

/** The registry client's credential hook for a `.dockerconfigjson` (undefined text: anonymous). */
export function dockerConfigCredentials(text: string | undefined, where: Location): CredentialLookup {
  if (text === undefined) return async () => undefined;
  const cfg = parseDockerConfigJson(text, where);
  return async (registry, repository) => credentialFor(cfg, registry, repository);
}

/** The registry auth file in a Secret: `.dockerconfigjson`, or a legacy `.dockercfg` wrapped as one. */
export function dockerConfigJson(secret: object): string | undefined {
  const data = (secret as { data?: Record<string, string> }).data ?? {};
  const dec = (k: string) => (typeof data[k] === 'string' ? Buffer.from(data[k], 'base64').toString('utf8') : undefined);
  const json = dec('.dockerconfigjson');
  if (json) return json;
  const legacy = dec('.dockercfg');
  return legacy ? `{"auths":${legacy}}` : undefined;
}
