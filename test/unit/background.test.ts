import t from 'tap';
import { Background } from '../../src/lib/background.js';
import { createLogger } from '../../src/lib/log.js';
import { LogSink } from '../helpers/app.js';

t.test('a task starts after the current turn and drain waits for it', async (t) => {
  const background = new Background(createLogger('info', new LogSink()));
  const steps: string[] = [];
  let release = (): void => undefined;
  background.run('x.failed', 'x failed', async () => {
    steps.push('started');
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    steps.push('finished');
  });
  steps.push('answered');
  t.same(steps, ['answered'], 'nothing ran in the turn that started the task');
  t.equal(background.pending, 1);
  const drained = background.drain().then(() => steps.push('drained'));
  await new Promise((resolve) => setImmediate(resolve));
  t.same(steps, ['answered', 'started']);
  release();
  await drained;
  t.same(steps, ['answered', 'started', 'finished', 'drained']);
  t.equal(background.pending, 0);
});

t.test('drain also waits for tasks that tasks start, and a failure is logged, not thrown', async (t) => {
  const logs = new LogSink();
  const background = new Background(createLogger('info', logs));
  const done: string[] = [];
  background.run('outer.failed', 'outer failed', async () => {
    background.run(
      'inner.failed',
      'inner failed',
      async () => {
        await new Promise((resolve) => setImmediate(resolve));
        done.push('inner');
        throw new Error('gateway down');
      },
      { user_id: 'u-1' },
    );
    done.push('outer');
  });
  await background.drain();
  t.same(done, ['outer', 'inner']);
  const [failure] = logs.events('inner.failed');
  t.equal(failure?.msg, 'inner failed');
  t.equal(failure?.level, 40);
  t.match(failure?.err, { message: 'gateway down' });
  t.equal(failure?.user_id, 'u-1', 'with the context it was given');
});
