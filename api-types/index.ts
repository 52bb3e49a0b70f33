// featuregate-coordinator/api-types: the pure functional core (no I/O, no client, no clock).
export * from './feature-set.js';
export * from './wire.js';
export * from './decode.js';
export * from './payload-version.js';
export * from './gate-lists.js';
export * from './registry.js';
export * from './resolve.js';
export * from './desired-status.js';
export * from './conditions.js';
export * from './render.js';
export * from './status-size.js';
export * from './deep-equal.js';
export * from './operand-render.js';
export * from './suggest.js';
export * from './gate-report.js';
export * from './admission-params.js';
export * from './gate-names-module.js';
