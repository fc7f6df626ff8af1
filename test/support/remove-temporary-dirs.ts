import { afterAll } from 'vitest';
import { removeTemporaryDirs } from './temporary-dirs.js';

// A setup file of every test file (vitest.config.ts), run again before each. Its hook is registered
// before the file's own, so it runs after them (vitest runs after-hooks in reverse): the processes a
// file started in its temporary folders are stopped before the folders go.
afterAll(removeTemporaryDirs);
