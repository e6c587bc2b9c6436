#!/usr/bin/env node
// Valid as CommonJS (bin/package.json, in this checkout) and as an ES module (the builder image
// copies this file alone, under the root package.json's "type": "module"): no import statement,
// no require, no top-level await.
// `webhook` loads only its own entry (builder/webhook/main.ts): no Kubernetes client, no controller;
// the one-file bundle hack/precompile-webhook.mjs makes, or the plain tsc output without it.
const args = process.argv.slice(2);
const webhookEntry = () =>
  import('../dist/builder/webhook/webhook.bundle.mjs').catch((e) => {
    if (e && e.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('webhook.bundle.mjs')) return import('../dist/builder/webhook/main.js');
    throw e;
  });
// The controller and token-minter: the one-file bundle of builder/cli.ts (same script), or the tsc output.
const cliEntry = () =>
  import('../dist/builder/cli.bundle.mjs').catch((e) => {
    if (e && e.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('cli.bundle.mjs')) return import('../dist/builder/cli.js');
    throw e;
  });
(args[0] === 'webhook'
  ? webhookEntry().then(({ webhookMain }) => webhookMain(args.slice(1)))
  : cliEntry().then(({ main }) => main(args))
).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`on-cluster-build: internal error: ${e?.message ?? String(e)}\n`);
    process.exitCode = 1;
  },
);
