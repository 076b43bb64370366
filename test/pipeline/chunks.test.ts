import { describe, expect, test } from 'vitest';
import { expandStep, expandStepChunks, generateTasks, PipelineError, releaseStepInputs, runIdFor, type Axis, type EnumeratedValue, type PlannedTask, type QueryFn } from '../../src/pipeline/index.js';
import { load, useMemoryDuckDB } from './helpers.js';

// A run plans a step a chunk at a time and builds its tasks on demand, so a night of 100,000 tasks never holds
// them all. These tests fail if expansion went back to building the whole step (or its matrix) up front.

const RUN = runIdFor('demo', '2024-05-01');

const db = useMemoryDuckDB();
const query = db.query;

const sites = (n: number, bad?: number) => Array.from({ length: n }, (_, i) => (i === bad ? 'not a domain!' : `site-${i}.example.com`)).join('\n') + '\n';
const yaml = (forEach: string) => `name: demo
budget_usd: 1000
steps:
  - name: sites
    endpoint: keywords_for_site.task_post
    params: { language_code: en }
    for_each:
${forEach}
`;

async function collect(chunks: AsyncIterable<PlannedTask[]>): Promise<PlannedTask[][]> {
  const out: PlannedTask[][] = [];
  for await (const c of chunks) out.push(c);
  return out;
}

describe('planning a step in chunks', () => {
  test('chunks hold at most chunkSize tasks, and together are the step, in order', async () => {
    const { pipeline } = load(yaml('      target: { file: targets.txt }\n      location_code: [2840, 2826]'), { 'targets.txt': sites(1100) });
    const p = pipeline();
    const whole = await expandStep(p, 0, { runId: RUN });
    expect(whole).toHaveLength(2200);
    const chunks = await collect(expandStepChunks(p, 0, { runId: RUN }, 500));
    expect(chunks.map((c) => c.length)).toEqual([500, 500, 500, 500, 200]);
    expect(chunks.flat().map((t) => t.key)).toEqual(whole.map((t) => t.key));
    expect(chunks.flat().map((t) => t.params)).toEqual(whole.map((t) => t.params));
  });

  test('a planned step lets go of its inputs (file and list values), and planning it again reads them again', async () => {
    const { pipeline } = load(yaml('      target: { file: targets.txt }\n      location_code: [2840, 2826]'), { 'targets.txt': sites(30) });
    const p = pipeline();
    const before = (await collect(expandStepChunks(p, 0, { runId: RUN }, 25))).flat();
    expect(p.steps[0].axes.map((a) => (a.kind === 'values' ? a.values?.length : a.rows?.length))).toEqual([30, 2]);
    releaseStepInputs(p.steps[0]);
    expect(p.steps[0].axes.map((a) => (a.kind === 'values' ? a.values : a.rows))).toEqual([undefined, undefined]);
    const again = (await collect(expandStepChunks(p, 0, { runId: RUN }, 25))).flat();
    expect(again).toHaveLength(60);
    expect(again.map((t) => [t.key, t.params])).toEqual(before.map((t) => [t.key, t.params]));
  });

  test('a released file-rows step is read again too', async () => {
    const rowsYaml = `name: demo
budget_usd: 1000
steps:
  - name: sites
    endpoint: keywords_for_site.task_post
    params: { language_code: en }
    rows: { file: targets.csv }
`;
    const { pipeline } = load(rowsYaml, { 'targets.csv': 'target,location_code\na.example.com,2840\nb.example.com,2826\n' });
    const p = pipeline();
    const before = (await collect(expandStepChunks(p, 0, { runId: RUN }))).flat();
    expect(before).toHaveLength(2);
    releaseStepInputs(p.steps[0]);
    const again = (await collect(expandStepChunks(p, 0, { runId: RUN }))).flat();
    expect(again.map((t) => [t.key, t.params])).toEqual(before.map((t) => [t.key, t.params]));
  });

  test('a broken rule anywhere in the step throws before the first chunk, so nothing of it is planned', async () => {
    // A SQL step is checked at run time (a file step is checked whole at load, before a run even starts).
    await db.run(`CREATE TABLE candidates AS SELECT CASE WHEN i = 1499 THEN 'not a domain!' ELSE 'site-' || i || '.example.com' END AS target FROM range(1500) t(i)`);
    const p = load(yaml('      target: { sql: "SELECT target FROM candidates" }\n      location_code: [2840]')).pipeline();
    const chunks = expandStepChunks(p, 0, { runId: RUN, query }, 100);
    const first = await chunks.next().catch((e) => e);
    expect(first).toBeInstanceOf(PipelineError);
    expect((first as PipelineError).issues.map((i) => i.rule)).toEqual(['must be a domain name (got "not a domain!") (row 1500 of the query)']);
  });

  test('equal tasks are dropped within a chunk; the ledger key drops those across chunks', async () => {
    const { pipeline } = load(yaml('      target: { file: targets.txt }\n      location_code: [2840]'), { 'targets.txt': 'a.example.com\nb.example.com\na.example.com\nc.example.com\nb.example.com\n' });
    const chunks = await collect(expandStepChunks(pipeline(), 0, { runId: RUN }, 3));
    expect(chunks.map((c) => c.map((t) => t.params.target))).toEqual([['a.example.com', 'b.example.com', 'c.example.com'], ['b.example.com']]);
  });

  test('tasks are built on demand: taking three reads three input values, not the step', async () => {
    const { pipeline } = load(yaml('      target: { file: targets.txt }\n      location_code: [2840, 2826]'), { 'targets.txt': sites(50_000) });
    const p = pipeline();
    const step = p.steps[0];
    const axis = step.axes.find((a) => a.kind === 'values' && a.param === 'target') as Extract<Axis, { kind: 'values' }>;
    const read = new Set<number>();
    // The target values, watched: which of them expansion looks at.
    const watched = new Proxy(axis.values!, {
      get(target, prop, receiver) {
        if (typeof prop === 'string' && /^\d+$/.test(prop)) read.add(Number(prop));
        return Reflect.get(target, prop, receiver);
      },
    });
    const values = new Map<Axis, EnumeratedValue[]>(step.axes.map((a) => [a, a === axis ? watched : (a as Extract<Axis, { kind: 'values' }>).values!]));
    const gen = generateTasks(p, step, { values, rows: new Map() }, { runId: RUN });
    const first = [gen.next().value, gen.next().value, gen.next().value, gen.next().value, gen.next().value, gen.next().value] as PlannedTask[];
    // First axis outermost: target 0 x both locations, then target 1, then target 2.
    expect(first.map((t) => `${t.params.target}/${t.params.location_code}`)).toEqual([
      'site-0.example.com/2840', 'site-0.example.com/2826', 'site-1.example.com/2840', 'site-1.example.com/2826', 'site-2.example.com/2840', 'site-2.example.com/2826',
    ]);
    expect([...read].sort((a, b) => a - b)).toEqual([0, 1, 2]);
  });
});
