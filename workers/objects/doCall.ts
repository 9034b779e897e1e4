import type { DurableObjectNamespace } from '../types.ts';

/** A Durable Object answered with a non-2xx status (the caller's fail mode decides what that means). */
export class DurableObjectCallError extends Error {
  constructor(
    readonly path: string,
    readonly status: number,
  ) {
    super(`durable object ${path} answered ${status}`);
    this.name = 'DurableObjectCallError';
  }
}

/** POSTs a JSON body to the object named `name` at `path` and returns its JSON answer. */
export async function callObject<T>(ns: DurableObjectNamespace, name: string, path: string, body: unknown): Promise<T> {
  const res = await ns.get(ns.idFromName(name)).fetch(`https://do.internal${path}`, { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new DurableObjectCallError(path, res.status);
  return (await res.json()) as T;
}

/** Parses a Durable Object request's JSON body and path. */
export async function readCall<T>(request: Request): Promise<{ path: string; body: T }> {
  return { path: new URL(request.url).pathname, body: (await request.json()) as T };
}
