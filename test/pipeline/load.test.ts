import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { formatIssue } from '../../src/config/yaml.js';
import { loadPipeline, PipelineError } from '../../src/pipeline/index.js';
import { issuesOf, lineOf, load, testConfig } from './helpers.js';

/** A pipeline with one step; `step` is the step's body, indented under `- `. */
const pipeline = (step: string) => `name: demo
budget_usd: 1
steps:
  - name: s
${step}`;

const events = (params: string, extra = '') => pipeline(`    endpoint: serp.events.task_post
    params:
${params}${extra}`);

describe('YAML and schema errors carry file:line:column, the key and the rule', () => {
  test('a YAML syntax error', () => {
    const yaml = pipeline('    endpoint: [serp.events.task_post\n    params: {}\n');
    const { issues, file } = issuesOf(yaml);
    expect(issues.length).toBeGreaterThanOrEqual(1);
    expect(issues[0].file).toBe(path.relative(process.cwd(), file).startsWith('..') ? file : path.relative(process.cwd(), file));
    expect(issues[0].line).toBeGreaterThanOrEqual(5);
    expect(issues[0].rule).toMatch(/^YAML syntax/);
  });

  test('an unknown key, with a hint', () => {
    const yaml = events('      keyword: k\n      location_code: 2840\n', '    paramz: {}\n');
    const { issues } = issuesOf(yaml);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ ...lineOf(yaml, 'paramz'), key: 'steps[0].paramz' });
    expect(issues[0].rule).toContain('unknown key (did you mean params?)');
  });

  test('a wrong type, in the schema and in a parameter', () => {
    const yaml = `name: demo\nbudget_usd: lots\nsteps:\n  - name: s\n    endpoint: serp.events.task_post\n    params:\n      keyword: k\n      location_code: 2840\n      depth: ten\n`;
    const { issues } = issuesOf(yaml);
    expect(issues).toEqual([
      expect.objectContaining({ ...lineOf(yaml, 'lots'), key: 'budget_usd', rule: 'must be a number (got "lots")' }),
      expect.objectContaining({ ...lineOf(yaml, 'ten'), key: 'steps[0].params.depth', rule: 'must be an integer (got "ten")' }),
    ]);
  });

  test('a value out of the reference range: depth 701', () => {
    const yaml = events('      keyword: k\n      location_code: 2840\n      depth: 701\n');
    const { issues } = issuesOf(yaml);
    expect(issues).toEqual([expect.objectContaining({ ...lineOf(yaml, '701'), key: 'steps[0].params.depth', rule: 'must be at most 700 (got 701)' })]);
  });

  test('a missing required parameter points at the step params', () => {
    const yaml = pipeline('    endpoint: content_generation.paraphrase.live\n    params:\n      creativity_index: 0.5\n');
    const { issues } = issuesOf(yaml);
    expect(issues).toEqual([expect.objectContaining({ ...lineOf(yaml, 'params:'), key: 'steps[0].params.text' })]);
    expect(issues[0].rule).toContain('is required');
  });

  test('no location parameter at all', () => {
    const yaml = events('      keyword: k\n');
    const { issues } = issuesOf(yaml);
    expect(issues).toEqual([expect.objectContaining({ ...lineOf(yaml, 'params:'), key: 'steps[0].params', rule: 'one of location_code, location_name, location_coordinate is required' })]);
  });

  test('an unknown endpoint, with a hint', () => {
    const yaml = pipeline('    endpoint: serp.event.task_post\n');
    const { issues } = issuesOf(yaml);
    expect(issues).toEqual([expect.objectContaining({ ...lineOf(yaml, 'serp.event.task_post'), key: 'steps[0].endpoint' })]);
    expect(issues[0].rule).toContain('unknown endpoint "serp.event.task_post" (did you mean serp.events.task_post?)');
  });

  test('a collection endpoint is not a step', () => {
    const yaml = pipeline('    endpoint: merchant.google.products.tasks_ready\n');
    const { issues } = issuesOf(yaml);
    expect(issues[0].rule).toContain('name merchant.google.products.task_post and choose collect');
  });

  test('a tag of 256 characters', () => {
    const yaml = events(`      keyword: k\n      location_code: 2840\n      tag: ${'t'.repeat(256)}\n`);
    const { issues } = issuesOf(yaml);
    expect(issues).toEqual([expect.objectContaining({ ...lineOf(yaml, 'tttt'), key: 'steps[0].params.tag', rule: 'must be at most 255 characters (got a string of 256 characters)' })]);
  });

  test('the 3rd keyword of a file is 701 characters: the for_each line and the file line are both named', () => {
    const yaml = events('      location_code: 2840\n', '    for_each:\n      keyword: { file: inputs/keywords.txt }\n');
    const { issues, dir } = issuesOf(yaml, { 'inputs/keywords.txt': `# events to watch\nconcerts\n\njazz\n${'k'.repeat(701)}\nopera\n` });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ ...lineOf(yaml, 'keyword:'), key: 'steps[0].for_each.keyword' });
    const shown = path.relative(process.cwd(), path.join(dir, 'inputs/keywords.txt'));
    const expectedFile = shown.startsWith('..') ? path.join(dir, 'inputs/keywords.txt') : shown;
    expect(issues[0].rule).toBe(`must be at most 700 characters (got a string of 701 characters) (value at ${expectedFile}:5:1)`);
  });

  test('an inline enumerated value is pointed at directly', () => {
    const yaml = events('      location_code: 2840\n', `    for_each:\n      keyword:\n        - fine\n        - ${'k'.repeat(701)}\n`);
    const { issues } = issuesOf(yaml);
    expect(issues).toEqual([expect.objectContaining({ ...lineOf(yaml, 'kkkk'), key: 'steps[0].for_each.keyword' })]);
  });

  test('a bad CSV value names the CSV line and column', () => {
    const yaml = events('      keyword: k\n', '    for_each:\n      location_code: { file: locations.csv, column: code }\n');
    const { issues } = issuesOf(yaml, { 'locations.csv': 'name,code\nUS,2840\n"UK, London",abc\n' });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ ...lineOf(yaml, 'location_code:'), key: 'steps[0].for_each.location_code' });
    expect(issues[0].rule).toMatch(/^must be an integer \(got "abc"\) \(value at .*locations\.csv:3:14\)$/);
  });

  test('more than 8 filters', () => {
    const cond = '["resource_type", "=", "image"]';
    const filters = Array.from({ length: 9 }, () => cond).join(', "and", ');
    const yaml = pipeline(`    endpoint: on_page.resources\n    params:\n      id: 00000000-0000-4000-8000-000000000001\n      filters: [${filters}]\n`);
    const { issues } = issuesOf(yaml);
    expect(issues).toEqual([expect.objectContaining({ ...lineOf(yaml, 'filters:'), key: 'steps[0].params.filters', rule: expect.stringContaining('may hold at most 8 conditions (has 9)') })]);
  });

  test('limit plus offset over 10000', () => {
    const yaml = pipeline('    endpoint: domain_analytics.technologies.domains_by_html_terms.live\n    params:\n      search_terms: ["<script"]\n      limit: 5000\n      offset: 5001\n');
    const { issues } = issuesOf(yaml);
    expect(issues).toEqual([expect.objectContaining({ ...lineOf(yaml, '5000'), key: 'steps[0].params.limit', rule: 'limit plus offset must not exceed 10000 (got 10001)' })]);
  });

  test('limit plus offset over 10000 when offset is enumerated', () => {
    const yaml = pipeline('    endpoint: domain_analytics.technologies.domains_by_html_terms.live\n    params:\n      search_terms: ["<script"]\n      limit: 5000\n    for_each:\n      offset: [0, 5001]\n');
    const { issues } = issuesOf(yaml);
    expect(issues).toEqual([expect.objectContaining({ ...lineOf(yaml, '5001'), key: 'steps[0].for_each.offset', rule: 'limit plus offset must not exceed 10000 (got 10001)' })]);
  });

  test('a coordinate radius out of range', () => {
    const yaml = events('      keyword: k\n      location_coordinate: "52.52,13.40,199.8"\n');
    const { issues } = issuesOf(yaml);
    expect(issues).toEqual([expect.objectContaining({ ...lineOf(yaml, '"52.52'), key: 'steps[0].params.location_coordinate', rule: expect.stringContaining('radius must be from 199.9 to 199999') })]);
  });

  test('an unknown parameter, in params and in for_each', () => {
    const yaml = events('      keyword: k\n      location_code: 2840\n      langauge_code: en\n', '    for_each:\n      dept: [10]\n');
    const { issues } = issuesOf(yaml);
    expect(issues.map((i) => [i.line, i.key])).toEqual([
      [lineOf(yaml, 'langauge_code').line, 'steps[0].params.langauge_code'],
      [lineOf(yaml, 'dept').line, 'steps[0].for_each.dept'],
    ]);
    expect(issues[0].rule).toContain('did you mean language_code?');
    expect(issues[1].rule).toContain('did you mean depth?');
  });

  test('callback URLs are the run\'s business; collect modes are checked', () => {
    const yaml = events('      keyword: k\n      location_code: 2840\n      pingback_url: http://example.com/x\n', '    collect: pingbacks\n');
    const { issues } = issuesOf(yaml);
    expect(issues.map((i) => i.key)).toEqual(['steps[0].params.pingback_url', 'steps[0].collect']);
    expect(issues[1].rule).toContain('did you mean pingback?');
  });

  test('a missing input file is reported at its for_each entry', () => {
    const yaml = events('      location_code: 2840\n', '    for_each:\n      keyword: { file: nowhere.txt }\n');
    const { issues } = issuesOf(yaml);
    expect(issues).toEqual([expect.objectContaining({ ...lineOf(yaml, 'keyword:'), key: 'steps[0].for_each.keyword' })]);
    expect(issues[0].rule).toContain('no such file');
  });

  test('every issue at once, sorted by line, in a PipelineError that exits 2', () => {
    const yaml = `name: Demo Pipeline
budget_usd: -1
steps:
  - name: a
    endpoint: serp.events.task_post
    params: { keyword: k, location_code: 2840, depth: 701 }
  - name: a
    endpoint: keywords_for_keywords.task_post
    collect: live
    for_each:
      keywords: { values: [x, y], chunk: 201 }
`;
    const { issues, error } = issuesOf(yaml);
    expect(error.name).toBe('PipelineError');
    expect(error.exitCode).toBe(2);
    expect(issues.map((i) => i.key)).toEqual(['name', 'budget_usd', 'steps[0].params.depth', 'steps[1].name', 'steps[1].collect', 'steps[1].for_each.keywords.chunk']);
    for (const i of issues) expect(error.message).toContain(formatIssue(i));
    expect(error.message.split('\n')).toHaveLength(issues.length + 1);
    expect(formatIssue(issues[2])).toMatch(/pipeline\.yaml:6:\d+: steps\[0\]\.params\.depth: must be at most 700 \(got 701\)$/);
  });

  test('a valid pipeline loads with its steps', () => {
    const { pipeline: p } = load(events('      keyword: k\n      location_code: 2840\n'));
    const loaded = p();
    expect(loaded.name).toBe('demo');
    expect(loaded.steps[0]).toMatchObject({ name: 's', endpointId: 'serp.events.task_post', collect: 'tasks_ready', deferred: false });
  });

  test('an empty or missing pipeline file', () => {
    const { issues } = issuesOf('');
    expect(issues).toEqual([expect.objectContaining({ line: 1, column: 1, rule: expect.stringContaining('must be a mapping with name, budget_usd and steps') })]);
    const missing = path.join(path.dirname(load('').file), 'nope.yaml');
    try {
      loadPipeline(missing, testConfig());
      expect.unreachable();
    } catch (err) {
      expect((err as PipelineError).issues).toEqual([expect.objectContaining({ rule: 'no such pipeline file' })]);
    }
  });
});
