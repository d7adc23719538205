import { registerCodeExecution } from '../src/code-execution/index.ts';
import { noopHost } from './rig.ts';
for (const end of [false, true]) {
  const host = noopHost();
  const ce = registerCodeExecution(host, { languages: ['javascript', 'python'] });
  const total = end ? 12000 : 3000;
  for (let n = 1; n <= total; n++) {
    const id = `h${end}-${n}`;
    const stream = host.openStream(id);
    const inferenceId = stream.beginInference();
    for (const language of ['javascript', ...(n % 50 === 0 ? ['python'] : [])]) {
      const code = language === 'javascript' ? 'const r = await tools.noop({ i: 1 }); return r;' : 'r = await tools.noop({"i": 1})\nr';
      const t = performance.now();
      const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code, language, time_limit_ms: 5000 } });
      const summary = outcome.result.structuredContent as { ok?: boolean } | undefined;
      if (!summary?.ok) {
        const rt = (await ce.runners.javascript()) as any;
        const pool = rt.quickjs;
        console.log('FAIL', end, n, language, Math.round(performance.now() - t), JSON.stringify(outcome.result.structuredContent).slice(0, 300));
        console.log('  pool', JSON.stringify(pool.size), [...pool.hosts].map((h: any) => `pid ${h.process.pid} alive ${h.process.alive} load ${h.load} fin ${h.finishing} ready ${h.ready} listeners ${[...h.listeners.keys()]} cancelling ${[...h.cancelling.keys()]} slots ${h.slots}`).join(' | '));
      }
    }
    stream.end();
    if (end) await host.endConversation(id);
    if (n % 1000 === 0) console.log(end, n, new Date().toISOString());
  }
  await ce.close();
  await host.close();
}
