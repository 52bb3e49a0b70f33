// featuregate-coordinator/sdk: what component operators import — and the one way the operator's own
// controllers/ reach the SDK (the lint's rooms, README § Layout).
export {
  createFeatureGateAccess,
  featureGateAccessOverCaches,
  type FeatureGateCaches,
  gatesForVersion,
  findGatesForVersion,
  targetVersion,
  FeatureGatesNotObservedError,
  type FeatureGateAccess,
  type FeatureGateAccessOptions,
  type FeatureGateChange,
  type FeatureGateChangeHandler,
} from './feature-gate-access.js';
export { FeatureGates, UnknownFeatureGateError } from './feature-gates.js';
export { exitOnChange, type ExitOnChangeOptions } from './exit-on-change.js';
export { registerFeatureGateMetrics } from './feature-metrics.js';
export { staticFeatureGateAccess, featureGateAccessFromObject, testingFeatureGateAccess, type TestingFeatureGateAccess } from './static-access.js';
export { renderKubeAPIServerArgs, renderKubeletFeatureGates, parseFeatureGates, operandGates, type OperandFilter } from '../api-types/operand-render.js';
export { MISSING_VERSION_MARKER } from '../api-types/feature-set.js';
export type { GateLists, FeatureGate, FeatureGateDetails } from '../api-types/index.js';
export { createLogger, type Logger } from '../runtime/log/logger.js';
export { createEventRecorder, type EventRecorder } from '../runtime/events/events.js';
