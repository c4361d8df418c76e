// vitest setup file: loads the engine the project runs on, so Simulators can create its states synchronously.
import { defaultEngineName, loadEngine } from '../../src/engine/index.ts';

await loadEngine(defaultEngineName());
