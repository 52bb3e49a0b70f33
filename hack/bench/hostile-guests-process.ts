// Hostile guest API servers (test/support/hostile-guests.ts) in a process of their own, so that a benchmark
// measuring the coordinator in its own process does not count their CPU or memory: prints one JSON line
// (the kubeconfig of each, in the order of the kinds given) and serves until stdin closes.
//   node hostile-guests-process.js KIND [KIND …]
import { HOSTILE_KINDS, startHostileGuest, type HostileKind } from '../../test/support/hostile-guests.js';

const kinds = process.argv.slice(2) as HostileKind[];
for (const k of kinds) if (!HOSTILE_KINDS.includes(k)) throw new Error(`unknown hostile kind ${k}; one of ${HOSTILE_KINDS.join(', ')}`);
const servers = await Promise.all(kinds.map((k) => startHostileGuest(k)));
process.stdout.write(`${JSON.stringify(servers.map((s) => s.kubeconfig()))}\n`);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
