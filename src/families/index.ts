/** Every family of the registry, in the registry's (alphabetical) order, and the process's catalog built from them. */
import * as registry from './registry.js';
import { Catalog } from '../catalog/catalog.js';
import type { FamilyDef } from '../catalog/family.js';

export type { FamilyDef } from '../catalog/family.js';
export const FAMILIES: readonly FamilyDef[] = Object.values(registry);
/** Built once per process; the stages read it, nothing writes it (src/catalog/catalog.ts). */
export const CATALOG: Catalog = new Catalog(FAMILIES);
