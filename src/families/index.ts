/** Every family of the registry, in the registry's (alphabetical) order. */
import * as registry from './registry.js';
import type { FamilyDef } from '../catalog/family.js';

export type { FamilyDef } from '../catalog/family.js';
export const FAMILIES: readonly FamilyDef[] = Object.values(registry);

/** The family an endpoint id or result kind belongs to, by its declared endpoints. */
export function familyOfEndpoint(endpointId: string): FamilyDef | undefined {
  return FAMILIES.find((f) => f.endpoints.some((e) => e.id === endpointId));
}
