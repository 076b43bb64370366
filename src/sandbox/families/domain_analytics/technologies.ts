/** Technology profiles (domains by HTML terms): group -> category -> technology names. */
import type { Rng } from '../../data/prng.js';

export const TECHNOLOGY_GROUPS: Record<string, Record<string, readonly string[]>> = {
  servers: { web_servers: ['Nginx', 'Apache', 'LiteSpeed', 'IIS', 'Caddy'], cdn: ['Cloudflare', 'Fastly', 'Akamai', 'Amazon CloudFront'], operating_systems: ['Ubuntu', 'Debian', 'Windows Server'] },
  web_development: { javascript_frameworks: ['React', 'Vue.js', 'Angular', 'Svelte'], javascript_libraries: ['jQuery', 'Lodash', 'core-js', 'Moment.js'], programming_languages: ['PHP', 'Node.js', 'Python', 'Ruby', 'Java'], web_frameworks: ['Laravel', 'Django', 'Express', 'Ruby on Rails'] },
  analytics: { analytics: ['Matomo', 'Plausible', 'Hotjar', 'Mixpanel'], tag_managers: ['Tag Manager A', 'Tealium'] },
  media: { video_players: ['Video.js', 'JW Player', 'Vimeo'], photo_galleries: ['Lightbox', 'PhotoSwipe'] },
  content: { cms: ['WordPress', 'Drupal', 'Joomla', 'Ghost', 'Contentful'], blogs: ['WordPress', 'Medium'], documentation: ['Docusaurus', 'MkDocs'] },
  sales: { ecommerce: ['Shopify', 'WooCommerce', 'Magento', 'PrestaShop'], payment_processors: ['Stripe', 'PayPal', 'Adyen', 'Klarna'] },
  add_ons: { widgets: ['AddThis', 'ShareThis', 'Intercom'], live_chat: ['Zendesk Chat', 'LiveChat', 'Tawk.to'], cookie_compliance: ['Cookiebot', 'OneTrust'] },
  location: { maps: ['Leaflet', 'OpenStreetMap', 'Mapbox'] },
  other: { miscellaneous: ['HTTP/3', 'Open Graph', 'PWA', 'RSS'], fonts: ['Font Awesome', 'Adobe Fonts'] },
};

export const GROUP_NAMES = Object.keys(TECHNOLOGY_GROUPS);

/** A profile with 2 to all groups; `forceGroup` is always present, so a page of results covers every group. */
export function generateTechnologies(rng: Rng, forceGroup?: string): Record<string, Record<string, string[]>> {
  const groups = new Set(rng.sample(GROUP_NAMES, rng.int(2, GROUP_NAMES.length)));
  if (forceGroup) groups.add(forceGroup);
  const out: Record<string, Record<string, string[]>> = {};
  for (const g of GROUP_NAMES) {
    if (!groups.has(g)) continue;
    const cats = Object.keys(TECHNOLOGY_GROUPS[g]);
    const chosen = rng.sample(cats, rng.int(1, cats.length));
    out[g] = {};
    for (const c of chosen) out[g][c] = rng.sample(TECHNOLOGY_GROUPS[g][c], rng.int(1, 2));
  }
  return out;
}
