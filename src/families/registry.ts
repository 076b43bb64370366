/**
 * The registry: one line per family of the API. A family with declarations of its own has a folder that declares
 * them (what a family declares: src/catalog/family.ts); one declared wholly from its generated file is that file
 * and a description.
 */
import { generatedFamily } from './generated.js';

export { default as ai_optimization } from './ai_optimization/index.js';
export const app_data = generatedFamily((await import('./generated/app_data.json', { with: { type: 'json' } })).default, { prefix: 'app', description: 'App stores: app searches, app listings, app info and reviews (Google Play, App Store).' });
export { default as appendix } from './appendix/index.js';
export { default as backlinks } from './backlinks/index.js';
export const business_data = generatedFamily((await import('./generated/business_data.json', { with: { type: 'json' } })).default, { prefix: 'business', description: 'Business listings and reviews: Google My Business, Google reviews, Trustpilot, Tripadvisor, hotel info.' });
export const content_analysis = generatedFamily((await import('./generated/content_analysis.json', { with: { type: 'json' } })).default, { prefix: 'content_analysis', description: 'Content analysis: citations of a keyword or a brand on the web, their sentiment and phrase trends.' });
export { default as content_generation } from './content_generation/index.js';
export { default as dataforseo_labs } from './dataforseo_labs/index.js';
export { default as domain_analytics } from './domain_analytics/index.js';
export { default as keywords_data } from './keywords_data/index.js';
export { default as merchant } from './merchant/index.js';
export { default as on_page } from './on_page/index.js';
export { default as serp } from './serp/index.js';
