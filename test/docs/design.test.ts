import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * docs/design/ holds the design by component; it replaced one long docs/design.md written in the
 * order the work happened. Every heading of that file is listed here with where its section now
 * lives (file, heading), and each of those headings stands exactly once in docs/design/.
 */
const DIR = path.join(process.cwd(), 'docs', 'design');

/** [old heading in docs/design.md, file in docs/design/, heading there]. */
const MOVED: [string, string, string][] = [
  ["# Design: the on-cluster-build controller and webhooks (issue 10)", "README.md", "# Design of on-cluster-build, by component"],
  ["## The system as a user sees it", "README.md", "## The system as a user sees it"],
  ["## Contract (fixed; every part of the code follows it)", "README.md", "## The components"],
  ["### API (hosted cluster)", "api-and-admission.md", "## The contract: the API in the hosted cluster"],
  ["### Controller (management cluster, HCP namespace)", "controller.md", "## The contract: the controller in the HCP namespace"],
  ["## Decisions and evidence", "README.md", "## The components"],
  ["### NodePool inputs and release images", "controller.md", "## NodePool inputs and release images"],
  ["### Rollout hand-off: how a built image reaches a NodePool", "hand-off.md", "## How a built image reaches a NodePool"],
  ["### Two identities, and the only container that sees the admin kubeconfig", "controller.md", "## Two identities, and the only container that sees the admin kubeconfig"],
  ["### Build Jobs under restricted pod security", "build-pod.md", "## Build Jobs under restricted pod security"],
  ["### Leader election and availability", "controller.md", "## Leader election and availability"],
  ["### What only a real cluster can show", "controller.md", "## What only a real cluster can show"],
  ["### API and admission", "api-and-admission.md", "## API and admission"],
  ["### Hostile registries and the management network (issue 25)", "threat-model.md", "## Hostile registries and the management network"],
  ["### The build pod (issue 22)", "build-pod.md", "## The build pod"],
  ["### Webhook hardening (issue 25)", "api-and-admission.md", "## Webhook hardening"],
  ["## Builds in the hosted data plane (issues 22 and 25)", "build-pod.md", "## Builds in the hosted data plane"],
  ["### Threat model: who can reach what, from where", "threat-model.md", "## Who can reach what, from where"],
  ["### Where the hosted cluster's pull secret is", "build-pod.md", "## Where the hosted cluster's pull secret is"],
  ["### Registry mirrors", "build-pod.md", "## Registry mirrors"],
  ["### RUN files: entitlements, repositories and GPG keys (issue 22)", "build-pod.md", "## RUN files: entitlements, repositories and GPG keys"],
  ["### Per-NodePool inputs", "controller.md", "## Per-NodePool inputs"],
  ["### Work queue, concurrency, memory", "controller.md", "## Work queue, concurrency, memory"],
  ["### What the build hash covers", "controller.md", "## What the build hash covers"],
  ["### Status means nodes", "controller.md", "## Status means nodes"],
  ["### Least privilege", "controller.md", "## Least privilege"],
  ["### Image nodes can pull at first boot", "hand-off.md", "## Image nodes can pull at first boot"],
  ["### Seams (for the release and build-pod changes)", "controller.md", "## Seams"],
  ["### Upgrading from builds in the HCP namespace, and what is left open", "controller.md", "## Upgrading from builds in the HCP namespace, and what is left open"],
  ["## The fleet component (issue 27)", "fleet.md", "# Design: the fleet component"],
  ["### Upstream evidence", "fleet.md", "## Upstream evidence"],
  ["### The gate", "fleet.md", "## The gate"],
  ["### Pre-builds: the control plane upgrades first", "fleet.md", "## Pre-builds: the control plane upgrades first"],
  ["### Dedupe", "fleet.md", "## Dedupe"],
  ["### Layers compose; tenant layer off", "fleet.md", "## Layers compose; tenant layer off"],
  ["### Threat model of the fleet component", "threat-model.md", "## The fleet component"],
  ["### RBAC", "fleet.md", "## RBAC"],
  ["### ValidatingAdmissionPolicies", "fleet.md", "## ValidatingAdmissionPolicies"],
  ["### Packaging", "fleet.md", "## Packaging"],
  ["### The fleet view", "fleet.md", "## The fleet view"],
  ["### Upstream proposal: a native rollout gate for NodePools", "fleet.md", "## Upstream proposal: a native rollout gate for NodePools"],
  ["### The running component", "fleet.md", "## The running component"],
  ["### The wanted-release channel (tenant-layered NodePools)", "hand-off.md", "## The wanted-release channel (tenant-layered NodePools)"],
  ["### What runs, and what only a real cluster can show", "fleet.md", "## What runs, and what only a real cluster can show"],
];

