/**
 * Literal secret material where it does not belong: ConfigMap data and container env values.
 * Findings name the place and the kind of secret, never the value.
 */
import type { Finding } from '../../core/errors.js';
import { childPath } from '../../core/field-path.js';
import { gvkOf } from '../object-validators.js';
import { CheckContext, isObj, objectFinding } from './context.js';

/**
 * Each pattern with a literal its every match contains (`need`, compared case-insensitively when
 * the pattern is): values without it are never run through the expression, so a run whose values
 * hold none of them never compiles these expressions (the password one alone costs about a
 * millisecond on its first use).
 */
const PATTERNS: { name: string; need: readonly string[]; re: RegExp }[] = [
  { name: 'a PEM private key', need: ['PRIVATE KEY-----'], re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/ },
  { name: 'an AWS access key id', need: ['AKIA', 'ASIA'], re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { name: 'a GitHub token', need: ['gh'], re: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/ },
  { name: 'a Slack token', need: ['xox'], re: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/ },
  { name: 'a JSON Web Token', need: ['eyJ'], re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/ },
  { name: 'a pull secret (auths with credentials)', need: ['"auths"'], re: /"auths"\s*:\s*\{[^}]*"(?:auth|password)"\s*:\s*"[^"]{8,}"/ },
  { name: 'a password assignment', need: ['password', 'passwd', 'pwd', 'secret', 'token', 'api'], re: /(?:^|[\s"'{,])(?:password|passwd|pwd|secret|token|api[_-]?key|client[_-]?secret)\s*[:=]\s*["']?(?!\s*["']?(?:\$\{|\{\{|<|changeme\b|none\b|null\b|""|''))[^\s"']{8,}/im },
];

/** Names of env vars whose literal values are secrets by convention. */
const SECRET_ENV_NAME = /(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY)/i;
/** An absolute file path: where a credential is mounted (AWS_WEB_IDENTITY_TOKEN_FILE), not one. */
const FILE_PATH = /^\/[\w.-]+(?:\/[\w.-]+)*$/;

export function secretKindOf(value: string): string | undefined {
  let lower: string | undefined;
  for (const p of PATTERNS) {
    const text = p.re.ignoreCase ? (lower ??= value.toLowerCase()) : value;
    if (p.need.some((n) => text.includes(n)) && p.re.test(value)) return p.name;
  }
  return undefined;
}

export function checkSecretMaterial(ctx: CheckContext): Finding[] {
  const out: Finding[] = [];
  for (const ref of ctx.objects) {
    const g = gvkOf(ref.object);
    const obj = ref.object as Record<string, unknown>;
    if (g.group === '' && g.kind === 'ConfigMap') {
      for (const field of ['data', 'binaryData'] as const) {
        const data = obj[field];
        if (!isObj(data)) continue;
        for (const k of Object.keys(data).sort()) {
          const v = data[k];
          if (typeof v !== 'string') continue;
          const kind = field === 'binaryData' ? secretKindOf(Buffer.from(v, 'base64').toString('latin1')) : secretKindOf(v);
          if (kind) out.push(objectFinding(ctx, ref, 'warning', 'secret/literal', `ConfigMap ${field} key "${k}" contains ${kind}; put it in a Secret (value not shown)`, childPath(field, k)));
        }
      }
    }
    if (g.group === '' && g.kind === 'Secret') {
      // A package is an image anyone with pull access can read: a Secret's values ship in it.
      for (const field of ['data', 'stringData'] as const) {
        const data = obj[field];
        if (!isObj(data)) continue;
        for (const k of Object.keys(data).sort()) {
          if (typeof data[k] === 'string' && data[k] !== '') {
            out.push(objectFinding(ctx, ref, 'warning', 'secret/in-package', `Secret ${field} key "${k}" has a value in the package; it ships in the package image (create the Secret outside the package or from a reference) (value not shown)`, childPath(field, k)));
          }
        }
      }
    }
    walkContainers(obj, (c, path) => {
      const env = c.env;
      if (!Array.isArray(env)) return;
      env.forEach((e, i) => {
        if (!isObj(e) || typeof e.value !== 'string' || e.value === '') return;
        const name = typeof e.name === 'string' ? e.name : '';
        const kind = secretKindOf(e.value) ?? (SECRET_ENV_NAME.test(name) && e.value.length >= 8 && !/^\$\(|^\{\{/.test(e.value) && !FILE_PATH.test(e.value) ? 'a literal credential' : undefined);
        if (kind) out.push(objectFinding(ctx, ref, 'warning', 'secret/literal', `env ${name || i} holds ${kind}; use valueFrom.secretKeyRef (value not shown)`, `${path}.env[${i}].value`));
      });
    });
  }
  return out;
}

/** Calls fn for every container-like object under known pod spec locations. */
function walkContainers(obj: Record<string, unknown>, fn: (c: Record<string, unknown>, path: string) => void): void {
  const specs: [unknown, string][] = [
    [obj.spec, 'spec'],
    [isObj(obj.spec) && isObj(obj.spec.template) ? obj.spec.template.spec : undefined, 'spec.template.spec'],
    [isObj(obj.spec) && isObj(obj.spec.jobTemplate) && isObj(obj.spec.jobTemplate.spec) && isObj(obj.spec.jobTemplate.spec.template) ? obj.spec.jobTemplate.spec.template.spec : undefined, 'spec.jobTemplate.spec.template.spec'],
  ];
  for (const [s, p] of specs) {
    if (!isObj(s)) continue;
    for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
      const cs = s[list];
      if (Array.isArray(cs)) cs.forEach((c, i) => isObj(c) && fn(c, `${p}.${list}[${i}]`));
    }
  }
}
