/** Test doubles for code that uses the Client interface. */
export { FakeClient, mergePatch, selectorMatcher } from './fake-client.js';
export type { FakeAction, FakeClientOptions } from './fake-client.js';
