import { describe, expect, test } from 'vitest';

describe('math', () => {
  test('adds', () => {
    expect(1 + 2).toBe(3);
  });

  test('multiplies', () => {
    expect(2 * 2).toBe(5);
  });
});
