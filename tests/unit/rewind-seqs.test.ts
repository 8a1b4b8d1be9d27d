// The timeline gives the rewind order once (issue 27); each row's rewind list is derived from it by
// rewindSeqsOf, the same way in the renderer, the CLI and the tests' comparison with the old answer.
import { describe, expect, it } from 'vitest';
import { rewindSeqsOf } from '../../shared/domain/undo';

const row = (seq: number, count: number) => ({ action: { seq }, rewind: { count } });

describe('a row’s rewind list from the timeline’s rewind order', () => {
  it('is the order’s first seqs when the order is newest first', () => {
    const order = [5, 4, 3, 1]; // 2 undone
    expect(rewindSeqsOf(order, row(5, 1))).toEqual([5]);
    expect(rewindSeqsOf(order, row(3, 3))).toEqual([5, 4, 3]);
    expect(rewindSeqsOf(order, row(1, 4))).toEqual([5, 4, 3, 1]);
  });

  it('is filtered from the order after a redo moved an action to its front', () => {
    const order = [2, 5, 4, 3, 1]; // 2 was redone last: it is undone first
    expect(rewindSeqsOf(order, row(3, 3))).toEqual([5, 4, 3]);
    expect(rewindSeqsOf(order, row(2, 4))).toEqual([2, 5, 4, 3]);
    expect(rewindSeqsOf(order, row(1, 5))).toEqual(order);
  });

  it('is empty where no rewind starts (the action is not applied)', () => {
    expect(rewindSeqsOf([3, 1], row(2, 0))).toEqual([]);
  });
});
