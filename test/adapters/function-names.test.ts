/** distinctFunctionNames: the Agents SDK's naming rule, with every host tool keeping a callable name. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { distinctFunctionNames, sdkFunctionName } from '../../src/adapters/function-names.ts';

test('names follow the SDK rule: every character other than a letter or digit becomes _', () => {
  assert.equal(sdkFunctionName('srv--lookup'), 'srv__lookup');
  assert.equal(sdkFunctionName('code_execution'), 'code_execution');
  assert.equal(sdkFunctionName('a.b c'), 'a_b_c');
});

test('names that meet under the rule get numeric suffixes that take no other tool\'s name', () => {
  assert.deepEqual(distinctFunctionNames(['a-b', 'a_b', 'c']), ['a_b', 'a_b_2', 'c']);
  assert.deepEqual(distinctFunctionNames(['a-b', 'a_b', 'a_b_2']), ['a_b', 'a_b_3', 'a_b_2']);
  assert.deepEqual(distinctFunctionNames(['a.b', 'a-b', 'a_b']), ['a_b', 'a_b_2', 'a_b_3']);
  const many = distinctFunctionNames(['x-1', 'x_1', 'x.1', 'x_1_2', 'x 1']);
  assert.equal(new Set(many).size, many.length);
});
