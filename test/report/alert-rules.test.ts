/**
 * The alert rules as pure functions: each fires on exactly the movements and run outcomes docs/report.md says, and
 * an alert's key is the same however often the same movement is evaluated.
 */
import { describe, expect, test } from 'vitest';
import { aiAlerts, domainAlerts, runAlerts, type AiVisibilityRow, type MovementRow } from '../../src/report/alerts/evaluate.js';
import type { AlertRule } from '../../src/pipeline/index.js';
import type { RunFacts } from '../../src/report/data.js';

const rules: AlertRule[] = [
  { kind: 'position_drop', positions: 3, id: 'position_drop>3' },
  { kind: 'leaves_top', top: 10, id: 'leaves_top:10' },
  { kind: 'enters_top', top: 3, id: 'enters_top:3' },
  { kind: 'run_failed', id: 'run_failed' },
  { kind: 'budget_stopped', id: 'budget_stopped' },
  { kind: 'cost_above', usd: 0.5, id: 'cost_above:0.5' },
  { kind: 'ai_citation_gained', id: 'ai_citation_gained' },
  { kind: 'ai_citation_lost', id: 'ai_citation_lost' },
];
const move = (previous: number | null, position: number | null, movement: string): MovementRow => ({
  keyword: 'boots', se: 'google', se_type: 'organic', location_code: 2840, language_code: 'en', device: 'mobile', date: '2026-11-22', domain: 'shop.example',
  previous_position: previous, position, movement,
});
const run = (o: Partial<RunFacts>): RunFacts => ({ runId: 'p-2026-11-22', pipeline: 'p', runDate: '2026-11-22', status: 'completed', attempts: 1, durationSeconds: 1, tasks: 10, loaded: 10, failed: 0, unfinished: 0, spentUsd: 0.1, budgetUsd: 1, budgetUsedPct: 10, note: null, ...o });

describe('domain rules', () => {
  const texts = (m: MovementRow) => domainAlerts(rules, [m], 'p-2026-11-22').map((a) => a.text);
  test('a fall of more than N positions, and leaving the results, fire position_drop; a fall of N does not', () => {
    expect(texts(move(4, 7, 'down'))).toEqual([]);
    expect(texts(move(4, 8, 'down'))).toEqual(['shop.example fell 4 positions for "boots" (2840, en, mobile): 4 -> 8']);
    expect(texts(move(18, null, 'lost'))).toEqual(['shop.example left the collected results for "boots" (2840, en, mobile): was 18']);
  });
  test('leaving and entering the top K look at both sides of K', () => {
    expect(texts(move(10, 11, 'down'))).toEqual(['shop.example left the top 10 for "boots" (2840, en, mobile): 10 -> 11']);
    expect(texts(move(9, 10, 'down'))).toEqual([]);
    expect(texts(move(4, 3, 'up'))).toEqual(['shop.example entered the top 3 for "boots" (2840, en, mobile): 4 -> 3']);
    expect(texts(move(null, 2, 'new'))).toEqual(['shop.example entered the top 3 for "boots" (2840, en, mobile): not in the results -> 2']);
    expect(texts(move(3, 1, 'up'))).toEqual([]);
  });
  test('one movement can fire several rules; the first day of a series fires none', () => {
    expect(domainAlerts(rules, [move(9, 14, 'down')], 'r').map((a) => a.rule)).toEqual(['leaves_top:10', 'position_drop>3']);
    expect(texts(move(null, 1, 'first'))).toEqual([]);
  });
  test('the key names the rule, the series and the day, not when it was evaluated', () => {
    const [a] = domainAlerts(rules, [move(4, 8, 'down')], 'run-a');
    const [b] = domainAlerts(rules, [move(4, 8, 'down')], 'run-a');
    expect(a.key).toBe(b.key);
    expect(a.key).toBe('position_drop>3|shop.example|boots|google|organic|2840|en|mobile|2026-11-22');
    expect(domainAlerts(rules, [{ ...move(4, 8, 'down'), date: '2026-11-23' }], 'run-a')[0].key).not.toBe(a.key);
  });
});

describe('run rules', () => {
  const texts = (r: RunFacts) => runAlerts(rules, r).map((a) => a.text);
  test('a completed run within its cost raises nothing', () => expect(texts(run({}))).toEqual([]));
  test('failed tasks or an aborted run fire run_failed', () => {
    expect(texts(run({ failed: 2, loaded: 8 }))).toEqual(['run p-2026-11-22 finished with failures: 2 of 10 tasks failed']);
    expect(texts(run({ status: 'aborted', loaded: 7, unfinished: 3 }))).toEqual(['run p-2026-11-22 did not finish (aborted): 0 of 10 tasks failed, 3 unfinished']);
  });
  test('a budget stop fires budget_stopped; a cost above X fires cost_above, X itself does not', () => {
    expect(texts(run({ status: 'stopped_budget', spentUsd: 0.998 }))).toEqual(['run p-2026-11-22 stopped posting at its budget of $1.00 ($0.9980 spent)', 'run p-2026-11-22 cost $0.9980, above $0.5000']);
    expect(texts(run({ spentUsd: 0.5 }))).toEqual([]);
    expect(runAlerts(rules, run({ spentUsd: 0.51 }))[0].key).toBe('cost_above:0.5|p-2026-11-22');
  });
});

describe('AI Overview citation rules', () => {
  const row = (change: string, o: Partial<AiVisibilityRow> = {}): AiVisibilityRow => ({
    target: 'client', tracked_domain: 'client.com', keyword: 'boots', se: 'google', se_type: 'organic', location_code: 2840, language_code: 'en', device: 'mobile',
    date: '2026-11-22', ai_overview_shown: true, citation_position: change === 'gained' ? 2 : null, citation_change: change, ...o,
  });
  const texts = (r: AiVisibilityRow) => aiAlerts(rules, [r], 'p-2026-11-22').map((a) => a.text);
  test('a citation gained or lost since the previous collected day fires; kept, not cited and the first day do not', () => {
    expect(texts(row('gained'))).toEqual(['client.com is cited in the AI Overview for "boots" (2840, en, mobile) (reference 2); target client']);
    expect(texts(row('lost'))).toEqual(['client.com lost its AI Overview citation for "boots" (2840, en, mobile); target client']);
    expect(texts(row('lost', { ai_overview_shown: false }))).toEqual(['client.com lost its AI Overview citation for "boots" (2840, en, mobile) (no AI Overview showed); target client']);
    for (const c of ['kept', 'not_cited', 'first']) expect(texts(row(c)), c).toEqual([]);
  });
  test('the key names the rule, the target, the domain, the series and the day', () => {
    expect(aiAlerts(rules, [row('lost')], 'r')[0].key).toBe('ai_citation_lost|client|client.com|boots|google|organic|2840|en|mobile|2026-11-22');
  });
});
