'use strict';
const test = require('node:test');
const assert = require('node:assert');

test('adds', () => {
  assert.strictEqual(1 + 2, 3);
});

test('multiplies', () => {
  assert.strictEqual(2 * 2, 5, 'two times two');
});
