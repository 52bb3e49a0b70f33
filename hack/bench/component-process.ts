// Runs sdk-component.ts as its own process (the stand-in component operator) and resolves with the one JSON
// line it prints: its memory 60 s after start and its idle CPU over the next 60 s (see that file).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type ComponentMode = 'baseline' | 'loaded' | 'accessor';

/** `watching`: the component first holds one client-node watch on another resource (sdk-component.ts). */
export function runComponent<T>(kubeconfigPath: string, mode: ComponentMode, nodeFlags: string[] = [], watching = false): Promise<T> {
  const script = join(dirname(fileURLToPath(import.meta.url)), 'sdk-component.js');
  const p = spawn(process.execPath, [...nodeFlags, script, kubeconfigPath, mode, ...(watching ? ['watching'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  p.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  return new Promise((resolve, reject) => p.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as T) : reject(new Error(`sdk-component ${mode} exited ${code}`)))));
}
