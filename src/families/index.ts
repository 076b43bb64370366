/** Every family of the registry, in the registry's (alphabetical) order. */
import * as registry from './registry.js';
import type { FamilyDef } from '../catalog/family.js';

export type { FamilyDef } from '../catalog/family.js';
export const FAMILIES: readonly FamilyDef[] = Object.values(registry);
