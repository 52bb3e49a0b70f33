// A FeatureGate manifest from a file (YAML or JSON; `-` is stdin): decoded, every error naming the file (and
// line:column for YAML). For the commands that take one (render, preview, manifests).
import { decodeFeatureGate, type FeatureGate } from '../../api-types/index.js';
import { readDecodedFile } from './manifest-file.js';

export const readFeatureGateFile = (file: string): FeatureGate => readDecodedFile(file, decodeFeatureGate);
