// Loaded by `node --import` before a TypeScript entry point of this project. Node runs TypeScript
// itself (it erases the types: tsconfig.json's `erasableSyntaxOnly` keeps the code to what it can
// erase), but the sources import each other by the names their compiled files will have
// (`./outbox.js`, as tsc's NodeNext wants): this hook finds `./outbox.ts` for them. The source is
// tried first, so the compiled files `npm run build` leaves beside the sources are never loaded
// by mistake. Node's own loader instead of tsx: about 1 s of CPU less at each process's start.
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (/^\.{1,2}\/.*\.js$/.test(specifier) && context.parentURL?.endsWith('.ts')) {
      try {
        return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
      } catch (error) {
        if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
      }
    }
    return nextResolve(specifier, context);
  },
});
