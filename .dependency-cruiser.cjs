/**
 * Import boundaries, one rule per folder README's "May import" line (keep the two in step:
 * a README that changes its line changes its rule here). Run: `npm run lint:deps`.
 *
 * Tests (`*.test.ts`, `testing/` folders and test fixtures) are held by their own rules (see
 * "Tests" below): a test may start a whole Conductor (`src/conductor/`) to check its code
 * against the real thing; production code below the root never may.
 */
const TEST = '(\\.test\\.ts$|/testing/|/test-fixtures\\.ts$|/test-arbitraries\\.ts$)';

/** A rule: code under `from` (not tests) may import nothing in src/ but what `allowed` matches. */
function only(name, comment, from, allowed) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: from, pathNot: TEST },
    to: { path: '^src/', pathNot: allowed },
  };
}

/** A rule: code under `from` (not tests) never imports what `to` matches. */
function never(name, comment, from, to, fromNot) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: from, pathNot: fromNot ? `${TEST}|${fromNot}` : TEST },
    to: { path: to },
  };
}

module.exports = {
  forbidden: [
    // --- the layers (src/<folder>/README.md) ---
    only('machinery', 'machinery/README.md: pure functions; imports nothing from the rest of Conductor.', '^src/machinery/', '^src/machinery/'),
    only('store', 'store/README.md: nothing from the rest of src/.', '^src/store/', '^src/store/'),
    only('metrics', 'metrics/README.md: prom-client only; nothing from the rest of src/.', '^src/metrics/', '^src/metrics/'),
    only('client', 'client/README.md: may import machinery/ only.', '^src/client/', '^src/(client|machinery)/'),
    only('scheduler', 'scheduler/README.md: may import machinery/ only.', '^src/scheduler/', '^src/(scheduler|machinery)/'),
    only('apis', 'apis/README.md: may import machinery/, client/types and client/logger.', '^src/apis/', '^src/(apis/|machinery/|client/(types|logger)\\.ts$)'),
    only(
      'providers',
      'providers/README.md: may import machinery/ and apis/ (schema builder, common fields, claim kinds), and each other through providers/.',
      '^src/providers/',
      '^src/(providers|machinery|apis)/',
    ),
    only(
      'controllers',
      'controllers/README.md: may import client/, machinery/, apis/, scheduler/ and providers/; never store/, apiserver/ or the composition root.',
      '^src/controllers/',
      '^src/(controllers|client|machinery|apis|scheduler|providers)/',
    ),
    only(
      'apiserver',
      'apiserver/README.md: the generic API server; may import machinery/, store/, metrics/, the client/ interface and version.ts; knows nothing of claims (apis/), controllers or providers.',
      '^src/apiserver/',
      '^src/(apiserver/|machinery/|store/|metrics/|client/|version\\.ts$)',
    ),
    only(
      'conductor',
      'conductor/README.md: the composition root may import every layer, but not the CLI.',
      '^src/conductor/',
      '^src/(conductor|apiserver|controllers|apis|providers|client|machinery|store|scheduler|metrics)/',
    ),
    only(
      'trace',
      'trace/README.md: bundled for the browser too (the dashboard); machinery/object and errors, client/types and apis/well-known only.',
      '^src/trace/',
      '^src/(trace/|machinery/(object|errors)\\.ts$|client/types\\.ts$|apis/well-known\\.ts$)',
    ),
    only(
      'dashboard',
      'dashboard/README.md: the browser app; talks to the server only through the API (fetch); may import trace/, client/types.ts, machinery/(object|errors).ts, machinery/quantity/ and apis/well-known.ts, which bundle for the browser.',
      '^src/dashboard/',
      '^src/(dashboard/|trace/|client/types\\.ts$|machinery/(object|errors)\\.ts$|machinery/quantity/|apis/well-known\\.ts$)',
    ),
    never(
      'dashboard-imported',
      'dashboard/README.md: nothing imports the browser app; the server serves its built files.',
      '^(src|test|bench)/',
      '^src/dashboard/',
      '^src/dashboard/',
    ),
    never('cli-imported', 'Only the CLI entry point imports cli/.', '^(src|test|bench)/', '^src/cli/', '^src/cli/'),
    never(
      'conductor-imported',
      'conductor/README.md: only the CLI (and tests) import the composition root.',
      '^src/',
      '^src/conductor/',
      '^src/(conductor|cli)/',
    ),
    never('no-tests-from-src', 'Production code never imports test support, benchmarks or test files.', '^src/', '(^test/|^bench/|\\.test\\.ts$)'),
    // Tests: a test below the composition root may start a whole Conductor (conductor/), but
    // never reaches into the API server, the controllers or the CLI. The one exception:
    // apis/ tests check every CRD against the API server's own CRD validation and schema
    // compiler (apis/catalog.test.ts).
    {
      name: 'lower-tests',
      comment:
        'Tests under machinery/, store/, client/, scheduler/, providers/ import neither apiserver/, controllers/ nor cli/ (conductor/ starts a real server).',
      severity: 'error',
      from: { path: '^src/(machinery|store|client|scheduler|providers)/' },
      to: { path: '^src/(apiserver|controllers|cli)/' },
    },
    {
      name: 'apis-tests',
      comment: 'Tests under apis/ import no controllers/, providers/ or cli/; apiserver/ only for CRD validation and the schema compiler.',
      severity: 'error',
      from: { path: '^src/apis/' },
      to: { path: '^src/(controllers|providers|cli)/|^src/apiserver/(?!builtins/crd-validation\\.ts$|schema/)' },
    },
    {
      name: 'apiserver-tests',
      comment: 'Even its tests keep the API server generic: no apis/, controllers/, providers/ or conductor/.',
      severity: 'error',
      from: { path: '^src/apiserver/' },
      to: { path: '^src/(apis|controllers|providers|conductor|scheduler|cli)/' },
    },

    // --- sub-folders with their own "May import" line ---
    only('machinery/quantity', 'machinery/quantity/README.md: nothing else in the project.', '^src/machinery/quantity/', '^src/machinery/quantity/'),
    only(
      'machinery/apply',
      'machinery/apply/README.md: object.ts, errors.ts and the schema types.',
      '^src/machinery/apply/',
      '^src/machinery/(apply/|object\\.ts$|errors\\.ts$|schema-types\\.ts$)',
    ),
    only(
      'machinery/validation',
      'machinery/validation/README.md: machinery/errors and machinery/object.',
      '^src/machinery/validation/',
      '^src/machinery/(validation/|object\\.ts$|errors\\.ts$)',
    ),
    only(
      'machinery/selectors',
      'machinery/selectors/README.md: machinery/errors, object and validation.',
      '^src/machinery/selectors/',
      '^src/machinery/(selectors/|validation/|object\\.ts$|errors\\.ts$)',
    ),
    only(
      'machinery/patch',
      'machinery/patch/README.md: machinery/errors, object and the schema types.',
      '^src/machinery/patch/',
      '^src/machinery/(patch/|object\\.ts$|errors\\.ts$|schema-types\\.ts$)',
    ),
    only('store/sqlite', 'store/sqlite/README.md: ../types.js only.', '^src/store/sqlite/', '^src/store/(sqlite/|types\\.ts$)'),
    only('scheduler-internal', 'scheduler/README.md: machinery/ only.', '^src/scheduler/', '^src/(scheduler|machinery)/'),
    only(
      'providers/local',
      "providers/local/README.md (and its engines' READMEs): machinery/, apis/ (schema builder, common fields, claim kinds), the provider SPI and the shared helpers beside it (providers/*.ts); the engines share process/, config-formats/ and a few PostgreSQL helpers.",
      '^src/providers/local/',
      '^src/(machinery/|apis/|providers/[^/]+\\.ts$|providers/local/)',
    ),
    only(
      'providers/local/config-formats',
      'providers/local/config-formats/README.md: machinery/ only.',
      '^src/providers/local/config-formats/',
      '^src/(machinery/|providers/local/config-formats/)',
    ),
    only(
      'providers/local/process',
      'providers/local/process/: the process supervision every engine shares; machinery/, the provider SPI and the helpers beside it.',
      '^src/providers/local/process/',
      '^src/(machinery/|providers/[^/]+\\.ts$|providers/local/process/)',
    ),
    // The engines (postgresql, mysql, redis, nats, s3, hostpath, loadbalancer): each may use
    // process/, config-formats/ and the helpers beside them (bound-claims.ts, match-helpers.ts),
    // but no other engine's folder except the two PostgreSQL helpers redis/ and nats/ share.
    only(
      'providers/local/engines',
      "providers/local/<engine>/README.md: machinery/, apis/ (schema builder, common fields, claim kinds), providers/spi.ts and kind-definition.ts (and the helpers beside them), ../process/, ../config-formats/, ../bound-claims.ts, ../match-helpers.ts, ../groups.ts, and PostgreSQL's names, version and kinds (the SQL claim fields MySQL shares).",
      '^src/providers/local/(postgresql|mysql|redis|nats|s3|hostpath|loadbalancer)/',
      // $1: the engine's own folder (dependency-cruiser fills in the group matched in `from`).
      '^src/(machinery/|apis/|providers/[^/]+\\.ts$|providers/local/(process|config-formats)/|providers/local/(bound-claims|match-helpers|groups)\\.ts$|providers/local/postgresql/(names|version|kinds)\\.ts$)|^src/providers/local/$1/',
    ),
    only(
      'apiserver/schema/cel',
      "apiserver/schema/cel/README.md: ../node.ts, ../causes.ts, ../formats.ts, ../regex.ts, the registry's resource types and machinery/errors.ts.",
      '^src/apiserver/schema/cel/',
      '^src/(apiserver/schema/cel/|apiserver/schema/(node|causes|formats|regex)\\.ts$|apiserver/registry/resource-type\\.ts$|machinery/(errors|schema-types)\\.ts$)',
    ),
    only(
      'providers/memory',
      'providers/memory/README.md: machinery/, apis/ (schema builder, common fields, claim kinds), the provider SPI and the shared helpers beside it (providers/*.ts).',
      '^src/providers/memory/',
      '^src/(machinery/|apis/|providers/[^/]+\\.ts$|providers/memory/)',
    ),
    only(
      'controllers/managed',
      'controllers/managed/README.md: client/, machinery/, providers/spi.ts and apis/.',
      '^src/controllers/managed/',
      '^src/(controllers/managed/|controllers/events\\.ts$|controllers/metrics\\.ts$|client/|machinery/|apis/|providers/spi\\.ts$)',
    ),
    only(
      'controllers/quota',
      "controllers/quota/README.md: client/, machinery/, apis/ and the binding records' reading (../claims/binding-check.ts).",
      '^src/controllers/quota/',
      '^src/(controllers/quota/|controllers/claims/binding-check\\.ts$|controllers/metrics\\.ts$|client/|machinery/|apis/)',
    ),
    only(
      'controllers/claims',
      'controllers/claims/README.md: client/, machinery/, apis/, scheduler/, providers/spi, controllers/events and the helpers it shares with managed/ (conditions, connect-context, connection-secret, broken-shares, call-deadline, reconciler-options).',
      '^src/controllers/claims/',
      '^src/(controllers/claims/|controllers/events\\.ts$|controllers/metrics\\.ts$|controllers/managed/(conditions|connect-context|connection-secret|broken-shares|call-deadline|reconciler-options)\\.ts$|client/|machinery/|apis/|scheduler/|providers/spi\\.ts$)',
    ),
    only(
      'controllers/pool',
      "controllers/pool/README.md: client/, machinery/, apis/, providers/spi.ts, ../events.ts and the claims' class label (claims/labels.ts).",
      '^src/controllers/pool/',
      '^src/(controllers/pool/|controllers/events\\.ts$|controllers/metrics\\.ts$|controllers/claims/labels\\.ts$|client/|machinery/|apis/|providers/spi\\.ts$)',
    ),
    only('apiserver/audit', 'apiserver/audit/README.md: nothing from the rest of the server.', '^src/apiserver/audit/', '^src/apiserver/audit/'),
    only('apiserver/auth', 'apiserver/auth/README.md: nothing else in src/.', '^src/apiserver/auth/', '^src/apiserver/auth/'),
    only(
      'apiserver/docs',
      'apiserver/docs/README.md: registry/resource-type.ts (types) and protobuf/index.ts.',
      '^src/apiserver/docs/',
      '^src/(apiserver/docs/|apiserver/registry/resource-type\\.ts$|apiserver/protobuf/|machinery/schema-types\\.ts$)',
    ),
    only(
      'store/etcd',
      'store/etcd/README.md: ../types.js and ../sqlite/options.js only.',
      '^src/store/etcd/',
      '^src/store/(etcd/|types\\.ts$|sqlite/options\\.ts$)',
    ),
    only('apiserver/protobuf', 'apiserver/protobuf/README.md: machinery/ only.', '^src/apiserver/protobuf/', '^src/(apiserver/protobuf/|machinery/)'),
    only(
      'apiserver/encryption',
      'apiserver/encryption/README.md: machinery/ and store/.',
      '^src/apiserver/encryption/',
      '^src/(apiserver/encryption/|machinery/|store/)',
    ),
    only(
      'apiserver/schema',
      'apiserver/schema/README.md: registry/resource-type.ts (types) and machinery/errors.ts.',
      '^src/apiserver/schema/',
      '^src/(apiserver/schema/|apiserver/registry/resource-type\\.ts$|machinery/(errors|schema-types)\\.ts$)',
    ),
    only(
      'apiserver/builtins',
      'apiserver/builtins/README.md: machinery/, apiserver/registry and apiserver/schema.',
      '^src/apiserver/builtins/',
      '^src/(apiserver/(builtins|registry|schema)/|machinery/)',
    ),
    only(
      'apiserver/rest',
      'apiserver/rest/README.md: machinery/, store/types, client/types (PatchType), registry/, storage/, admission/, schema/, builtins/.',
      '^src/apiserver/rest/',
      '^src/(apiserver/(rest|registry|storage|admission|schema|builtins)/|machinery/|store/types\\.ts$|client/types\\.ts$)',
    ),
    only(
      'apiserver/authn-api',
      'apiserver/authn-api/README.md: machinery/, auth/, and types from http/, registry/, rest/.',
      '^src/apiserver/authn-api/',
      '^src/(apiserver/(authn-api|auth|http|registry|rest)/|machinery/)',
    ),
    only(
      'apiserver/http',
      "apiserver/http/README.md: machinery/, rest/, registry/, authz/, docs/, protobuf/, audit/, storage/, client/types (PatchType) and the store's errors.",
      '^src/apiserver/http/',
      '^src/(apiserver/(http|rest|registry|authz|docs|protobuf|audit|storage)/|machinery/|metrics/index\\.ts$|store/(index|types)\\.ts$|client/types\\.ts$)',
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    // Type-only imports are dependencies too: a layer may not lean on another's types.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
  },
};
