/** The script scan behind the up-front approval: which tools a script names, on which lines. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scanToolReferences } from '../../src/approvals/scan.ts';

const TOOLS = ['mail--send', 'mail--read', 'deploy', 'a-b', 'a_b'];

test('JavaScript: dotted aliases, quoted names, optional chaining, each with its lines', () => {
  const code = [
    'const r = await tools.mail__send({ to: 1 });', // 1
    "await tools['mail--read']();", // 2
    'await tools["mail--send"]({});', // 3
    'await tools?.deploy();', // 4
    'await tools . deploy ();await tools.deploy()', // 5: twice on one line, listed once
  ].join('\n');
  const found = scanToolReferences(code, 'javascript', TOOLS);
  assert.deepEqual(Object.fromEntries(found), { 'mail--send': [1, 3], 'mail--read': [2], deploy: [4, 5] });
});

test('JavaScript: a longer name or a member named tools is not the tools object; unknown names are left out', () => {
  const code = 'mytools.deploy(); x.tools.deploy(); tools.nothing(); tools[name]();';
  assert.deepEqual(scanToolReferences(code, 'javascript', TOOLS).size, 0);
});

test('an alias two tools share names neither, as in the runtimes; the exact name still counts', () => {
  const found = scanToolReferences('tools.a_b(); tools["a-b"]();', 'javascript', TOOLS);
  assert.deepEqual(Object.fromEntries(found), { a_b: [1], 'a-b': [1] });
});

test('Python: attribute, subscript and getattr forms', () => {
  const code = [
    'x = await tools.mail__send(to=1)', // 1
    "y = await tools['mail--read']()", // 2
    'f = getattr(tools, "deploy")', // 3
    '# tools.deploy mentioned in a comment still counts', // 4
  ].join('\n');
  const found = scanToolReferences(code, 'python', TOOLS);
  assert.deepEqual(Object.fromEntries(found), { 'mail--send': [1], 'mail--read': [2], deploy: [3, 4] });
});

test('a computed name is not seen (the just-in-time backstop covers it)', () => {
  const found = scanToolReferences('const n = "dep" + "loy"; await tools[n]();', 'javascript', TOOLS);
  assert.equal(found.size, 0);
});
