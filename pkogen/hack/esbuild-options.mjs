/**
 * esbuild options every build step that bundles npm packages shares (hack/bundle.mjs,
 * hack/flatten-kinds.mjs, hack/cjs-kinds.mjs).
 *
 * ALIAS: ajv-formats-draft2019 (the idn-hostname format of kubernetes-models' validators)
 * require()s 'punycode', which Node resolves to its own deprecated built-in (DEP0040: a warning on
 * stderr from Node 21 on), although the package depends on punycode@2 from npm. 'punycode/' is
 * that npm package; the same toASCII.
 */
export const ALIAS = { punycode: 'punycode/' };

/**
 * pkogen's optional peer dependencies (package.json peerDependenciesMeta): never bundled, so a
 * command that needs one finds the user's copy in node_modules, or says how to add it.
 */
export const OPTIONAL_PEERS = ['ts-morph', '@kubernetes/client-node'];
