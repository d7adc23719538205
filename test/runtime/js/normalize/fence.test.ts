import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripFence, stripProse } from '../../../../src/runtime/js/normalize/fence.ts';

const cases: Array<[string, string, 'javascript' | 'python', string | undefined]> = [
  ['```js', '```js\nreturn 1\n```', 'javascript', '\nreturn 1'],
  ['```ts', '```ts\nconst a: number = 1\nreturn a\n```\n', 'javascript', '\nconst a: number = 1\nreturn a'],
  ['```javascript', '```javascript\nreturn 1\n```', 'javascript', '\nreturn 1'],
  ['```typescript', '```typescript\nreturn 1\n```', 'javascript', '\nreturn 1'],
  ['bare', '```\nreturn 1\n```', 'javascript', '\nreturn 1'],
  ['```python', '```python\n1 + 1\n```', 'python', '\n1 + 1'],
  ['```py', '```py\n1 + 1\n```', 'python', '\n1 + 1'],
  ['python tag on js', '```python\nreturn 1\n```', 'javascript', undefined],
  ['no fence', 'return 1', 'javascript', undefined],
  ['two blocks', '```js\na\n```\ntext\n```js\nb\n```', 'javascript', undefined],
];

for (const [name, code, language, expected] of cases) {
  test(`stripFence: ${name}`, () => {
    assert.equal(stripFence(code, language), expected);
  });
}

test('stripFence keeps line numbers: the fence line becomes empty', () => {
  const out = stripFence('```ts\nline2\nline3\n```', 'javascript')!;
  assert.equal(out.split('\n')[2], 'line3');
});

test('stripFence: indented fences, blank lines around, CRLF, a longer closing fence', () => {
  assert.equal(stripFence('\n\n  ```ts  \r\nreturn 1\r\n  ````  \r\n\n', 'javascript'), '\n\n\nreturn 1');
  assert.equal(stripFence('~~~python\n1\n~~~', 'python'), '\n1');
  assert.equal(stripFence('````js\n1\n```', 'javascript'), undefined, 'a shorter closing fence does not close');
  assert.equal(stripFence('```js\n1\n~~~', 'javascript'), undefined, 'nor one of the other marker');
  assert.equal(stripFence('```js foo\n1\n```', 'javascript'), undefined, 'an opening line with more than a tag');
});

const PROSE: Array<[string, string, string | undefined]> = [
  ['prose before and after a ```typescript fence', 'Here is the script:\n\n```typescript\nconst n: number = 1;\nreturn n;\n```\n\nIt returns one.', '\n\n\nconst n: number = 1;\nreturn n;'],
  ['prose before a bare fence', 'Sure!\n```\nreturn 1\n```', '\n\nreturn 1'],
  ['prose after only', '```js\nreturn 1\n```\nDone.', '\nreturn 1'],
  ['two blocks', 'A\n```js\n1\n```\nB\n```js\n2\n```', undefined],
  ['a python block under javascript', 'A\n```python\n1\n```\nB', undefined],
  ['no closing fence', 'A\n```js\n1\n', undefined],
  ['no fence at all', 'return 1', undefined],
];
for (const [name, code, expected] of PROSE) {
  test(`stripProse: ${name}`, () => {
    assert.equal(stripProse(code, 'javascript'), expected);
  });
}

/** CPU milliseconds `fn` takes, the least of three tries (CPU time, not wall clock: a busy machine does not inflate it much). */
function cpuMs(fn: () => void): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

// Inputs shaped against the old expressions: long runs of spaces where a closing or opening
// fence expression could split them many ways, many fence-like lines, many blank lines.
const ADVERSARIAL: Record<string, (n: number) => string> = {
  'spaces after a closing marker': (n) => '```js\n\n```' + ' '.repeat(n) + 'x',
  'spaces after an opening marker': (n) => '```js' + ' '.repeat(n) + '!\n```',
  'tabs and spaces after fence-like lines': (n) => '```js\n' + ('\n```' + ' \t'.repeat(8)).repeat(n / 20) + 'x',
  'fence-like lines': (n) => '```js\n' + '\n````'.repeat(n / 5) + 'x',
  'blank lines': (n) => '```js\n' + '\n \r'.repeat(n / 3) + 'x',
  'prose lines and spaces': (n) => 'a\n```js\n' + ' '.repeat(n) + '\n```' + ' '.repeat(n) + 'b',
};

for (const [name, make] of Object.entries(ADVERSARIAL)) {
  test(`stripFence and stripProse take time linear in the script's size: ${name}`, () => {
    const small = make(16 * 1024);
    const large = make(128 * 1024);
    const run = (code: string) => () => {
      stripFence(code, 'javascript');
      stripProse(code, 'javascript');
    };
    const a = cpuMs(run(small));
    const b = cpuMs(run(large));
    // 8× the input: linear work takes ~8× (a floor of 1 ms absorbs timer grain); quadratic ~64×.
    assert.ok(b <= 24 * Math.max(a, 1), `${name}: 16 KiB took ${a.toFixed(2)} ms of CPU, 128 KiB ${b.toFixed(2)} ms`);
  });
}
