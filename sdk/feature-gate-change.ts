// What a FeatureGateAccess hands its change handler (exitOnChange is the default one).
import type { FeatureGates } from './feature-gates.js';

export interface FeatureGateChange<Name extends string = string> {
  /** undefined on the first observation. */
  previous: FeatureGates<Name> | undefined;
  current: FeatureGates<Name>;
}

export type FeatureGateChangeHandler<Name extends string = string> = (change: FeatureGateChange<Name>) => void | Promise<void>;
