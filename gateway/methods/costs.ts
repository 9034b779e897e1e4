/**
 * Looks up a method's cost in a cost table whose keys are exact method names or `prefix_*` patterns; exact names win.
 */
export function methodCost(method: string, costs: Readonly<Record<string, number>>, defaultCost: number): number {
  const exact = costs[method];
  if (exact !== undefined) return exact;
  const us = method.indexOf('_');
  if (us > 0) {
    const pattern = costs[`${method.slice(0, us)}_*`];
    if (pattern !== undefined) return pattern;
  }
  return defaultCost;
}

/** True when `method` matches one of `patterns` (exact names or `prefix_*`). */
export function methodMatches(method: string, patterns: readonly string[]): boolean {
  for (const p of patterns) {
    if (p === method) return true;
    if (p.endsWith('*') && method.startsWith(p.slice(0, -1))) return true;
  }
  return false;
}
