/**
 * The committed declarations (src/families/generated/) are what the installed official client's models give:
 * the generator's check passes on them and fails, naming the file, on a copy where one fact was changed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const SCRIPT = path.join(ROOT, 'scripts', 'generate-declarations.mjs');
const GENERATED = path.join(ROOT, 'src', 'families', 'generated');
const tmp = mkdtempSync(path.join(tmpdir(), 'seo-etl-decl-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('generated declarations', () => {
  it('match the installed client, the SERP catalog\'s models included', () => {
    const out = execFileSync('node', [SCRIPT, '--check'], { encoding: 'utf8' });
    expect(out).toMatch(/src\/families\/generated and src\/families\/serp\/models\.generated\.ts match the installed client \(564 operations\)/);
  });

  it('fail the check when the SERP catalog\'s models differ from the client', () => {
    const serp = path.join(tmp, 'serp-models.generated.ts');
    const text = readFileSync(path.join(ROOT, 'src', 'families', 'serp', 'models.generated.ts'), 'utf8');
    expect(text).toContain('"SerpGoogleOrganicTaskPostRequestInfo"');
    writeFileSync(serp, text.replace('"SerpGoogleOrganicTaskPostRequestInfo"', '"SerpGoogleOrganicTaskPostRequestInfoX"'));
    const r = spawnSync('node', [SCRIPT, '--check', '--serp-out', serp], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('serp-models.generated.ts');
    expect(r.stderr).not.toContain('.json');
  });

  it('fail the check when a committed fact differs from the models', () => {
    cpSync(GENERATED, tmp, { recursive: true });
    const file = path.join(tmp, 'dataforseo_labs.json');
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    const op = doc.operations.find((o: { id: string }) => o.id === 'dataforseo_labs.google.ranked_keywords.live');
    expect(op.fields.limit).toEqual({ type: 'number', max: 1000, default: 100 });
    op.fields.limit.max = 10_000;
    writeFileSync(file, `${JSON.stringify(doc, null, 1)}\n`);
    const r = spawnSync('node', [SCRIPT, '--check', '--out', tmp], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('dataforseo_labs.json');
    expect(r.stderr).not.toContain('backlinks.json');
  });

  it('declare every kind of operation with its request rules and result model', () => {
    const labs = JSON.parse(readFileSync(path.join(GENERATED, 'dataforseo_labs.json'), 'utf8'));
    const ranked = labs.operations.find((o: { id: string }) => o.id === 'dataforseo_labs.google.ranked_keywords.live');
    expect(ranked).toMatchObject({ method: 'POST', path: '/v3/dataforseo_labs/google/ranked_keywords/live', kind: 'live', result: 'DataforseoLabsGoogleRankedKeywordsLiveResultInfo[]' });
    expect(ranked.fields.target).toEqual({ type: 'string', required: true });
    const serp = JSON.parse(readFileSync(path.join(GENERATED, 'serp.json'), 'utf8'));
    const kinds = new Set(serp.operations.map((o: { kind: string }) => o.kind));
    expect([...kinds].sort()).toEqual(['list', 'live', 'task_get', 'task_post', 'tasks_fixed', 'tasks_ready']);
    const post = serp.operations.find((o: { id: string }) => o.id === 'serp.google.organic.task_post');
    expect(post.cross).toContainEqual({ rule: 'one_of_required', fields: ['language_code', 'language_name'] });
    expect(post.cross).toContainEqual({ rule: 'required_with', field: 'postback_data', when: 'postback_url' });
    const models = JSON.parse(readFileSync(path.join(GENERATED, 'models.json'), 'utf8')).models;
    expect(models.BaseDataforseoLabsApiElementItem.variants.organic).toBe('DataLabsOrganicSerpElementItem');
    expect(models.DataforseoLabsGoogleRankedKeywordsLiveResultInfo.fields.metrics).toBe('map<DataforseoLabsMetricsInfo>');
  });
});
