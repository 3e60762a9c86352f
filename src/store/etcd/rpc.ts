/**
 * etcd's v3 gRPC API as this store uses it: the message shapes (see etcd-rpc.proto) and the
 * service client constructors, loaded once from the .proto file.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

export interface ResponseHeader {
  revision: number;
}

export interface RpcKeyValue {
  key: Buffer;
  create_revision: number;
  mod_revision: number;
  version: number;
  value: Buffer;
}

export interface RangeRequest {
  key: Buffer;
  range_end?: Buffer;
  limit?: number;
  revision?: number;
  /** Keys and revisions without values. */
  keys_only?: boolean;
  count_only?: boolean;
}

export interface RangeResponse {
  header: ResponseHeader | null;
  kvs: RpcKeyValue[];
  more: boolean;
  count: number;
}

export interface PutRequest {
  key: Buffer;
  value: Buffer;
  prev_kv?: boolean;
}

export interface DeleteRangeRequest {
  key: Buffer;
  prev_kv?: boolean;
}

export interface DeleteRangeResponse {
  header: ResponseHeader | null;
  deleted: number;
  prev_kvs: RpcKeyValue[];
}

export type RequestOp = { request_range: RangeRequest } | { request_put: PutRequest } | { request_delete_range: DeleteRangeRequest };

export interface ResponseOp {
  response_range?: RangeResponse | null;
  response_put?: { header: ResponseHeader | null } | null;
  response_delete_range?: DeleteRangeResponse | null;
}

/** Compare.result values. */
export const CompareResult = { equal: 0, greater: 1, less: 2, notEqual: 3 } as const;
/** Compare.target values. */
export const CompareTarget = { version: 0, createRevision: 1, modRevision: 2 } as const;

export interface Compare {
  result: number;
  target: number;
  key: Buffer;
  version?: number;
  create_revision?: number;
  mod_revision?: number;
}

export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure: RequestOp[];
}

export interface TxnResponse {
  header: ResponseHeader | null;
  succeeded: boolean;
  responses: ResponseOp[];
}

export interface CompactionRequest {
  revision: number;
  physical: boolean;
}

export interface CompactionResponse {
  header: ResponseHeader | null;
}

export type WatchRequest =
  { create_request: { key: Buffer; range_end: Buffer; start_revision: number; prev_kv: boolean } } | { cancel_request: { watch_id: number } };

/** Event.type values. */
export const EventType = { put: 0, delete: 1 } as const;

export interface RpcEvent {
  type: number;
  kv: RpcKeyValue | null;
  prev_kv: RpcKeyValue | null;
}

export interface WatchResponse {
  header: ResponseHeader | null;
  watch_id: number;
  created: boolean;
  canceled: boolean;
  compact_revision: number;
  cancel_reason: string;
  events: RpcEvent[];
}

export type StatusRequest = Record<string, never>;

export interface StatusResponse {
  header: ResponseHeader | null;
  version: string;
  dbSize: number;
  dbSizeInUse: number;
}

type Unary<Req, Res> = (request: Req, options: grpc.CallOptions, callback: (err: grpc.ServiceError | null, response?: Res) => void) => grpc.ClientUnaryCall;

/** The KV service's client (etcdserverpb.KV). */
export interface KvClient extends grpc.Client {
  Range: Unary<RangeRequest, RangeResponse>;
  Txn: Unary<TxnRequest, TxnResponse>;
  Compact: Unary<CompactionRequest, CompactionResponse>;
}

/** The Watch service's client (etcdserverpb.Watch). */
export interface WatchClient extends grpc.Client {
  Watch(options?: grpc.CallOptions): grpc.ClientDuplexStream<WatchRequest, WatchResponse>;
}

/** The Maintenance service's client (etcdserverpb.Maintenance): only Status. */
export interface MaintenanceClient extends grpc.Client {
  Status: Unary<StatusRequest, StatusResponse>;
}

type ClientConstructor<T> = new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions) => T;

export interface EtcdServices {
  KV: ClientConstructor<KvClient>;
  Watch: ClientConstructor<WatchClient>;
  Maintenance: ClientConstructor<MaintenanceClient>;
}

/** A unary method's path and message codec, for calls made without grpc-js (`unary-session.ts`). */
export interface UnaryMethodDefinition {
  path: string;
  serialize: (request: never) => Buffer;
  deserialize: (bytes: Buffer) => unknown;
}

/** The unary methods called without grpc-js: KV's and Maintenance's. */
export interface EtcdUnaryMethods {
  Range: UnaryMethodDefinition;
  Txn: UnaryMethodDefinition;
  Compact: UnaryMethodDefinition;
  Status: UnaryMethodDefinition;
}

const protoFile = 'etcd-rpc.proto';
let services: EtcdServices | undefined;
let unaryMethods: EtcdUnaryMethods | undefined;

/** etcdServices loads etcd-rpc.proto on first use and returns the service client constructors. */
export function etcdServices(): EtcdServices {
  if (!services) load();
  return services!;
}

/** etcdUnaryMethods returns the unary methods' paths and codecs (the same as the service clients use). */
export function etcdUnaryMethods(): EtcdUnaryMethods {
  if (!unaryMethods) load();
  return unaryMethods!;
}

function load(): void {
  const definition = protoLoader.loadSync(findProtoFile(), { keepCase: true, longs: Number, enums: Number, defaults: true, oneofs: true });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as { etcdserverpb: EtcdServices };
  services = loaded.etcdserverpb;
  const method = (service: string, name: string): UnaryMethodDefinition => {
    const m = (definition[`etcdserverpb.${service}`] as protoLoader.ServiceDefinition)[name];
    return { path: m.path, serialize: m.requestSerialize, deserialize: m.responseDeserialize };
  };
  unaryMethods = { Range: method('KV', 'Range'), Txn: method('KV', 'Txn'), Compact: method('KV', 'Compact'), Status: method('Maintenance', 'Status') };
}

/**
 * findProtoFile finds etcd-rpc.proto: beside this module when it runs from src/ (tsx), or in
 * the source tree above dist/ when it runs compiled (tsc does not copy .proto files).
 */
function findProtoFile(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = join(here, protoFile);
  if (existsSync(beside)) return beside;
  for (let dir = here; ; dir = dirname(dir)) {
    const candidate = join(dir, 'src', 'store', 'etcd', protoFile);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) break;
  }
  throw new Error(`cannot find ${protoFile} (looked beside ${here} and in src/store/etcd/ above it): the installation is incomplete`);
}
