import { describe, expect, it } from 'vitest';
import { JUDGING_DELAY_MS, JudgingQueue } from './judging-queue.ts';

const batchTime = () => new Promise((r) => setTimeout(r, JUDGING_DELAY_MS + 5));

describe('the judging queue judges in batches, in order, never dropping', () => {
  it('tasks wait for the batch, then run in the order they came', async () => {
    const q = new JudgingQueue();
    const ran: number[] = [];
    for (let i = 0; i < 5; i++) q.push(() => ran.push(i));
    expect(ran).toEqual([]);
    await batchTime();
    expect(ran).toEqual([0, 1, 2, 3, 4]);
  });

  it('at its bound (items or bytes) everything waiting is judged at once, where the push happened', () => {
    const q = new JudgingQueue(3, 1_000);
    const ran: number[] = [];
    q.push(() => ran.push(1));
    q.push(() => ran.push(2));
    expect(ran).toEqual([]);
    q.push(() => ran.push(3));
    expect(ran).toEqual([1, 2, 3]);
    q.push(() => ran.push(4), 1_000);
    expect(ran).toEqual([1, 2, 3, 4]);
  });

  it('flush judges what waits now (a status answer, the exit)', () => {
    const q = new JudgingQueue();
    const ran: number[] = [];
    q.push(() => ran.push(1));
    q.flush();
    expect(ran).toEqual([1]);
  });

  it('bad input: a task that throws is counted; the others still run', async () => {
    const q = new JudgingQueue();
    const ran: number[] = [];
    q.push(() => ran.push(1));
    q.push(() => {
      throw new Error('a bug');
    });
    q.push(() => ran.push(3));
    await batchTime();
    expect(ran).toEqual([1, 3]);
    expect(q.failures).toBe(1);
  });
});
