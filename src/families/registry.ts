/** The registry: one line per family of the API; its folder declares the rest (src/families/types.ts). */
export { default as ai_optimization } from './ai_optimization/index.js';
export { default as app_data } from './app_data/index.js';
export { default as appendix } from './appendix/index.js';
export { default as backlinks } from './backlinks/index.js';
export { default as business_data } from './business_data/index.js';
export { default as content_analysis } from './content_analysis/index.js';
export { default as content_generation } from './content_generation/index.js';
export { default as dataforseo_labs } from './dataforseo_labs/index.js';
export { default as domain_analytics } from './domain_analytics/index.js';
export { default as keywords_data } from './keywords_data/index.js';
export { default as merchant } from './merchant/index.js';
export { default as on_page } from './on_page/index.js';
export { default as serp } from './serp/index.js';
