// Node's `http` module, loaded with require(). An ESM import of 'node:http' builds the module namespace,
// which reads every export — including the lazy WebSocket, CloseEvent and MessageEvent getters that load
// Node's bundled undici: start time and RSS for nothing we use (measured in docs/benchmarks.md).
import { createRequire } from 'node:module';

export const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');
