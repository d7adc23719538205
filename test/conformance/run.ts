/**
 * `npm run conformance`: plays every frozen MCPL vector through toolcell's adapters and
 * checks the observations with toolcell's own checkers. Prints one line per case and the
 * three summary lines; exits non-zero on any failure.
 *
 *   --only 20,21     RFC-007 cases to run (the parser and class suites still run in full)
 *   --report FILE    write the per-case evidence as JSON
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadHost as loadLifecycleHost, type LifecycleVector } from './mcpl-adapter.ts';
import { loadHost as loadClassHost, type ClassVector } from './class-adapter.ts';
import { verifyLifecycle } from './verify-lifecycle.ts';
import { verifyClassStage } from './verify-classes.ts';
import { conformanceDir, readVectors } from './shared.ts';

const { values } = parseArgs({ options: { only: { type: 'string' }, report: { type: 'string' } } });
const only = values.only ? new Set(values.only.split(',').map(Number)) : undefined;
const report: Record<string, unknown> = { vectors: conformanceDir() };
let failed = false;

// RFC-007 behaviour
const lifecycle = readVectors<{ profile: string; vectors: LifecycleVector[] }>('tool-lifecycle-vectors.json');
if (lifecycle.profile !== 'rfc-007-revision-3') throw new Error(`unexpected lifecycle profile ${lifecycle.profile}`);
const host = await loadLifecycleHost();
console.log(`Host evidence: ${JSON.stringify(host.info)}`);
const summary = { pass: 0, fail: 0, 'not-applicable': 0 };
const cases: unknown[] = [];
for (const vector of lifecycle.vectors) {
  if (only && !only.has(vector.rfcVector)) continue;
  const requires = vector.requires as string | undefined;
  if (requires && !(host.info.capabilities as Record<string, boolean>)[requires]) {
    summary['not-applicable'] += 1;
    cases.push({ id: vector.id, status: 'not-applicable', reason: `host capability absent: ${requires}` });
    console.log(`NOT APPLICABLE ${vector.id} ${vector.title} (needs ${requires})`);
    continue;
  }
  const started = Date.now();
  try {
    const seen = await host.observe(vector);
    const { notes } = verifyLifecycle(vector, seen, host.info.inputBound);
    summary.pass += 1;
    cases.push({ id: vector.id, status: 'pass', notes, evidence: seen });
    console.log(`PASS ${vector.id} ${vector.title} (${Date.now() - started} ms)${notes.length ? ` [${notes.join('; ')}]` : ''}`);
  } catch (error) {
    summary.fail += 1;
    failed = true;
    cases.push({ id: vector.id, status: 'fail', error: (error as Error).stack });
    console.log(`FAIL ${vector.id} ${vector.title}\n${(error as Error).stack}`);
  }
}
report.lifecycle = { summary, cases };

// tools/observe parser against the §13 schema
const parser = readVectors<{ cases: { id: string; params?: unknown; valid: boolean }[] }>('tools-observe-parser-vectors.json');
let agree = 0;
const disagreements: string[] = [];
for (const c of parser.cases) {
  const params = Object.hasOwn(c, 'params') ? c.params : undefined;
  if (host.parse(params).ok === c.valid) agree += 1;
  else disagreements.push(c.id);
}
if (disagreements.length) {
  failed = true;
  console.log(`parser disagreements: ${disagreements.join(', ')}`);
}
report.parser = { agree, total: parser.cases.length, disagreements };

// RFC-008 classes
const classes = readVectors<{ profile: string; vectors: ClassVector[] }>('tool-class-vectors.json');
const classHost = await loadClassHost();
let classCases = 0;
let stagesPassed = 0;
let stagesTotal = 0;
for (const vector of classes.vectors) {
  stagesTotal += vector.stages.length;
  try {
    const seen = await classHost.observe(vector);
    let ok = 0;
    for (let i = 0; i < vector.stages.length; i++) {
      verifyClassStage(vector, i, seen[i]);
      ok += 1;
      stagesPassed += 1;
    }
    classCases += ok === vector.stages.length ? 1 : 0;
    console.log(`PASS ${vector.id} (${vector.stages.length} stage(s))`);
  } catch (error) {
    failed = true;
    console.log(`FAIL ${vector.id}\n${(error as Error).stack}`);
  }
}
report.classes = { cases: classCases, total: classes.vectors.length, stagesPassed, stagesTotal };

console.log(`RFC-007 behavioral result: ${JSON.stringify(summary)}${only ? ' (selected cases)' : ''}`);
console.log(`tools/observe parser: ${agree}/${parser.cases.length} agree with the schema`);
console.log(`RFC-008 classes: ${classCases}/${classes.vectors.length} cases (${stagesPassed}/${stagesTotal} stages)`);
if (values.report) writeFileSync(values.report, JSON.stringify(report, null, 2) + '\n');
process.exitCode = failed ? 1 : 0;
