/**
 * The API server is generic: without an extension it serves the Kubernetes API only (no
 * CRDs, no claim handling); what an assembler adds comes through `ServerOptions.extend` —
 * its admission plugins run on every write, its hooks run before and after the server is
 * ready, and its `stop` runs on close, after what started beside the server.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { builtinRefs } from '../client/types.js';
import { errors, isApiError } from '../machinery/errors.js';
import type { KObject } from '../machinery/object.js';
import type { AdmissionAttributes, MutatingPlugin, ValidatingPlugin } from './admission/types.js';
import type { ServerExtension } from './extension.js';
import { startServer } from './server.js';

const logger = pino({ level: 'silent' });

async function withDataDir(run: (dataDir: string) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'conductor-extension-'));
  try {
    await run(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const configMap = (name: string): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });
const isConfigMap = (a: AdmissionAttributes): boolean => a.rt.group === '' && a.rt.resource === 'configmaps' && a.subresource === '';

describe('ServerOptions.extend', () => {
  test('without it the server serves no CRDs and writes objects as sent', async () => {
    await withDataDir(async (dataDir) => {
      const server = await startServer({ dataDir, host: '127.0.0.1', port: 0, logger });
      try {
        assert.deepEqual((await server.client.list(builtinRefs.customresourcedefinitions)).items, []);
        const made = await server.client.create(builtinRefs.configmaps, configMap('plain'));
        assert.equal(made.metadata.annotations, undefined);
        assert.equal(made.metadata.finalizers, undefined);
      } finally {
        await server.close();
      }
    });
  });

  test('its admission plugins run on every write; its hooks run before ready, after ready and on close, in that order', async () => {
    await withDataDir(async (dataDir) => {
      const calls: string[] = [];
      const stamp: MutatingPlugin = {
        name: 'Stamp',
        handles: isConfigMap,
        admit: (a) => {
          a.object!.metadata.annotations = { ...a.object!.metadata.annotations, stamped: 'yes' };
        },
      };
      const refuse: ValidatingPlugin = {
        name: 'Refuse',
        handles: isConfigMap,
        validate: (a) => {
          if (a.name === 'refused') throw errors.forbidden('refused by the test extension', { group: '', resource: 'configmaps' }, a.name);
        },
      };
      let sawReadyClient = false;
      const extension: ServerExtension = {
        mutating: [stamp],
        validating: [refuse],
        async beforeReady(ctx) {
          calls.push('beforeReady');
          // The loopback client works before the server listens: the plugins already apply.
          const early = await ctx.client.create(builtinRefs.configmaps, configMap('early'));
          assert.equal(early.metadata.annotations?.stamped, 'yes');
        },
        async afterReady(ctx) {
          calls.push('afterReady');
          sawReadyClient = (await ctx.client.get(builtinRefs.configmaps, 'early', 'default')).metadata.name === 'early';
        },
        async stop() {
          calls.push('stop');
        },
      };
      let partsGiven = false;
      const server = await startServer({
        dataDir,
        host: '127.0.0.1',
        port: 0,
        logger,
        extend: (parts) => {
          partsGiven = parts.registry.get('', 'v1', 'configmaps') !== undefined && typeof parts.objects.resourcePrefix === 'function';
          calls.push('extend');
          return extension;
        },
      });
      try {
        assert.ok(partsGiven, 'extend is given the registry and the object store');
        const made = await server.client.create(builtinRefs.configmaps, configMap('allowed'));
        assert.equal(made.metadata.annotations?.stamped, 'yes');
        await assert.rejects(
          server.client.create(builtinRefs.configmaps, configMap('refused')),
          (err: unknown) => isApiError(err) && err.code === 403 && /refused by the test extension/.test(err.message),
        );
      } finally {
        await server.close();
      }
      assert.deepEqual(calls, ['extend', 'beforeReady', 'afterReady', 'stop']);
      assert.ok(sawReadyClient);
    });
  });

  test('a failing extend or beforeReady fails the start, and what it started is stopped (the data dir serves again)', async () => {
    await withDataDir(async (dataDir) => {
      let stopped = false;
      await assert.rejects(
        startServer({ dataDir, host: '127.0.0.1', port: 0, logger, extend: () => Promise.reject(new Error('cannot build the extension')) }),
        /cannot build the extension/,
      );
      await assert.rejects(
        startServer({
          dataDir,
          host: '127.0.0.1',
          port: 0,
          logger,
          extend: () => ({
            beforeReady: () => Promise.reject(new Error('cannot install what this server needs')),
            stop: async () => {
              stopped = true;
            },
          }),
        }),
        /cannot install what this server needs/,
      );
      assert.ok(stopped, "the extension's stop ran");
      const server = await startServer({ dataDir, host: '127.0.0.1', port: 0, logger });
      try {
        await server.client.create(builtinRefs.configmaps, configMap('after-failures'));
      } finally {
        await server.close();
      }
    });
  });
});
