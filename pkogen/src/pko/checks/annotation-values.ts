/**
 * Annotations PKO reads only at install, where a bad value panics the controller:
 * `collision-protection` (Prevent|IfNoController|None) and `condition-map` (lines
 * `SourceType => prefix/DestType`).
 */
import type { Finding } from '../../core/errors.js';
import { childPath } from '../../core/field-path.js';
import { COLLISION_PROTECTION_ANNOTATION, CONDITION_MAP_ANNOTATION } from '../types.js';
import { CheckContext, isObj, objectFinding } from './context.js';

const COLLISION_VALUES = ['Prevent', 'IfNoController', 'None'];
const DEST_TYPE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** PKO's condition-map parser rules; returns problems (empty when valid). */
export function conditionMapProblems(value: string): string[] {
  const out: string[] = [];
  const lines = value.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const parts = line.split('=>');
    if (parts.length !== 2) {
      out.push(`line ${i + 1}: expected 2 part mapping got ${parts.length}`);
      return;
    }
    const src = parts[0].trim();
    const dst = parts[1].trim();
    if (src === '') out.push(`line ${i + 1}: sourceType can't be empty`);
    if (dst === '') out.push(`line ${i + 1}: destinationType can't be empty`);
    else if (!DEST_TYPE.test(dst)) out.push(`line ${i + 1}: destinationType "${dst}" must be a prefixed condition type like "my.domain/${dst.includes('/') ? dst.split('/').pop() : dst}"`);
  });
  return out;
}

export function checkAnnotationValues(ctx: CheckContext): Finding[] {
  const out: Finding[] = [];
  for (const ref of ctx.objects) {
    const ann = ref.object.metadata?.annotations;
    if (!isObj(ann)) continue;
    const cp = ann[COLLISION_PROTECTION_ANNOTATION];
    if (cp !== undefined && !COLLISION_VALUES.includes(String(cp))) {
      out.push(objectFinding(ctx, ref, 'error', 'collision-protection',
        `${COLLISION_PROTECTION_ANNOTATION} must be one of ${COLLISION_VALUES.join(', ')}, is ${JSON.stringify(cp)} (PKO panics on other values at install)`,
        childPath('metadata.annotations', COLLISION_PROTECTION_ANNOTATION)));
    }
    const cm = ann[CONDITION_MAP_ANNOTATION];
    if (cm !== undefined) {
      for (const p of conditionMapProblems(String(cm))) {
        out.push(objectFinding(ctx, ref, 'error', 'condition-map',
          `${CONDITION_MAP_ANNOTATION}: ${p} (PKO panics on this at install)`, childPath('metadata.annotations', CONDITION_MAP_ANNOTATION)));
      }
    }
  }
  return out;
}
