/**
 * How the two layers compose (docs/design/fleet.md "The fleet component"): the provider's
 * layer is built by the fleet component once per (release, arch, stream, layer, builder image);
 * a tenant's layer is built by the per-HCP controller FROM the provider-layered image, so the
 * image a NodePool runs descends from both. The provider can turn the tenant layer off for a
 * HostedCluster: then the per-HCP controller and its webhook refuse NodePoolOSConfigs.
 *
 * The provider's switch is an annotation on the HostedCluster (management side, not writable
 * from the hosted cluster), else the per-HCP package config's `tenantLayerDefault`; the package
 * renders it (TENANT_LAYER_TEMPLATE) as `--tenant-layer` on the controller and the webhook.
 */
import { CONFIG_KIND, GROUP } from '../api/types.js';

export const TENANT_LAYER_ANNOTATION = `${GROUP}/tenant-layer`;
export const TENANT_LAYER_VALUES = ['Enabled', 'Disabled'] as const;
export type TenantLayer = (typeof TENANT_LAYER_VALUES)[number];

/** The package config key with the provider's default for HostedClusters without the annotation. */
export const TENANT_LAYER_DEFAULT_KEY = 'tenantLayerDefault';

/**
 * `--tenant-layer`'s value as the per-HCP package renders it: PKO's template context carries the
 * HostedCluster's annotations (`.environment.hyperShift.hostedCluster.metadata.annotations`,
 * package-operator `apis/manifests/v1alpha1/packagemanifest_types.go` TemplateContextObjectMeta,
 * `internal/environment/environment.go`), which only the management side can write; without the
 * annotation, the package config's default. Any other value fails the render (the Package says
 * why) rather than being guessed.
 */
export const TENANT_LAYER_TEMPLATE =
  `{{- $v := dig "hyperShift" "hostedCluster" "metadata" "annotations" "${TENANT_LAYER_ANNOTATION}" "" .environment -}}` +
  `{{- if eq $v "" }}{{ .config.${TENANT_LAYER_DEFAULT_KEY} }}{{ else if or (eq $v "Enabled") (eq $v "Disabled") }}{{ $v }}` +
  `{{ else }}{{ fail "HostedCluster annotation ${TENANT_LAYER_ANNOTATION} takes Enabled or Disabled" }}{{ end -}}`;

/** The flag's value, checked (the flag parser has no enums). */
export function parseTenantLayer(v: unknown): TenantLayer {
  const s = String(v ?? 'Enabled');
  if ((TENANT_LAYER_VALUES as readonly string[]).includes(s)) return s as TenantLayer;
  throw new Error(`--tenant-layer takes ${TENANT_LAYER_VALUES.join(' or ')}, got ${JSON.stringify(s)}`);
}

/** The HostedCluster's setting: absent means Enabled; anything else is refused, not guessed. */
export function tenantLayerOf(hostedCluster: { metadata?: { annotations?: Record<string, string> } }): { layer: TenantLayer } | { error: string } {
  const v = hostedCluster.metadata?.annotations?.[TENANT_LAYER_ANNOTATION];
  if (v === undefined) return { layer: 'Enabled' };
  if ((TENANT_LAYER_VALUES as readonly string[]).includes(v)) return { layer: v as TenantLayer };
  return { error: `annotation ${TENANT_LAYER_ANNOTATION} is ${JSON.stringify(v)}; it takes ${TENANT_LAYER_VALUES.join(' or ')}` };
}

/** The one message a tenant sees, from the webhook and in the controller's status alike. */
export const TENANT_LAYER_DISABLED_MESSAGE =
  `the provider has turned the tenant OS layer off for this hosted cluster (HostedCluster annotation ${TENANT_LAYER_ANNOTATION}: Disabled): ` +
  `${CONFIG_KIND}s are not accepted or built here; NodePools run the provider's OS image. Ask the provider to enable the tenant layer`;
