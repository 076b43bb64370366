/**
 * Google organic answers written as the live service documents them (docs.dataforseo.com v3
 * serp/google/organic/task_get/advanced and regular; the official client's OrganicSerpElementItem and friends):
 * features of the common types (the AI Overview with a cited source), and one type the models do not know (`ai_cheat_sheet`).
 */
const ID_ADV = '11231200-1535-0066-0000-5a6b1c3d4e5f';
const ID_REG = '11231200-1535-0066-0000-6a7b8c9d0e1f';
const data = (fn: string) => ({ api: 'serp', function: fn, se: 'google', se_type: 'organic', language_code: 'en', location_code: 2840, keyword: 'running shoes', device: 'mobile', os: 'android', depth: 20 });
const head = { keyword: 'running shoes', type: 'organic', se_domain: 'google.com', location_code: 2840, language_code: 'en', check_url: 'https://www.google.com/search?q=running%20shoes&num=100&hl=en&gl=US&gws_rd=cr&uule=w+CAIQIFISCQs2MuSEtepUEUK33kOSuTsc', datetime: '2026-11-20 08:15:02 +00:00', spell: null, refinement_chips: { type: 'refinement_chips', xpath: '/html[1]/body[1]/div[3]', items: [{ type: 'refinement_chips_element', title: 'Women', url: 'https://www.google.com/search?q=running+shoes+women', domain: 'www.google.com', options: null }] } };
const rating = { rating_type: 'Max5', value: 4.6, votes_count: 1289, rating_max: 5 };
const xp = (n: number) => `/html[1]/body[1]/div[3]/div[4]/div[${n}]`;

