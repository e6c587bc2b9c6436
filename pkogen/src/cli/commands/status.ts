import { UsageError, UserError } from '../../core/errors.js';
import { connect, PKO, type KubeReader, type KubeObject, type Resource } from '../../kube/client.js';
import { buildRows, summarize, type Listed, type PackageRow } from '../../status/model.js';
import { formatText } from '../../status/format.js';
import { parseCommandArgs } from '../args.js';
import { processIO, type CliIO, type Command } from '../io.js';
import { progress } from '../terminal.js';
import { FINDING_FORMATS, outputFormat, renderReport, type Report } from '../output.js';

const HELP = `Usage: pkogen status [NAME] [-A | -n NS] [-l SELECTOR] [--kubeconfig FILE] [--context C] [--expect-image REF] [-o text|wide|json] [--watch [--watch-timeout S]]
       pkogen status --explain NS/NAME [--kubeconfig FILE] [--context C] [--insecure] [-o text|json|github|junit|tap]

Shows every Package Operator Package of the selected namespaces in one table: revision, image
digest, state (Available, Progressing, Unpacking, Invalid, Paused, NotReady) with reason and age,
the phase and objects that block the active revision (from its ObjectSet's ProbeFailure),
PreflightError and CollisionDetected messages verbatim, and the ObjectSetPhases (the
hosted-cluster phase). One paged list call per kind, whatever the number of namespaces.

Options:
  -A, --all-namespaces   every namespace (and ClusterPackages, HostedClusterPackages)
  -n, --namespace NS     one namespace (default: the kubeconfig context's, else "default")
  -l, --selector SEL     label selector for Packages
  --kubeconfig FILE      kubeconfig (default: KUBECONFIG, then in-cluster, then ~/.kube/config)
  --context C            kubeconfig context
  --expect-image REF     count a Package whose running image differs as drift (digest or reference)
  -o, --output FORMAT    text (default), wide (adds revision history), json;
                         with --explain: text, json, github, junit or tap
  --watch                redraw on every change (list, then watch; bounded reconnects)
  --watch-timeout S      with --watch: stop after S seconds (exit code of the last state)
  --explain NS/NAME      pull an Invalid Package's image and validate it with its config: located findings
  --insecure             with --explain: allow plain-HTTP registries
  --page-size N          list page size (default 500)

Exit codes: 0 every selected Package Available and no drift, 1 otherwise (or an API error), 2 usage error.
`;

/** What the table shows, in the JSON form's subject. */
function subjectOf(sel: StatusSelection): string {
  const where = sel.allNamespaces ? 'all namespaces' : `namespace ${sel.namespace ?? '(current context)'}`;
  return `${sel.name ? `Package ${sel.name} in ` : ''}${where}${sel.selector ? ` with ${sel.selector}` : ''}`;
}

export interface StatusSelection {
  allNamespaces: boolean;
  namespace?: string;
  selector?: string;
  name?: string;
  pageSize: number;
}

/** One paged list per kind (kinds whose CRD is absent are skipped). */
export async function listAll(kube: KubeReader, sel: StatusSelection): Promise<Listed & { resourceVersion: string }> {
  const ns = sel.allNamespaces ? undefined : (sel.namespace ?? kube.namespace);
  const list = async (r: Resource, labelSelector?: string) => (await kube.list(r, { namespace: ns, labelSelector, pageSize: sel.pageSize })) ?? { items: [], resourceVersion: '' };
  const pkgs = await kube.list(PKO.packages, { namespace: ns, labelSelector: sel.selector, pageSize: sel.pageSize });
  if (pkgs === undefined) throw new UserError(`the API at ${kube.server} serves no packages.package-operator.run: is Package Operator installed?`);
  const ods = await list(PKO.objectDeployments);
  const sets = await list(PKO.objectSets);
  const phases = await list(PKO.objectSetPhases);
  let packages = pkgs.items;
  if (sel.allNamespaces) {
    const cps = await list(PKO.clusterPackages, sel.selector);
    const hcps = await list(PKO.hostedClusterPackages, sel.selector);
    packages = [...packages, ...cps.items, ...hcps.items];
  }
  if (sel.name !== undefined) packages = packages.filter((p) => p.metadata.name === sel.name);
  return { packages, objectDeployments: ods.items, objectSets: sets.items, objectSetPhases: phases.items, resourceVersion: pkgs.resourceVersion };
}

