// Starts a bench:peers subject process: registers tsx's loader for this thread alone (its API,
// not `--import tsx`), then runs subject-main.ts. With `--import tsx` on the command line the
// flag is in process.execArgv, and a peer's own worker thread, created without execArgv as
// pi-codemode's is, inherits it and boots tsx too: its cold start and memory then included a
// loader no user of it runs.
import { register } from 'tsx/esm/api';

register();
await import('./subject-main.ts');
