// Hosted mode: one sharded coordinator for every hosted control plane of a HyperShift management cluster.
export * from './coordinator.js';
export * from './feature-gate-configmap.js';
export * from './guest-connection.js';
export * from './guest-provider.js';
export * from './guest-secrets.js';
export * from './guest-session.js';
export * from './held-shard.js';
export * from './metrics.js';
export * from './shards.js';
export * from './status-records.js';
export * from './memory-budget.js';