const STATUS_OUTPUT = { command: 'status', formats: ['text', 'wide', 'json'] };

function render(rows: PackageRow[], output: string, expectImage: string | undefined, now: Date, subject: string): string {
  const summary = summarize(rows);
  const report: Report = {
    command: 'status',
    subject,
    findings: [],
    ok: rows.every((r) => r.ok),
    result: { totals: summary, packages: rows },
    text: () => formatText(rows, summary, { now, wide: false, expectImage }),
  };
  return renderReport(output, report, { wide: () => formatText(rows, summary, { now, wide: true, expectImage }) });
}

export const command: Command = {
  name: 'status',
  summary: 'Show Package state across namespaces: revision, image, what blocks a rollout',
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      'status',
      args,
      {
        'all-namespaces': { type: 'boolean', short: 'A' },
        namespace: { type: 'string', short: 'n' },
        selector: { type: 'string', short: 'l' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        'expect-image': { type: 'string' },
        output: { type: 'string', short: 'o' },
        watch: { type: 'boolean', short: 'w' },
        'watch-timeout': { type: 'string' },
        explain: { type: 'string' },
        insecure: { type: 'boolean' },
        'page-size': { type: 'string' },
      },
      { min: 0, max: 1, names: 'NAME' },
    );
    if (values['all-namespaces'] && values.namespace !== undefined) throw new UsageError('status: give -A or -n, not both');
    const pageSize = values['page-size'] === undefined ? 500 : Number(values['page-size']);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 10_000) throw new UsageError('status: --page-size must be an integer from 1 to 10000');
    let watchTimeout: number | undefined;
    if (values['watch-timeout'] !== undefined) {
      if (!values.watch) throw new UsageError('status: --watch-timeout goes with --watch');
      watchTimeout = Number(values['watch-timeout']);
      if (!(watchTimeout > 0 && watchTimeout <= 86_400)) throw new UsageError('status: --watch-timeout must be a number of seconds from 1 to 86400');
    }
    const expectImage = values['expect-image'];
    if (values.explain !== undefined) {
      if (positionals.length || values.watch || values['all-namespaces'] || values.namespace !== undefined || values.selector !== undefined) {
        throw new UsageError('status: --explain NS/NAME takes no NAME, -A, -n, -l or --watch');
      }
      const m = /^([a-z0-9][a-z0-9.-]*)\/([a-z0-9][a-z0-9.-]*)$/.exec(values.explain);
      if (!m) throw new UsageError(`status: --explain expects NS/NAME, got ${JSON.stringify(values.explain)}`);
      const kube = await connect({ kubeconfig: values.kubeconfig, context: values.context, env: io.env });
      const { explain } = await import('./status-explain.js');
      return explain(kube, m[1], m[2], io, values.insecure === true, outputFormat({ command: 'status --explain', formats: FINDING_FORMATS }, values.output));
    }
    const output = outputFormat(STATUS_OUTPUT, values.output);
    const sel: StatusSelection = { allNamespaces: values['all-namespaces'] === true, namespace: values.namespace, selector: values.selector, name: positionals[0], pageSize };
    const kube = await connect({ kubeconfig: values.kubeconfig, context: values.context, env: io.env });

    const spin = progress(io, 'listing packages', { enabled: output !== 'json' });
    let listed;
    try {
      listed = await listAll(kube, sel);
    } finally {
      spin.stop();
    }
    let rows = buildRows(listed, expectImage);
    io.stdout(render(rows, output, expectImage, new Date(), subjectOf(sel)));
    if (values.watch) rows = await watchLoop(kube, sel, io, output, expectImage, listed.resourceVersion, watchTimeout);
    return rows.every((r) => r.ok) ? 0 : 1;
  },
};

