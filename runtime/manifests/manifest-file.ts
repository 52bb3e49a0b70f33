// A manifest from a file (YAML or JSON; `-` is stdin) through a decoder of untrusted objects, every error naming the
// file (and line:column for YAML): the FeatureGate manifests of render, preview and preflight, the KubeletConfiguration
// of preflight --kubelet-config.
import { readFileSync } from 'node:fs';
import { decodeKubeletConfiguration, type KubeletConfiguration } from '../../api-types/index.js';
import { parseYaml } from '../util/yaml.js';

export function readDecodedFile<T>(file: string, decode: (v: unknown) => T): T {
  const source = file === '-' ? '<stdin>' : file;
  try {
    return decode(parseYaml(readFileSync(file === '-' ? 0 : file, 'utf8'), source));
  } catch (e) {
    const message = (e as Error).message;
    throw new Error(`${message.startsWith(source) ? '' : `${source}: `}${message}`, { cause: e });
  }
}

/** A KubeletConfiguration (kubelet.config.k8s.io/v1beta1) file, as MicroShift and OpenShift's machine-config render it. */
export const readKubeletConfigFile = (file: string): KubeletConfiguration => readDecodedFile(file, (v) => decodeKubeletConfiguration(v));
