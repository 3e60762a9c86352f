/**
 * lazyModule loads a module on first use and shares the load: what a provider imports this way
 * (a cloud SDK of tens of MB) costs nothing until a Provider of that type is used. A load that
 * fails is tried again by the next caller.
 */
export function lazyModule<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
}
