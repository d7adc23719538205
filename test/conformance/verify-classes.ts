/** toolcell's own checker for RFC-008 stage observations. */
import assert from 'node:assert/strict';
import type { ClassVector } from './class-adapter.ts';

export function verifyClassStage(vector: ClassVector, index: number, seen: any): void {
  const stage = vector.stages[index]!;
  const at = `${vector.id} stage ${index + 1}`;
  assert.deepEqual(seen.descriptor.class, stage.expect.classes, `${at}: listed class`);
  assert.deepEqual(seen.effective, { classes: stage.expect.classes, source: stage.expect.source }, `${at}: effective class and source`);
  assert.equal(seen.model.name, stage.modelName, `${at}: model-facing name`);
  assert.equal(seen.model.description, stage.tool.description, `${at}: description unchanged`);
  assert.equal(JSON.stringify(seen.model.inputSchema), JSON.stringify(stage.tool.inputSchema), `${at}: schema unchanged`);
  assert.ok(seen.opening, `${at}: the call was reported`);
  assert.equal(seen.opening.phase, 'started', `${at}: phase`);
  assert.deepEqual(seen.opening.class, stage.expect.classes, `${at}: reported class`);
  if (stage.expect.input === 'sent') {
    assert.deepEqual(seen.opening.input, vector.input, `${at}: input sent`);
    assert.ok(!Object.hasOwn(seen.opening, 'inputWithheld'), `${at}: not withheld`);
  } else {
    assert.ok(!Object.hasOwn(seen.opening, 'input'), `${at}: input absent`);
    assert.equal(seen.opening.inputWithheld, true, `${at}: inputWithheld`);
  }
  if (index > 0 && vector.origin === 'server') assert.ok(seen.listedRevisions.includes(index), `${at}: provider served the re-list`);
}