/**
 * The component files written decision by decision: each decision's section has its four parts,
 * once each and in this order (fleet-simulation.md: its fidelity decision; its results are not decisions).
 */
const DECISION_FILES = ['api-and-admission.md', 'controller.md', 'build-pod.md', 'image-verification.md', 'hand-off.md', 'observability.md', 'threat-model.md', 'fleet.md', 'fleet-gate.md', 'fleet-rollout.md', 'fleet-simulation.md'];
const PARTS = ['**Decision.**', '**Evidence.**', '**Alternatives weighed.**', '**Only a real cluster shows.**'];
/** Words that tell the order work happened in rather than what the design is. */
const HISTORY = /\b(used to|was changed|this stop|until it was found|on this branch|the old code|as before|added since|was fixed|were fixed|the old design|before this work|the earlier plan|were found)\b/i;

const headings = new Map<string, string[]>(); // heading -> files it stands in
for (const f of readdirSync(DIR).filter((n) => n.endsWith('.md'))) {
  for (const line of readFileSync(path.join(DIR, f), 'utf8').split('\n')) {
    if (!/^#{1,4} /.test(line)) continue;
    headings.set(line, [...(headings.get(line) ?? []), f]);
  }
}

describe('docs/design/: the design by component', () => {
  it('the old single file is gone', () => {
    expect(existsSync(path.join(process.cwd(), 'docs', 'design.md'))).toBe(false);
  });

  it.each(MOVED)('%s → %s %s', (_old, file, heading) => {
    if (heading === '## The components') {
      // A heading that only grouped others (its sections moved to the component files) became the index.
      expect(headings.get(heading)).toEqual(['README.md']);
      return;
    }
    // Stands in its file once; headings every component file may have ("What only a real cluster
    // can show") may stand in others too, every other one nowhere else (checked below).
    expect((headings.get(heading) ?? []).filter((f) => f === file)).toEqual([file]);
  });

  it('no heading stands twice in docs/design/ (each section has one place)', () => {
    // The parts every decision is written in may stand in each component file.
    const structural = /^## (Decision|Evidence|Alternatives weighed|What only a real cluster)/;
    expect([...headings].filter(([h, fs]) => /^##? /.test(h) && fs.length > 1 && !structural.test(h)).map(([h, fs]) => `${h}: ${fs.join(', ')}`)).toEqual([]);
  });

  it.each(DECISION_FILES)('%s: each decision in its four parts, in order', (f) => {
    const text = readFileSync(path.join(DIR, f), 'utf8');
    const sections = text.split(/^(?=#{1,4} )/m);
    const wrong: string[] = [];
    for (const sec of sections) {
      const found = PARTS.map((p) => sec.split(p).length - 1);
      if (found.every((n) => n === 0)) continue; // a section that holds no decision (a contract, an introduction)
      const at = PARTS.map((p) => sec.indexOf(p));
      if (!found.every((n) => n === 1) || at.some((i, k) => k > 0 && i < at[k - 1]!)) wrong.push(sec.split('\n')[0]!);
    }
    expect(wrong).toEqual([]);
    expect(sections.filter((sec) => sec.includes(PARTS[0]!)).length).toBeGreaterThan(0);
  });

  it.each([...DECISION_FILES, 'README.md'])('%s: written in the present, not as the history of the work', (f) => {
    const offenders: string[] = [];
    readFileSync(path.join(DIR, f), 'utf8').split('\n').forEach((l, i) => {
      if (HISTORY.test(l)) offenders.push(`${f}:${i + 1}: ${l.trim()}`);
    });
    expect(offenders).toEqual([]);
  });

  it('no section names an issue number (history is in git and the changelog)', () => {
    const offenders: string[] = [];
    for (const f of readdirSync(DIR).filter((n) => n.endsWith('.md'))) {
      readFileSync(path.join(DIR, f), 'utf8').split('\n').forEach((l, i) => {
        if (/\bissues? \d+\b/i.test(l)) offenders.push(`docs/design/${f}:${i + 1}: ${l.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });
});
