/**
 * What a rebind policy asks of a provider when a claim lets go of its share of a resource:
 * nothing (Retain), empty it for the next claim (Recycle), or remove it (Delete).
 */
import type { RebindPolicy } from './spi.js';

/** The provider's two ways of releasing a claim's share; Retain needs none. */
export interface ReleaseActions {
  recycle(): Promise<unknown> | void;
  delete(): Promise<unknown> | void;
}

/** releaseShare runs the action `policy` names; a policy outside the three is an error. */
export async function releaseShare(policy: RebindPolicy, actions: ReleaseActions): Promise<void> {
  switch (policy) {
    case 'Retain':
      return;
    case 'Recycle':
      await actions.recycle();
      return;
    case 'Delete':
      await actions.delete();
      return;
    default: {
      const unknown: never = policy;
      throw new Error(`rebind policy "${String(unknown)}" is not supported: want Retain, Delete or Recycle`);
    }
  }
}
