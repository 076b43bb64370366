/** Pipeline `targets:`: tracked domains by client or project, steps tied to one; mistakes named with file:line first. */
import { describe, expect, it } from 'vitest';
import { issuesOf, lineOf, load } from '../pipeline/helpers.js';

const step = (extra: string) => `steps:
  - name: ranks
    endpoint: serp.google.organic.task_post
${extra}    params: { keyword: running shoes, location_code: 2840, language_code: en }
`;

describe('targets', () => {
  it('a step tied to a declared target keeps its name; the pipeline its domains', () => {
    const p = load(`name: agency\nbudget_usd: 1\ntargets:\n  - name: client-a\n    domains: [client.com, blog.other.co.uk]\n${step('    target: client-a\n')}`).pipeline();
    expect(p.targets).toEqual([{ name: 'client-a', domains: ['client.com', 'blog.other.co.uk'] }]);
    expect(p.steps[0].target).toBe('client-a');
  });

  it('an undeclared target, a bad domain, a duplicate name and a target on a non-SERP step are refused at their lines', () => {
    const yaml = `name: agency
budget_usd: 1
targets:
  - name: client-a
    domains: [https://client.com/]
  - name: client-a
    domains: [client.com]
${step('    target: client-b\n')}  - name: volumes
    endpoint: keywords_for_keywords.task_post
    target: client-a
    params: { keywords: [shoes], location_code: 2840 }
`;
    const { issues } = issuesOf(yaml);
    const by = (key: string) => issues.find((i) => i.key === key);
    expect(by('targets[0].domains[0]')).toMatchObject({ ...lineOf(yaml, 'https://client.com/'), rule: expect.stringMatching(/lower-case domain .* without https:\/\//) });
    expect(by('targets[1].name')?.rule).toBe('duplicate target name "client-a"');
    expect(by('steps[0].target')).toMatchObject({ ...lineOf(yaml, 'client-b'), rule: expect.stringMatching(/^no target "client-b" under targets:.*declared: client-a/) });
    expect(by('steps[1].target')?.rule).toMatch(/only for SERP steps/);
  });
});