const MAX_RECONNECTS = 5;
const WATCHED = [PKO.packages, PKO.objectSets, PKO.objectSetPhases];

/**
 * Watches the kinds that change a row; after a burst of events lists again and redraws. A stream
 * the server ends is reopened from its last resourceVersion; more than MAX_RECONNECTS failures in
 * a row end the watch with an error.
 */
async function watchLoop(kube: KubeReader, sel: StatusSelection, io: CliIO, output: string, expectImage: string | undefined, rv: string, timeoutS: number | undefined): Promise<PackageRow[]> {
  const ns = sel.allNamespaces ? undefined : (sel.namespace ?? kube.namespace);
  let rows: PackageRow[] = buildRows(await listAll(kube, sel), expectImage);
  let lastOut = render(rows, output, expectImage, new Date(), subjectOf(sel));
  const clear = io === processIO && process.stdout.isTTY;
  return new Promise<PackageRow[]>((resolve, reject) => {
    const handles: { stop(): void }[] = [];
    let finished = false;
    let pending: NodeJS.Timeout | undefined;
    const timers = new Set<NodeJS.Timeout>();
    const finish = (err?: unknown) => {
      if (finished) return;
      finished = true;
      if (pending) clearTimeout(pending);
      clearTimeout(deadline);
      for (const t of timers) clearTimeout(t);
      process.off('SIGINT', onSigint);
      for (const h of handles) h.stop();
      if (err) reject(err);
      else resolve(rows);
    };
    const onSigint = () => finish();
    process.on('SIGINT', onSigint);
    const deadline = setTimeout(() => finish(), (timeoutS ?? 86_400) * 1000);
    const redraw = () => {
      pending = undefined;
      listAll(kube, sel)
        .then((listed) => {
          if (finished) return;
          rows = buildRows(listed, expectImage);
          const out = render(rows, output, expectImage, new Date(), subjectOf(sel));
          if (out !== lastOut) io.stdout((clear ? '\x1b[H\x1b[2J' : '---\n') + out);
          lastOut = out;
        })
        .catch((e) => finish(e));
    };
    // Consecutive failures per kind: an event in between resets it.
    const failures = new Map<string, number>();
    const start = (r: Resource, from: string) => {
      let last = from;
      let over = false;
      // The stream ended, or could not be opened: reopen with back-off, a bounded number of times.
      const ended = (err: unknown) => {
        if (finished || over) return;
        over = true;
        const n = (failures.get(r.plural) ?? 0) + 1;
        failures.set(r.plural, n);
        if (n > MAX_RECONNECTS) return finish(new UserError(`watch of ${r.plural} ended ${MAX_RECONNECTS} times in a row${err ? `: ${String((err as Error).message ?? err).split('\n')[0]}` : ''}`));
        const t = setTimeout(() => {
          timers.delete(t);
          if (!finished) start(r, last);
        }, Math.min(250 * n, 2000));
        timers.add(t);
      };
      kube
        .watch(
          r,
          { namespace: r.namespaced ? ns : undefined, resourceVersion: last },
          (e) => {
            // 410 Expired: start over without a resourceVersion (the server sends every object again).
            if (e.type === 'ERROR') return void (last = '');
            failures.set(r.plural, 0);
            if (e.object?.metadata?.resourceVersion) last = e.object.metadata.resourceVersion;
            if (e.type === 'BOOKMARK') return;
            pending ??= setTimeout(redraw, 200);
          },
          ended,
        )
        .then((h) => (finished ? h.stop() : handles.push(h)))
        .catch(ended);
    };
    for (const r of WATCHED) start(r, rv);
  });
}

export type { KubeObject };
