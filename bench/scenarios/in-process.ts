/**
 * In-process costs that unit tests used to assert with a clock (issue 11: speed belongs here,
 * not in tests): no server, each figure the median of several timed batches after a warm-up.
 *
 * - `in-process.validate.us`: one `validate` of a small object against a compiled CRD schema
 *   (integer minimum, string maxLength, a set-typed list, one CEL rule), microseconds per call.
 * - `in-process.audit-record.us`: one `AuditLog.record` while the sink is stuck (the request path
 *   must not wait for the disk), microseconds per entry, drops included.
 * - `in-process.protobuf-hostile.ms`: refusing a protobuf body of 1 MiB of varint continuation
 *   bytes and one with a huge declared length, milliseconds for the pair.
 */
import { performance } from 'node:perf_hooks';
import { AuditLog, type AuditEntry } from '../../src/apiserver/audit/audit-log.js';
import { decodeProtobufObject, PROTOBUF_MAGIC } from '../../src/apiserver/protobuf/decode-object.js';
import { compileSchema } from '../../src/apiserver/schema/index.js';
import type { ScenarioResult } from '../context.js';
import { round } from '../stats.js';

export interface InProcessBenchOptions {
  quick: boolean;
  log(message: string): void;
}

/** The median over `batches` of the time one batch of `perBatch` calls took, per call, in ms. */
function medianPerCallMs(batches: number, perBatch: number, call: (i: number) => void): number {
  for (let i = 0; i < perBatch; i++) call(i); // warm-up: compile, inline, allocate
  const perCall: number[] = [];
  for (let b = 0; b < batches; b++) {
    const start = performance.now();
    for (let i = 0; i < perBatch; i++) call(i);
    perCall.push((performance.now() - start) / perBatch);
  }
  perCall.sort((x, y) => x - y);
  return perCall[Math.floor(perCall.length / 2)];
}

function validateCost(batches: number): number {
  const compiled = compileSchema(
    {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object' },
        spec: {
          type: 'object',
          properties: {
            replicas: { type: 'integer', minimum: 0 },
            name: { type: 'string', maxLength: 63 },
            tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
          },
          'x-kubernetes-validations': [{ rule: 'self.replicas < 100' }],
        },
      },
    },
    { group: 'example.com', kind: 'Widget' },
  );
  const obj = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x' }, spec: { replicas: 3, name: 'abc', tags: ['a', 'b'] } };
  if (compiled.validate(obj).length !== 0) throw new Error('in-process bench: the sample object must be valid');
  return medianPerCallMs(batches, 2_000, () => compiled.validate(obj));
}

function auditRecordCost(batches: number): number {
  const entry = (n: number): AuditEntry => ({
    time: new Date(0).toISOString(),
    requestId: `r${n}`,
    user: 'u',
    groups: [],
    verb: 'get',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'secrets',
    subresource: '',
    namespace: 'ns',
    name: `s${n}`,
    path: '/api/v1/namespaces/ns/secrets',
    method: 'GET',
    code: 200,
    latencyMs: 1,
    sourceIP: '127.0.0.1',
    userAgent: 'bench',
  });
  // A sink that never finishes: every record beyond the buffer is a drop, as with a stuck disk.
  const log = new AuditLog(() => new Promise<void>(() => undefined), {
    maxBufferedBytes: 64 * 1024,
    logger: { warn: () => undefined, error: () => undefined } as unknown as import('pino').Logger,
  });
  return medianPerCallMs(batches, 5_000, (i) => log.record(entry(i)));
}

function protobufHostileCost(batches: number): number {
  const magic = Buffer.from(PROTOBUF_MAGIC);
  const hugeLength = Buffer.concat([magic, Buffer.from([0x12, 0xff, 0xff, 0xff, 0xff, 0x0f])]);
  const continuation = Buffer.concat([magic, Buffer.alloc(1 << 20, 0x80)]);
  const refuse = (body: Buffer): void => {
    try {
      decodeProtobufObject(body);
    } catch {
      return;
    }
    throw new Error('in-process bench: a hostile protobuf body was accepted');
  };
  return medianPerCallMs(batches, 5, () => {
    refuse(hugeLength);
    refuse(continuation);
  });
}

export async function benchInProcess(o: InProcessBenchOptions): Promise<ScenarioResult> {
  const batches = o.quick ? 5 : 21;
  const validateUs = validateCost(batches) * 1000;
  const auditUs = auditRecordCost(batches) * 1000;
  const protobufMs = protobufHostileCost(batches);
  o.log(
    `in-process: validate ${round(validateUs, 2)} µs/call, audit record (stuck sink) ${round(auditUs, 2)} µs/entry, hostile protobuf pair ${round(protobufMs, 2)} ms`,
  );
  return {
    metrics: [
      { id: 'in-process.validate.us', label: 'CRD schema validate, small object', value: round(validateUs, 2), unit: 'µs' },
      { id: 'in-process.audit-record.us', label: 'audit record, sink stuck', value: round(auditUs, 2), unit: 'µs' },
      { id: 'in-process.protobuf-hostile.ms', label: 'refuse two hostile protobuf bodies', value: round(protobufMs, 2), unit: 'ms' },
    ],
    details: { batches, validateUsPerCall: round(validateUs, 3), auditUsPerRecord: round(auditUs, 3), protobufHostilePairMs: round(protobufMs, 3) },
  };
}
