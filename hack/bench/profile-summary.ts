// V8 profiles summed for reading: a CPU profile (the inspector's Profiler) and a sampled allocation profile
// (HeapProfiler.startSampling), by file, by function (self) and by this project's functions with their callees — the
// same tables whether the profile came from this process (hosted-profile.ts) or a running one (live-profile.ts).

interface CallFrame { functionName: string; url: string; lineNumber: number }
export interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  samples?: number[];
  startTime: number;
  endTime: number;
}
export interface AllocationProfile { head: AllocNode }
interface AllocNode { callFrame: CallFrame; selfSize: number; children: AllocNode[] }

const keyOf = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
const fileOf = (f: CallFrame) => (f.url ? f.url.replace(/^.*node_modules\//, 'node_modules/').replace(/^file:\/\/.*\/(dist|\.cache\/bench-build)\//, '') : f.functionName);
/** This project's code, as built (dist/ for the CLI, .cache/bench-build for the benchmarks). */
const ours = (url: string) => /\/(dist|\.cache\/bench-build)\/(hosted|runtime|controllers|api-types|sdk|standalone)\//.test(url);
const top = (m: Map<string, number>, n: number, unit: string, scale: number) =>
  [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `  ${(v / scale).toFixed(0).padStart(6)} ${unit}  ${k}`).join('\n');
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);

/** A CPU profile's lines: time outside JavaScript, then by file, by function and this project's functions (inclusive). */
export function cpuProfileLines(profile: CpuProfile): string[] {
  const self = new Map<string, number>();
  const files = new Map<string, number>();
  const total = new Map<string, number>();
  const dt = (profile.endTime - profile.startTime) / (profile.samples?.length ?? 1) / 1000;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const outside = { '(idle)': 0, '(program)': 0 };
  for (const id of profile.samples ?? []) {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)' || f.functionName === '(program)') {
      outside[f.functionName] += dt;
      continue;
    }
    add(self, keyOf(f), dt);
    add(files, fileOf(f), dt);
    // Time with each of this project's functions on the stack (inclusive): which of its operations cost what.
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (ours(frame.url)) onStack.add(keyOf(frame));
    }
    for (const k of onStack) add(total, k, dt);
  }
  return [
    `outside JavaScript: (program) ${outside['(program)'].toFixed(0)} ms (native code V8 does not attribute: TLS, sockets, the profiler), (idle) ${outside['(idle)'].toFixed(0)} ms`,
    `by file (self time):\n${top(files, 12, 'ms', 1)}`,
    `by function (self time):\n${top(self, 20, 'ms', 1)}`,
    `this project's functions (total time, callees included):\n${top(total, 30, 'ms', 1)}`,
  ];
}

/** An allocation profile's bytes, and its lines by file, by function and this project's functions (inclusive). */
export function allocationProfileLines(profile: AllocationProfile): { bytes: number; lines: string[] } {
  const self = new Map<string, number>();
  const files = new Map<string, number>();
  const total = new Map<string, number>();
  let bytes = 0;
  const walk = (n: AllocNode, stack: Set<string>) => {
    const key = keyOf(n.callFrame);
    const here = ours(n.callFrame.url) && !stack.has(key) ? new Set([...stack, key]) : stack;
    if (n.selfSize > 0) {
      bytes += n.selfSize;
      add(self, key, n.selfSize);
      add(files, fileOf(n.callFrame), n.selfSize);
      for (const k of here) add(total, k, n.selfSize);
    }
    for (const c of n.children) walk(c, here);
  };
  walk(profile.head, new Set());
  return {
    bytes,
    lines: [
      `by file (KB allocated):\n${top(files, 12, 'KB', 1e3)}`,
      `by function (KB allocated):\n${top(self, 20, 'KB', 1e3)}`,
      `this project's functions (KB allocated, callees included):\n${top(total, 30, 'KB', 1e3)}`,
    ],
  };
}
