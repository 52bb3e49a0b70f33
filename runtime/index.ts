// runtime: I/O plumbing, written once and shared by the operator, the SDK and standalone mode.
export * from './api-errors.js';
export * from './backoff.js';
export * from './events.js';
export * from './http-server.js';
export * from './kube-config.js';
export * from './leader-election.js';
export * from './logger.js';
export * from './metrics.js';
export * from './payload-manifests.js';
export * from './reflector.js';
export * from './resource-client.js';
export * from './resources.js';
export * from './work-queue.js';
