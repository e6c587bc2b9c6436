import * as path from 'node:path';
import { UsageError } from '../../core/errors.js';
import type { Image } from '../../oci/image.js';
import { openOciLayout } from '../../oci/layout.js';
import { parseReference, Reference, ReferenceError } from '../../oci/reference.js';
import { RegistryClient } from '../../oci/registry-client.js';
import { parseCommandArgs } from '../args.js';
import { outputFormat, renderReport } from '../output.js';
import type { Command } from '../io.js';
import { REGISTRY_TIMEOUT_FLAGS, registryOptions, registryTimeoutHelp, registryTimeouts } from '../registry-options.js';

const HELP = `Usage: pkogen push --oci-layout DIR|--archive FILE [--image NAME] REF... [-o text|json|digest]
                   [--insecure] [--connect-timeout D] [--stall-timeout D] [--timeout D]

Pushes an image that is already built (by pkogen build --oci-layout / --output-file, or any other tool) to every
REF, unchanged: the same bytes, so the same digest. Blobs the registry has already are not sent
again; the tag is written only after every blob is confirmed.

Options:
      --oci-layout DIR   the image is in this OCI image layout
      --archive FILE     the image is in this docker archive (docker save, pkogen build --output-file)
      --image NAME       the image to take when the layout or archive holds several
                         (a layout's ref name, e.g. v1; an archive's tag, e.g. quay.io/org/pkg:v1)
  -o, --output FORMAT    text (default), json (digest, tags, blob counts) or digest (the manifest digest alone)
      --insecure         allow plain HTTP and unverified TLS for any registry
                         (loopback registries may use HTTP without it)
${registryTimeoutHelp(6, 25)}

Example: pkogen push --oci-layout _output/layout quay.io/org/pkg:abc1234 -o digest
`;

export const command: Command = {
  name: 'push',
  summary: 'Push an already built image (OCI layout or docker archive) to a registry',
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      'push',
      args,
      {
        'oci-layout': { type: 'string' },
        archive: { type: 'string' },
        image: { type: 'string' },
        output: { type: 'string', short: 'o' },
        insecure: { type: 'boolean' },
        ...REGISTRY_TIMEOUT_FLAGS,
      },
      { min: 1, max: 64, names: 'REF...' },
    );
    const format = outputFormat({ command: 'push', formats: ['text', 'json', 'digest'] }, values.output);
    const layout = values['oci-layout'];
    const archive = values.archive;
    if ((layout === undefined) === (archive === undefined)) throw new UsageError('push: give exactly one of --oci-layout DIR and --archive FILE');
    const refs: Reference[] = positionals.map((t) => {
      try {
        const r = parseReference(t);
        if (r.digest || !r.tag) throw new ReferenceError('give a tag (REGISTRY/REPOSITORY:TAG), not a digest');
        return r;
      } catch (e) {
        if (e instanceof ReferenceError) throw new UsageError(`push: invalid reference ${JSON.stringify(t)}: ${e.message}`);
        throw e;
      }
    });
    const timeouts = registryTimeouts('push', values);
    // Layer digests are checked while the layers are sent (Blob.verify), not in a pass before.
    const image: Image =
      layout !== undefined
        ? await openOciLayout(path.resolve(io.cwd, layout), values.image, {}, { deferLayerVerification: true })
        : await (await import('../../oci/docker-archive.js')).openDockerArchive(path.resolve(io.cwd, archive!), values.image);
    const client = new RegistryClient(registryOptions(io, values.insecure === true, timeouts));
    try {
      const r = await client.push(image, refs);
      const text = `Pushed ${image.digest} (${r.uploaded} blob${r.uploaded === 1 ? '' : 's'} uploaded, ${r.skipped} already present, ${r.mounted} mounted)\n`;
      const result = { digest: image.digest, tags: positionals, uploaded: r.uploaded, skipped: r.skipped, mounted: r.mounted };
      io.stdout(renderReport(format, { command: 'push', subject: layout ?? archive!, findings: [], ok: true, result, text: () => text }, { digest: () => `${image.digest}\n` }));
      return 0;
    } finally {
      client.close();
    }
  },
};
