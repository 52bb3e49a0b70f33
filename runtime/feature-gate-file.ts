// A FeatureGate manifest from a file (YAML or JSON; `-` is stdin): decoded, every error naming the file (and
// line:column for YAML). For the commands that take one (render, preview, manifests).
import { readFileSync } from 'node:fs';
import { decodeFeatureGate, type FeatureGate } from '../api-types/index.js';
import { parseYaml } from './yaml.js';

export function readFeatureGateFile(file: string): FeatureGate {
  const source = file === '-' ? '<stdin>' : file;
  try {
    return decodeFeatureGate(parseYaml(readFileSync(file === '-' ? 0 : file, 'utf8'), source));
  } catch (e) {
    const message = (e as Error).message;
    throw new Error(`${message.startsWith(source) ? '' : `${source}: `}${message}`, { cause: e });
  }
}
