/**
 * The container image (Dockerfile, .dockerignore), checked statically: no image can be built
 * on the test machine (no container daemon, and the base image cannot be pulled), so this
 * holds the file to what the Helm chart and package.json expect of it — the command the chart
 * runs, the user its securityContext names, the writable paths it mounts on a read-only root
 * filesystem, the health port, the `conductor` binary of package.json, every native
 * dependency rebuilt, and a build context that has what the COPY lines need.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../support/server.js';

const read = (...p: string[]) => readFileSync(join(repoRoot, ...p), 'utf8');

/** An Instruction is one Dockerfile instruction, continuation lines joined. */
interface Instruction {
  keyword: string;
  value: string;
}

/** parseDockerfile splits a Dockerfile into instructions (comments dropped, `\` continuations joined). */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    const m = /^(\S+)\s+(.*)$/.exec(full);
    if (m) out.push({ keyword: m[1].toUpperCase(), value: m[2] });
  }
  return out;
}

/** The instructions of each stage (a stage starts at FROM). */
function stages(all: Instruction[]): Instruction[][] {
  const out: Instruction[][] = [];
  for (const i of all) {
    if (i.keyword === 'FROM') out.push([]);
    out[out.length - 1]?.push(i);
  }
  return out;
}

const dockerfile = parseDockerfile(read('Dockerfile'));
const [buildStage, runStage] = stages(dockerfile);
const values = parse(read('deploy', 'helm', 'conductor', 'values.yaml')) as { image: { command: string[] }; healthPort: number };
const deployment = read('deploy', 'helm', 'conductor', 'templates', 'deployment.yaml');
const pkg = JSON.parse(read('package.json')) as { bin: Record<string, string>; engines: { node: string } };
const last = (stage: Instruction[], keyword: string) => stage.filter((i) => i.keyword === keyword).at(-1)?.value;

describe('the container image', () => {
  test('two stages, both on node:20-bookworm-slim (Node 20, as package.json engines asks)', () => {
    assert.equal(stages(dockerfile).length, 2);
    assert.equal(buildStage[0].value, 'node:20-bookworm-slim AS build');
    assert.equal(runStage[0].value, 'node:20-bookworm-slim');
    assert.match(pkg.engines.node, /^>=20\./);
  });

  test("the entrypoint is the chart's image.command, and the default arguments start `controllers` like the chart's", () => {
    assert.deepEqual(JSON.parse(last(runStage, 'ENTRYPOINT')!), values.image.command);
    const cmd = JSON.parse(last(runStage, 'CMD')!) as string[];
    assert.equal(cmd[0], 'controllers');
    assert.match(deployment, /args:\n\s+- controllers\n/);
    assert.ok(cmd.includes('--data-dir=/var/lib/conductor') && deployment.includes('--data-dir=/var/lib/conductor'));
    assert.ok(cmd.includes(`--health-port=${values.healthPort}`));
  });

  test("`conductor` is package.json's bin, made executable and on the PATH", () => {
    const run = runStage.filter((i) => i.keyword === 'RUN').map((i) => i.value);
    const bin = pkg.bin[values.image.command[0]];
    assert.equal(bin, 'dist/cli/conductor.js');
    assert.ok(
      run.some((r) => r.includes(`chmod 0755 ${bin}`) && r.includes(`ln -s /opt/conductor/${bin} /usr/local/bin/conductor`)),
      run.join('\n'),
    );
    assert.match(read('src', 'cli', 'main.ts'), /^#!\/usr\/bin\/env node\n/);
  });

  test("it runs as the chart's non-root user, owning only the data directory the chart mounts", () => {
    const user = /runAsUser: (\d+)/.exec(deployment)?.[1];
    const group = /runAsGroup: (\d+)/.exec(deployment)?.[1];
    assert.equal(last(runStage, 'USER'), `${user}:${group}`);
    assert.notEqual(user, '0');
    assert.match(deployment, /readOnlyRootFilesystem: true/);
    for (const path of ['/var/lib/conductor', '/tmp']) assert.match(deployment, new RegExp(`mountPath: ${path}\\n`));
    const run = runStage
      .filter((i) => i.keyword === 'RUN')
      .map((i) => i.value)
      .join('\n');
    assert.match(run, new RegExp(`chown ${user}:${group} /var/lib/conductor`));
    // HOME points at a writable mount: nothing expects to write elsewhere on a read-only root.
    assert.match(last(runStage, 'ENV')!, /HOME=\/tmp/);
    assert.equal(last(runStage, 'EXPOSE'), String(values.healthPort));
  });

  test('every non-optional dependency with an install script is rebuilt after `npm ci --ignore-scripts`', () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { hasInstallScript?: boolean; optional?: boolean }> };
    const native = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.hasInstallScript && !p.optional)
      .map(([path]) => path.replace(/^.*node_modules\//, ''));
    const run = buildStage.filter((i) => i.keyword === 'RUN').map((i) => i.value);
    assert.ok(run.some((r) => r.includes('npm ci --ignore-scripts')));
    const rebuilt = run.flatMap((r) => /npm rebuild ([^&]+)/.exec(r)?.[1].trim().split(/\s+/) ?? []);
    assert.deepEqual(
      native.filter((n) => !rebuilt.includes(n)),
      [],
      `not rebuilt: ${native.join(', ')}`,
    );
    assert.ok(run.some((r) => r.includes('npm run build') && r.includes('npm prune --omit=dev')));
  });

  test('the build context has what the COPY lines name, and .dockerignore keeps local state out', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    for (const i of buildStage.filter((x) => x.keyword === 'COPY')) {
      const parts = i.value.split(/\s+/);
      for (const src of parts.slice(0, -1)) {
        const name = src.replace(/\/$/, '');
        assert.ok(existsSync(join(repoRoot, name)), `COPY ${src}: missing from the repository`);
        assert.ok(!ignored.includes(name), `COPY ${src}: excluded by .dockerignore`);
      }
    }
    for (const local of ['.git', 'node_modules', 'dist', '.conductor']) assert.ok(ignored.includes(local), `.dockerignore lacks ${local}`);
  });

  test('src compiles without test/: every file under src that imports from test/ (test helpers) is left out of the context', () => {
    const ignored = new Set(
      read('.dockerignore')
        .split('\n')
        .map((l) => l.trim()),
    );
    const importsTest = readdirSync(join(repoRoot, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => `src/${f}`)
      .filter((f) => /from '(\.\.\/)+test\//.test(read(f)));
    assert.deepEqual(
      importsTest.filter((f) => !ignored.has(f)),
      [],
      'add these to .dockerignore (only tests may use them), or stop them importing test/',
    );
  });
});
