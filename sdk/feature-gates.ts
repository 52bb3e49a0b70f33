// FeatureGates: an immutable set of gate states for one payload version.
import { compareNames } from '../api-types/feature-set.js';

export class UnknownFeatureGateError extends Error {
  override name = 'UnknownFeatureGateError';
}

export class FeatureGates<Name extends string = string> {
  /** Byte-sorted, no duplicates. */
  readonly enabledNames: readonly Name[];
  readonly disabledNames: readonly Name[];
  private readonly state: ReadonlyMap<string, boolean>;

  constructor(enabled: Iterable<NoInfer<Name>>, disabled: Iterable<NoInfer<Name>>) {
    const on = [...new Set(enabled)].sort(compareNames);
    const onSet = new Set<string>(on);
    // As upstream: a name in both lists is enabled.
    const off = [...new Set(disabled)].filter((n) => !onSet.has(n)).sort(compareNames);
    this.enabledNames = Object.freeze(on);
    this.disabledNames = Object.freeze(off);
    const state = new Map<string, boolean>();
    for (const n of off) state.set(n, false);
    for (const n of on) state.set(n, true);
    this.state = state;
    Object.freeze(this);
  }

  /** Whether `name` is enabled; throws for a name in neither list (a typo, or a gate this cluster lacks). */
  enabled(name: Name): boolean {
    const v = this.state.get(name);
    if (v === undefined) {
      throw new UnknownFeatureGateError(`feature ${JSON.stringify(name)} is not registered in FeatureGates [${this.known().join(' ')}]`);
    }
    return v;
  }

  has(name: string): name is Name {
    return this.state.has(name);
  }

  /** Every known name: the enabled ones, then the disabled ones. */
  known(): Name[] {
    return [...this.enabledNames, ...this.disabledNames];
  }

  /** Same gates in the same states (order never matters). */
  equals(other: FeatureGates<string> | undefined): boolean {
    if (!other) return false;
    return this.enabledNames.length === other.enabledNames.length && this.disabledNames.length === other.disabledNames.length &&
      this.enabledNames.every((n, i) => n === other.enabledNames[i]) && this.disabledNames.every((n, i) => n === other.disabledNames[i]);
  }

  toJSON(): { enabled: Name[]; disabled: Name[] } {
    return { enabled: [...this.enabledNames], disabled: [...this.disabledNames] };
  }
}
