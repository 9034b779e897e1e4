/**
 * `p`, or the error from `onTimeout` once `ms` have passed, whichever comes first. One promise and one timer per call:
 * Promise.race plus finally costs three more promises, and this sits on the gateway's hot path (coalesced waits,
 * limiter decisions). A rejection that is not an Error is wrapped in one.
 */
export function withDeadline<T>(p: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