export const ADVANCED_ITEMS: Record<string, unknown>[] = [
  { type: 'paid', rank_group: 1, rank_absolute: 1, page: 1, position: 'left', xpath: xp(1), domain: 'www.shoeshop.com', title: 'Running Shoes Sale', description: 'Free delivery over $50.', url: 'https://www.shoeshop.com/running', breadcrumb: 'https://www.shoeshop.com › running', website_name: 'ShoeShop', is_image: false, is_video: false, highlighted: ['Running Shoes'], extra: { ad_aclk: 'DAEOM' }, description_rows: ['Top brands', 'Easy returns'], links: [{ type: 'ad_link_element', title: 'Women', description: null, url: 'https://www.shoeshop.com/women', domain: 'www.shoeshop.com' }], price: null, rating: null, rectangle: null },
  { type: 'featured_snippet', rank_group: 1, rank_absolute: 2, page: 1, position: 'left', xpath: xp(2), domain: 'www.runnersworld.com', title: 'How to choose running shoes', description: 'Pick by gait, fit and cushioning.', url: 'https://www.runnersworld.com/gear/choose', breadcrumb: 'https://www.runnersworld.com › gear', featured_title: 'Choosing running shoes', timestamp: '2026-10-01 00:00:00 +00:00', images: null, table: { table_header: ['Type', 'For'], table_content: [['Neutral', 'Most runners']] }, rectangle: null },
  { type: 'organic', rank_group: 1, rank_absolute: 3, page: 1, position: 'left', xpath: xp(3), domain: 'www.runnersworld.com', title: 'Best Running Shoes 2026', description: 'We tested 40 pairs.', url: 'https://www.runnersworld.com/gear/best', breadcrumb: 'https://www.runnersworld.com › gear', website_name: "Runner's World", is_image: false, is_video: false, is_featured_snippet: true, is_malicious: false, is_web_story: false, amp_version: false, cache_url: null, related_search_url: null, pre_snippet: null, extended_snippet: null, timestamp: '2026-11-02 10:00:00 +00:00', rating, price: { current: 129.99, regular: null, max_value: null, currency: 'USD', is_price_range: false, displayed_price: '$129.99' }, highlighted: ['running shoes'], links: [{ type: 'link_element', title: 'Trail', description: 'Trail picks', url: 'https://www.runnersworld.com/gear/trail', domain: 'www.runnersworld.com' }], faq: null, extended_people_also_search: null, about_this_result: { type: 'about_this_result_element', url: 'https://www.runnersworld.com/gear/best', source: 'runnersworld.com', source_info: 'A magazine', source_url: null, language: 'English', location: 'United States', search_terms: ['running'], related_terms: ['shoes'] }, related_result: null, images: null, checks: null, rectangle: null },
  { type: 'people_also_ask', rank_group: 1, rank_absolute: 4, page: 1, position: 'left', xpath: xp(4), items: [
    { type: 'people_also_ask_element', title: 'How often should I replace running shoes?', seed_question: null, xpath: `${xp(4)}/div[1]`, expanded_element: [
      { type: 'people_also_ask_expanded_element', featured_title: 'Every 300-500 miles', url: 'https://www.rei.com/learn/shoes', domain: 'www.rei.com', title: 'When to replace', description: 'Most shoes last 300 to 500 miles.', timestamp: null, images: null, table: null },
    ] },
    { type: 'people_also_ask_element', title: 'Are expensive running shoes worth it?', seed_question: null, xpath: `${xp(4)}/div[2]`, expanded_element: [
      { type: 'people_also_ask_ai_overview_expanded_element', items: [{ type: 'ai_overview_element', title: null, text: 'Not always.', markdown: 'Not always.', links: null, images: null, references: null }] },
    ] },
  ], rectangle: null },
  { type: 'local_pack', rank_group: 1, rank_absolute: 5, page: 1, position: 'left', xpath: xp(5), title: 'Fleet Feet', description: 'Running store · Open', domain: 'www.fleetfeet.com', phone: '+1 555-0101', booking_url: null, url: 'https://www.fleetfeet.com/', is_paid: false, rating, cid: '10537891234567890123', rectangle: null },
  { type: 'knowledge_graph', rank_group: 1, rank_absolute: 6, page: 1, position: 'right', xpath: '/html[1]/body[1]/div[4]', title: 'Running shoe', subtitle: 'Footwear', description: 'Shoes designed for running.', card_id: '/m/02_4l', url: null, image_url: 'https://example.org/shoe.jpg', logo_url: null, cid: null, items: [
    { type: 'knowledge_graph_description_item', rank_group: 1, rank_absolute: 1, position: 'right', xpath: '/html[1]/body[1]/div[4]/div[1]', text: 'Running shoes are shoes designed for running.', links: null },
    { type: 'knowledge_graph_row_item', rank_group: 1, rank_absolute: 2, position: 'right', xpath: '/html[1]/body[1]/div[4]/div[2]', title: 'Invented', text: '1830s', data_attrid: 'kc:/x:invented', links: null },
  ], rectangle: null },
  { type: 'top_stories', rank_group: 1, rank_absolute: 7, page: 1, position: 'left', xpath: xp(6), title: 'Top stories', items: [
    { type: 'top_stories_element', source: 'The Verge', domain: 'www.theverge.com', title: 'Carbon plates everywhere', date: '2 hours ago', amp_version: false, timestamp: '2026-11-20 06:00:00 +00:00', url: 'https://www.theverge.com/shoes', image_url: null, badges: null },
  ], rectangle: null },
  { type: 'images', rank_group: 1, rank_absolute: 8, page: 1, position: 'left', xpath: xp(7), title: 'Images', url: 'https://www.google.com/search?tbm=isch&q=running+shoes', items: [
    { type: 'images_element', alt: 'blue running shoe', url: 'https://www.nike.com/shoe', image_url: 'https://static.nike.com/shoe.jpg' },
  ], related_image_searches: null, rectangle: null },
  { type: 'video', rank_group: 1, rank_absolute: 9, page: 1, position: 'left', xpath: xp(8), items: [
    { type: 'video_element', source: 'YouTube', preview: null, title: 'Running shoe review', timestamp: '2026-09-01 00:00:00 +00:00', url: 'https://www.youtube.com/watch?v=abc' },
  ], rectangle: null },
  { type: 'organic', rank_group: 2, rank_absolute: 10, page: 1, position: 'left', xpath: xp(9), domain: 'www.nike.com', title: 'Running Shoes. Nike.com', description: 'Find running shoes.', url: 'https://www.nike.com/w/running-shoes', breadcrumb: 'https://www.nike.com › running', website_name: 'Nike', is_image: false, is_video: false, is_featured_snippet: false, is_malicious: false, is_web_story: false, amp_version: false, cache_url: null, related_search_url: null, pre_snippet: null, extended_snippet: null, timestamp: null, rating: null, price: null, highlighted: null, links: null, faq: null, extended_people_also_search: null, about_this_result: null, related_result: null, images: null, checks: null, rectangle: null },
  { type: 'shopping', rank_group: 1, rank_absolute: 11, page: 1, position: 'right', xpath: xp(10), title: 'Shop running shoes', items: [
    { type: 'shopping_element', title: 'Pegasus 41', price: { current: 139.99, regular: null, max_value: null, currency: 'USD', is_price_range: false, displayed_price: '$139.99' }, source: 'Nike', description: null, marketplace: null, marketplace_url: null, url: 'https://www.nike.com/p/pegasus', rating },
  ], rectangle: null },
  { type: 'ai_overview', rank_group: 1, rank_absolute: 12, page: 1, position: 'left', xpath: xp(11), asynchronous_ai_overview: false, markdown: 'Running shoes differ by...', items: [{ type: 'ai_overview_element', text: 'Running shoes differ by...' }], references: [{ type: 'ai_overview_reference', source: "Runner's World", domain: 'www.runnersworld.com', url: 'https://www.runnersworld.com/gear/best', title: 'Best Running Shoes 2026', text: 'We tested 40 pairs.' }], rectangle: null },
  { type: 'ai_cheat_sheet', rank_group: 1, rank_absolute: 13, page: 1, position: 'left', xpath: xp(12), title: 'Cheat sheet', cards: [{ q: 'Neutral or stability?', a: 'Depends on gait.' }] },
  { type: 'related_searches', rank_group: 1, rank_absolute: 13, page: 2, position: 'left', xpath: xp(12), items: ['running shoes women', 'best running shoes'], rectangle: null },
];

