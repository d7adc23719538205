import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripFence } from '../../../../src/runtime/js/normalize/fence.ts';

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
