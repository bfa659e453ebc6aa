// The demo module's public face: other modules and the processes import only what is listed here.
export { type DemoSeedResult, seedDemo } from './demo-seed.ts';
