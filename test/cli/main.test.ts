/**
 * The toolcell command line as a real process: help exits 0 without serving, a bad command line
 * exits 2 with the error and usage, `--config=FILE` reads the file, and what can be refused
 * (a bad config, a non-loopback bind without a token) is refused before any server is spawned.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { REPO_ROOT, scratchDir } from '../helpers/peers.ts';
import { USAGE } from '../../src/cli/args.ts';
import { demoScript } from '../../src/cli/demo-script.ts';
import { TIMELINE_LEGEND } from '../../src/cli/timeline.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

function toolcell(...args: string[]) {
  // stdin is closed at once: were serve mode to start, it would log that it serves, then end.
  return spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: REPO_ROOT, encoding: 'utf8', input: '', timeout: 60_000 });
}

/** A server whose spawning leaves a marker file: the proof that something was spawned. */
function markerServer(dir: string, id: string) {
  const marker = join(dir, `${id}.spawned`);
  return { marker, config: { id, command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`] } };
}

test('--help prints usage and exits 0 for toolcell, demo and serve; serve --help does not serve', () => {
  for (const args of [['--help'], ['demo', '--help'], ['serve', '--help'], ['serve', '-h', '--config', 'none.json']]) {
    const run = toolcell(...args);
    assert.equal(run.status, 0, `${args.join(' ')}: ${run.stderr}`);
    // Exactly the usage: nothing the demo prints, nothing serve mode logs.
    assert.equal(run.stdout, USAGE, args.join(' '));
    assert.doesNotMatch(run.stderr, /serving MCP/, `${args.join(' ')} started serving`);
  }
});

test('--help and a mistyped command line load the command line alone: no host, engine, serve or SDK module', () => {
  const child = join(REPO_ROOT, 'test', 'cli', 'fixtures', 'help-loads.ts');
  for (const args of [['--help'], ['serve', '--confg', 'x.json']]) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', child, ...args], { cwd: REPO_ROOT, encoding: 'utf8', input: '', timeout: 60_000 });
    const listed = /\nmodules:(\[.*\])\n/.exec(run.stderr);
    assert.ok(listed, `${args.join(' ')}: no module list in ${run.stderr}`);
    const urls = JSON.parse(listed[1]!) as string[];
    assert.ok(urls.some((u) => u.endsWith('/src/cli/args.ts')), 'the hook saw the command line load');
    assert.deepEqual(urls.filter((u) => /\/src\/(?!cli\/(?:main|args)\.ts$)|\/node_modules\//.test(u)), [], args.join(' '));
  }
});

test('an unknown flag or a missing value prints the error and usage, and exits 2', () => {
  const cases: [string[], RegExp][] = [
    [['serve', '--confg', 'x.json'], /Unknown option '--confg'/],
    [['serve', '--config'], /--config/],
    [['serve', '--http'], /--http/],
    [['serve', '--http', 'localhost'], /--http "localhost": expected \[HOST:\]PORT/],
    [['demo', '--pyhton'], /Unknown option '--pyhton'/],
  ];
  for (const [args, message] of cases) {
    const run = toolcell(...args);
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.match(run.stderr, /Usage: toolcell <command>/);
    assert.doesNotMatch(run.stderr, /serving MCP/);
  }
});

test('serve --config=FILE reads the file: its mistakes are reported by path and nothing is spawned', () => {
  const dir = scratchDir();
  const a = markerServer(dir, 'a');
  const configPath = join(dir, 'bad.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      servers: [a.config, { ...markerServer(dir, 'b').config, id: 'a' }, { ...markerServer(dir, 'c--d').config }],
      codeExecution: { maxTimeLimitMs: 'x', engine: 'spidermonkey' },
    }),
  );
  const run = toolcell('serve', `--config=${configPath}`);
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /codeExecution\.maxTimeLimitMs: expected a number ≥ 1000, got "x"/);
  assert.match(run.stderr, /codeExecution\.engine: expected one of "quickjs", "v8", got "spidermonkey"/);
  assert.match(run.stderr, /servers\[1\]\.id: "a" is already the id of servers\[0\]/);
  assert.match(run.stderr, /servers\[2\]\.id: "c--d" must not contain "--"/);
  assert.equal(existsSync(a.marker), false, 'a server was spawned despite the bad config');
});

test('serve --http off loopback without --token-file is refused before anything is spawned', () => {
  const dir = scratchDir();
  const a = markerServer(dir, 'a');
  const configPath = join(dir, 'ok.json');
  writeFileSync(configPath, JSON.stringify({ servers: [a.config], codeExecution: false }));
  const run = toolcell('serve', '--config', configPath, '--http', '0.0.0.0:0');
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /0\.0\.0\.0 is not a loopback address, so clients must authenticate: give --token-file FILE/);
  assert.equal(existsSync(a.marker), false);
  const empty = join(dir, 'empty-token');
  writeFileSync(empty, '\n', { mode: 0o600 });
  const emptyRun = toolcell('serve', '--config', configPath, '--http', '0.0.0.0:0', '--token-file', empty);
  assert.equal(emptyRun.status, 1);
  assert.match(emptyRun.stderr, /token file .*empty-token is empty/);
  assert.equal(existsSync(a.marker), false);
});

test('no arguments: says at once that it runs the demo, then prints the whole script and which clock each column is', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const [code] = (await once(child, 'close')) as [number | null];
  assert.equal(code, 0, stderr);
  const lines = stderr.split('\n');
  // The first thing written, before the demo module (and its host, engines and servers) loads:
  // it precedes the demo's own first progress line.
  assert.match(lines[0]!, /^toolcell: no command given, so running the demo: one scripted turn, no model and no API key \(toolcell --help lists the commands\)$/);
  assert.match(lines[1]!, /^toolcell: starting a fixture tool server/);
  assert.ok(lines.some((l) => /^toolcell: connected: work \(5 tools\), observers avatar and audit/.test(l)), stderr);
  // Every line of the script the model sent, none cut.
  const script = String(demoScript(false).code);
  for (const line of script.split('\n')) assert.ok(stdout.includes(`  | ${line}\n`), `the script line ${JSON.stringify(line)} is printed whole`);
  assert.match(stdout, /input \{"code":"<the script above, 13 lines>"/);
  assert.ok(stdout.includes(TIMELINE_LEGEND), 'the legend names both clocks');
  assert.match(stdout, /completed took \d+ ms/);
});

test('serve says which servers connected, which failed and why, and where it serves', () => {
  const dir = scratchDir();
  const configPath = join(dir, 'two.json');
  const peer = join(REPO_ROOT, 'fixtures', 'peer.mjs');
  writeFileSync(
    configPath,
    JSON.stringify({
      servers: [
        { id: 'files', command: process.execPath, args: [peer, join(REPO_ROOT, 'fixtures', 'readme', 'files.json')] },
        { id: 'broken', command: join(dir, 'no-such-server') },
      ],
      codeExecution: false,
    }),
  );
  // stdin is closed at once, so serve starts, reports, and ends.
  const run = toolcell('serve', '--config', configPath);
  assert.equal(run.status, 0, run.stderr);
  const messages = run.stderr.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { msg: string }).msg);
  assert.ok(messages.some((m) => /^server broken failed to start: .*no-such-server/.test(m)), `why broken failed:\n${messages.join('\n')}`);
  assert.ok(messages.includes('servers: files connected (1 tool); failed: broken (the error of each is logged above; serving without it)'), messages.join('\n'));
  assert.ok(messages.includes('toolcell serving MCP on stdio'), messages.join('\n'));
});
