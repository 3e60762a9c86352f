/**
 * The Terminating column of `kubectl get` for claims and concrete resources: how long ago the
 * object was asked to be deleted, empty (`<none>`) while it is not. An object stays listed
 * while its finalizers run (a claim while its resource is released, a concrete resource while
 * the external resource is deleted, or while another claim still uses it), and kubectl
 * otherwise shows nothing of it — as it shows `Terminating` for pods and namespaces.
 */
import type { CrdPrinterColumn } from '../schema/kind.js';

export const terminatingColumn: CrdPrinterColumn = {
  name: 'Terminating',
  type: 'date',
  jsonPath: '.metadata.deletionTimestamp',
  description: 'Since when the object is being deleted (it waits for its finalizers); <none> while it is not.',
};
