/** Views over the AI Optimization tables (declared like the others in src/publish/views.ts). */
import type { ViewDef } from '../../publish/views.js';

export const AI_VIEWS: readonly ViewDef[] = [];
