// Kept for the tests that import it by this name: the helpers live in timing.ts.
export { eventually, sleep } from './timing.js';
