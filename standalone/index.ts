// Standalone mode: file-configured feature gates for a single node, with a one-way lock.
// (standalone/mirror.ts, which needs the Kubernetes client, is imported on its own.)
export * from './config.js';
export * from './files.js';
export * from './lock.js';
export * from './merge-patch.js';
export * from './prerun.js';
export * from './render.js';
export * from './validate.js';
export * from './version.js';
