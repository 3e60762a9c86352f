/**
 * The state of one NATSServer (kept in server.json) and the nats-server configuration
 * rendered from it: Conductor's own account and user (for health checks, and so the server
 * never runs without authentication), then one account per claim with one user allowed to
 * publish and subscribe only under the claim's subject prefix (and reply inboxes).
 */
import { randomBytes } from 'node:crypto';
import { natsInteger, natsSecret, natsToken } from '../config-formats/index.js';

/** A NatsClaimAccount is one claim's account on the server. */
export interface NatsClaimAccount {
  claim: { namespace: string; name: string; uid?: string };
  username: string;
  password: string;
  /** The subject prefix: the claim may use `<subject>` and `<subject>.>`. */
  subject: string;
}

/** NatsServerState is everything a NATSServer's configuration is made from. */
export interface NatsServerState {
  namespace: string;
  name: string;
  port: number;
  /** The password of Conductor's own user `conductor` in account `CONDUCTOR`. */
  adminPassword: string;
  /** Claim accounts by account name. */
  accounts: Record<string, NatsClaimAccount>;
  createdAt: string;
}

/** NatsSettings are the server settings taken from the resource's spec. */
export interface NatsSettings {
  maxPayload?: number;
}

/** The account and user Conductor itself logs in with. */
export const adminAccount = 'CONDUCTOR';
export const adminUser = 'conductor';

/** generateNatsPassword makes a random password that needs no escaping. */
export function generateNatsPassword(): string {
  return randomBytes(24).toString('base64url');
}

/** claimPermissions are what a claim's user may publish and subscribe to. */
export function claimPermissions(subject: string): { publish: { allow: string[] }; subscribe: { allow: string[] } } {
  const allow = [subject, `${subject}.>`, '_INBOX.>'];
  return { publish: { allow }, subscribe: { allow: [...allow] } };
}

/**
 * renderNatsConfig renders the configuration as JSON (which nats-server's configuration
 * format accepts), so strings are escaped by JSON.stringify; names, subjects, passwords and
 * numbers are checked by type first (config-formats/nats-conf) and a bad one throws.
 */
export function renderNatsConfig(state: NatsServerState, settings: NatsSettings = {}): string {
  const accounts: Record<string, unknown> = {
    [adminAccount]: { users: [{ user: adminUser, password: natsSecret(state.adminPassword, 'the admin password') }] },
  };
  for (const name of Object.keys(state.accounts).sort()) {
    const account = state.accounts[name];
    accounts[natsToken(name, 'account')] = {
      users: [
        {
          user: natsToken(account.username, 'user'),
          password: natsSecret(account.password, `the password of ${name}`),
          permissions: claimPermissions(natsToken(account.subject, 'subject prefix')),
        },
      ],
    };
  }
  const config = {
    listen: `127.0.0.1:${natsInteger(state.port, 1, 65535, 'port')}`,
    max_payload: natsInteger(settings.maxPayload ?? 1024 * 1024, 1, 64 * 1024 * 1024, 'max_payload'),
    accounts,
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
