/** Test doubles for code built on the managed reconciler. */
export { FakeExternal, fakeKind } from './fake-external.js';
export type { FakeCall, FakeExternalResource, FakeKindOptions } from './fake-external.js';
