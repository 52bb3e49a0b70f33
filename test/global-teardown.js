export default async function globalTeardown() {
  for (const plane of globalThis.__FGC_PLANES__ ?? []) await plane.stop();
}
