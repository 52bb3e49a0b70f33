// RFC 7386 JSON Merge Patch: objects merge key by key, null deletes a key, anything else (lists
// included) replaces the target whole.
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const base: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target)
    ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete base[k];
    else base[k] = mergePatch(base[k], v);
  }
  return base;
}
