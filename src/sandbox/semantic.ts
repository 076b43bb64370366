/**
 * Rules that need the service's reference data, which the catalog's field rules cannot hold: events locations
 * must be ones E10 lists, and the events search is English only. Shaped like validateTask's issues.
 */
import type { EndpointDef } from '../catalog/endpoint.js';
import type { ValidationIssue } from '../api/validate.js';
import { locationByCode, locationByName, languageCodeOf } from './data/locations.js';

function issue(field: string, rule: string, value: unknown): ValidationIssue {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return { field, rule, value, code: 40501, message: `Invalid Field: '${field}' ${rule} (got ${shown}).` };
}

export function referenceDataIssues(def: EndpointDef, task: Record<string, unknown>, locationsPath: string): ValidationIssue[] {
  if (def.id !== 'serp.events.task_post') return [];
  const out: ValidationIssue[] = [];
  if (typeof task.location_code === 'number' && !locationByCode(task.location_code)) {
    out.push(issue('location_code', `must be a location_code listed by GET ${locationsPath}`, task.location_code));
  }
  if (typeof task.location_name === 'string' && !locationByName(task.location_name)) {
    out.push(issue('location_name', `must be a location_name listed by GET ${locationsPath}`, task.location_name));
  }
  if (typeof task.language_code === 'string' && task.language_code.toLowerCase() !== 'en') {
    out.push(issue('language_code', 'must be "en": the events search works for English only', task.language_code));
  }
  if (typeof task.language_name === 'string' && languageCodeOf(task.language_name) !== 'en') {
    out.push(issue('language_name', 'must be "English": the events search works for English only', task.language_name));
  }
  return out;
}