function envelope(id: string, path: string[], fn: string, result: Record<string, unknown>) {
  return {
    version: '0.1.20251120', status_code: 20000, status_message: 'Ok.', time: '0.1043 sec.', cost: 0, tasks_count: 1, tasks_error: 0,
    tasks: [{ id, status_code: 20000, status_message: 'Ok.', time: '0.0672 sec.', cost: 0, result_count: 1, path: [...path, id], data: data(fn), result: [result] }],
  };
}

export const ADVANCED_ENVELOPE = envelope(ID_ADV, ['v3', 'serp', 'google', 'organic', 'task_get', 'advanced'], 'task_get', {
  ...head, item_types: [...new Set(ADVANCED_ITEMS.map((i) => i.type))], se_results_count: 1180000000, pages_count: 2, items_count: ADVANCED_ITEMS.length, items: ADVANCED_ITEMS,
});

export const REGULAR_ITEMS = [
  { type: 'paid', rank_group: 1, rank_absolute: 1, page: 1, position: 'left', xpath: xp(1), domain: 'www.shoeshop.com', title: 'Running Shoes Sale', description: 'Free delivery over $50.', url: 'https://www.shoeshop.com/running', breadcrumb: 'https://www.shoeshop.com › running', is_image: false, is_video: false },
  { type: 'organic', rank_group: 1, rank_absolute: 2, page: 1, position: 'left', xpath: xp(3), domain: 'www.runnersworld.com', title: 'Best Running Shoes 2026', description: 'We tested 40 pairs.', url: 'https://www.runnersworld.com/gear/best', breadcrumb: 'https://www.runnersworld.com › gear', is_image: false, is_video: false, is_featured_snippet: true, is_malicious: false, is_web_story: false, amp_version: false },
  { type: 'organic', rank_group: 2, rank_absolute: 3, page: 1, position: 'left', xpath: xp(9), domain: 'www.nike.com', title: 'Running Shoes. Nike.com', description: 'Find running shoes.', url: 'https://www.nike.com/w/running-shoes', breadcrumb: 'https://www.nike.com › running', is_image: false, is_video: false, is_featured_snippet: false, is_malicious: false, is_web_story: false, amp_version: false },
];

export const REGULAR_ENVELOPE = envelope(ID_REG, ['v3', 'serp', 'google', 'organic', 'task_get', 'regular'], 'task_get', {
  ...head, item_types: ['paid', 'organic'], se_results_count: 1180000000, pages_count: 1, items_count: REGULAR_ITEMS.length, items: REGULAR_ITEMS,
});
