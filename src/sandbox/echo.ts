/**
 * The `data` echo of a task: `api`, `function`, `se`, `se_type` of the endpoint, then the posted parameters,
 * plus what the service fills in (location and language codes from names, device and os defaults).
 */
import type { EndpointDef } from '../catalog/endpoint.js';
import type { Engines } from '../config/index.js';
import { locationByCode, locationByName, languageCodeOf, defaultLanguageFor, countryOfCoordinate } from './data/locations.js';

export function baseEcho(def: EndpointDef, engines: Engines): Record<string, unknown> {
  const out: Record<string, unknown> = { api: def.api, function: def.fn };
  if (def.engine) out.se = engines[def.engine];
  if (def.seType) out.se_type = def.seType;
  return out;
}

/** Echo of a task that was not accepted: whatever object was sent, under the endpoint's names. */
export function rejectedEcho(def: EndpointDef, engines: Engines, task: unknown): Record<string, unknown> {
  const base = baseEcho(def, engines);
  return task && typeof task === 'object' && !Array.isArray(task) ? { ...base, ...(task as Record<string, unknown>) } : base;
}

/** location_code and language_code of a task, resolved from names and coordinates as the service does. */
export function resolveLocale(task: Record<string, unknown>): { location_code: number | null; language_code: string | null } {
  let location = typeof task.location_code === 'number' ? locationByCode(task.location_code) : undefined;
  if (!location && typeof task.location_name === 'string') location = locationByName(task.location_name);
  if (!location && typeof task.location_coordinate === 'string') {
    const [lat, lng] = task.location_coordinate.split(',').map(Number);
    location = countryOfCoordinate(lat, lng);
  }
  const locationCode = typeof task.location_code === 'number' ? task.location_code : location?.location_code ?? null;
  let language: string | null = typeof task.language_code === 'string' ? task.language_code : null;
  if (!language && typeof task.language_name === 'string') language = languageCodeOf(task.language_name) ?? null;
  if (!language && locationCode !== null) language = defaultLanguageFor(location);
  return { location_code: locationCode, language_code: language };
}

/** The echo stored with an accepted task and returned by task_post and, with the getter's function, by task_get. */
export function acceptedEcho(def: EndpointDef, engines: Engines, task: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...baseEcho(def, engines), ...task };
  if (def.api === 'merchant' || def.api === 'serp') {
    const locale = resolveLocale(task);
    out.location_code ??= locale.location_code;
    out.language_code ??= locale.language_code;
    out.device ??= 'desktop';
    out.os ??= 'windows';
  }
  if (def.api === 'keywords_data') {
    const locale = resolveLocale(task);
    if (locale.location_code !== null) out.location_code ??= locale.location_code;
    if (locale.language_code !== null) out.language_code ??= locale.language_code;
  }
  return out;
}
