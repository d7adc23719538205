/** What bench:peers prints: one table per run, then every target's verdict (pass/FAIL). */
import type { Figures, RunFigures, Verdict } from './figures.ts';

const cell = (v: unknown, width: number) => String(v ?? '—').padStart(width);

const COLUMNS: Array<[string, (f: Figures) => unknown, number]> = [
  ['cold ms (import)', (f) => (f.coldMs === undefined ? undefined : `${f.coldMs} (${f.importMs})`), 16],
  ['ret1 kept', (f) => f.return1KeptMs, 9],
  ['ret1 new', (f) => f.return1NewMs, 9],
  ['seq/s', (f) => f.seqPerSec, 7],
  ['par/s', (f) => f.parPerSec, 7],
  ['1MB ms (×floor)', (f) => (f.payloadMs === undefined ? undefined : `${f.payloadMs} (${f.payloadVsFloor})`), 16],
  ['cpu ms', (f) => f.cpuMs, 7],
  ['32conv/s', (f) => f.conc32PerSec, 8],
  ['RSS 1/32 (peak) MB', (f) => (f.rssOneMb === undefined ? undefined : `${f.rssOneMb}/${f.rss32Mb} (${f.rss32PeakMb})`), 20],
  ['seq CPU µs/call', (f) => `${f.seqOwnCpuUsPerCall ?? '—'}+${f.seqBelowCpuUsPerCall ?? '—'}`, 15],
  ['drop %', (f) => f.droppedPct, 6],
];

export function printRun(run: RunFigures): void {
  console.log(`\n${run.run} run (load ${run.loadBefore} → ${run.loadAfter}; JSON floor of the 1 MB ${run.floorMs} ms); median of the worse half of samples:`);
  console.log(`${'subject'.padEnd(27)}${COLUMNS.map(([h, , w]) => ` ${h.padStart(w)}`).join('')}`);
  for (const [name, f] of Object.entries(run.subjects)) console.log(`${name.padEnd(27)}${COLUMNS.map(([, get, w]) => ` ${cell(get(f), w)}`).join('')}`);
  console.log('seq CPU: the subject process + the processes below it (observers, sandbox processes); drop %: calls each observer missed.');
}

export function printVerdicts(verdicts: Verdict[], runs: string[]): void {
  console.log(`\ntargets (toolcell's public path ÷ a peer in the same run; the worse of ${runs.join(' and ')}):`);
  for (const v of verdicts) {
    const per = runs.map((r) => `${r} ${v.perRun[r] ?? 'MISSING'}`).join(', ');
    console.log(`  ${v.pass ? 'pass' : 'FAIL'}  ${v.target.padEnd(52)} worse ${String(v.worse ?? 'MISSING').padStart(6)}  (${per})`);
  }
  console.log(`${verdicts.filter((v) => v.pass).length} of ${verdicts.length} targets pass.`);
}
