/**
 * Image references, parsed the way go-containerregistry's `name.ParseReference` does (strict):
 * `[registry/]repository[:tag|@digest]`; no registry → Docker Hub (`index.docker.io`, with
 * `library/` for single-segment names); no tag → `latest`.
 */
import { isDigest } from './digest.js';

export const DOCKER_HUB = 'index.docker.io';

export interface Reference {
  registry: string;
  repository: string;
  tag?: string;
  digest?: string;
}

export class ReferenceError extends Error {}

const REPO_CHARS = /^[a-z0-9_.\-/]+$/;
const TAG_RE = /^[\w][\w.-]{0,127}$/;

function isRegistryPart(s: string): boolean {
  return s.includes('.') || s.includes(':') || s === 'localhost';
}

export function parseReference(s: string): Reference {
  if (!s) throw new ReferenceError('could not parse reference: empty');
  let rest = s;
  let digest: string | undefined;
  let tag: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!isDigest(digest)) throw new ReferenceError(`could not parse reference: ${s} (unsupported digest ${JSON.stringify(digest)})`);
  }
  const slash = rest.indexOf('/');
  let registry = DOCKER_HUB;
  if (slash > 0 && isRegistryPart(rest.slice(0, slash))) {
    registry = rest.slice(0, slash);
    rest = rest.slice(slash + 1);
  }
  if (digest === undefined) {
    const colon = rest.lastIndexOf(':');
    if (colon > rest.lastIndexOf('/')) {
      tag = rest.slice(colon + 1);
      rest = rest.slice(0, colon);
      if (!TAG_RE.test(tag)) throw new ReferenceError(`tag can only contain the characters \`abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.\`: ${tag}`);
    } else tag = 'latest';
  }
  if (registry === 'docker.io') registry = DOCKER_HUB;
  let repository = rest;
  if (!repository) throw new ReferenceError(`could not parse reference: ${s}`);
  if (!REPO_CHARS.test(repository) || repository.startsWith('/') || repository.endsWith('/') || repository.includes('//'))
    throw new ReferenceError(`repository can only contain the characters \`abcdefghijklmnopqrstuvwxyz0123456789_-./\`: ${repository}`);
  if (repository.length > 255) throw new ReferenceError(`repository must be between 1 and 255 characters in length: ${repository}`);
  if (registry === DOCKER_HUB && !repository.includes('/')) repository = `library/${repository}`;
  if (!/^[A-Za-z0-9.\-:[\]]+$/.test(registry)) throw new ReferenceError(`registries must be valid RFC 3986 URI authorities: ${registry}`);
  return digest !== undefined ? { registry, repository, digest } : { registry, repository, tag };
}

export function formatReference(r: Reference): string {
  const base = `${r.registry}/${r.repository}`;
  return r.digest ? `${base}@${r.digest}` : `${base}:${r.tag ?? 'latest'}`;
}

/** `localhost`, `127.x`, `::1`: plain HTTP is allowed there without --insecure, like ggcr. */
export function isLoopbackRegistry(registry: string): boolean {
  const host = registry.startsWith('[') ? registry.slice(1, registry.indexOf(']')) : registry.split(':')[0];
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Where the Distribution API of a registry lives (Docker Hub's API host differs from its name). */
export function apiHost(registry: string): string {
  return registry === DOCKER_HUB ? 'registry-1.docker.io' : registry;
}
