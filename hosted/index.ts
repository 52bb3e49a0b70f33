// Hosted mode: one sharded coordinator for every hosted control plane of a HyperShift management cluster.
export * from './coordinator.js';
export * from './guest-connection.js';
export * from './guest-secrets.js';
export * from './guest-session.js';
export * from './metrics.js';
export * from './shards.js';
export * from './status-records.js';
