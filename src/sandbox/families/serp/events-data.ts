/**
 * Events SERP results (designed in docs/api-designed.md; the reference leaves them out): `regular` and
 * `advanced` share the top level and list `event_item`s, advanced with images and ticket links; `html` gives
 * the raw pages. Deterministic from the task's parameters.
 */
import { Rng } from '../../data/prng.js';
import { EVENT_KINDS, VENUES, CITIES, TLDS, slug } from '../../data/words.js';
import { decodeKeyword, seDomainFor, ts } from '../../data/common.js';
import { DAY_MS } from '../../clock.js';

export interface EventsParams {
  keyword: string;
  location_code?: number | null;
  language_code?: string | null;
  depth?: number;
  date_range?: string;
  se_domain?: string;
  max_crawl_pages?: number;
}

const RANGE_DAYS: Record<string, [number, number]> = {
  today: [0, 0], tomorrow: [1, 1], week: [0, 6], weekend: [5, 6], next_week: [7, 13], month: [0, 29], next_month: [30, 59],
};

function checkUrl(seDomain: string, keyword: string, location: number | null | undefined): string {
  return `https://${seDomain}/search?q=${encodeURIComponent(keyword)}&ibp=htl;events&hl=en&gl=us${location ? `&uule_code=${location}` : ''}`;
}

function spellOf(rng: Rng, keyword: string): { keyword: string; type: string } | null {
  if (!rng.chance(0.08)) return null;
  return { keyword: keyword.replace(/(\w)(\w)$/, '$2$1'), type: rng.pick(['did_you_mean', 'showing_results_for', 'including_results_for']) };
}

/** How many events exist for the query: at most depth (fewer results than depth happen; they are refunded). */
function available(rng: Rng, depth: number): number {
  return Math.max(1, Math.min(depth, rng.int(Math.ceil(depth * 0.6), depth + 20)));
}

/** An event time as the live service writes it: ISO with the UTC offset, or local wall time without a zone. */
function eventTime(ms: number, zoned: boolean): string {
  const iso = new Date(ms).toISOString().slice(0, 19);
  return zoned ? `${iso}+00:00` : iso;
}

/** The search refinement chips the live service adds to advanced events results. */
function refinementChips(rng: Rng, seDomain: string, keyword: string): Record<string, unknown> {
  const chips = ['Today', 'Tomorrow', 'This week', 'This weekend', 'Next week', 'Online'];
  return {
    type: 'refinement_chips',
    xpath: '/html[1]/body[1]/div[6]/div[1]/div[1]',
    items: chips.slice(0, rng.int(2, chips.length)).map((title) => ({
      type: 'refinement_chips_element', title, url: `https://${seDomain}/search?q=${encodeURIComponent(keyword)}&ibp=htl;events&htichips=${encodeURIComponent(title.toLowerCase())}`, domain: seDomain, options: null,
    })),
  };
}

export function generateEventsSerp(p: EventsParams, engine: string, variant: 'regular' | 'advanced', seed: number, now: number): Record<string, unknown> {
  const rng = new Rng(seed);
  const keyword = decodeKeyword(p.keyword);
  const seDomain = seDomainFor(engine, p.se_domain);
  const depth = p.depth ?? 10;
  const count = available(rng, depth);
  const [from, to] = RANGE_DAYS[p.date_range ?? ''] ?? [0, 90];
  const dayStart = Math.floor(now / DAY_MS) * DAY_MS;
  const items = [];
  for (let i = 0; i < count; i++) {
    const r = rng.fork(i);
    const kind = r.pick(EVENT_KINDS);
    const city = r.pick(CITIES);
    const venue = r.pick(VENUES);
    const title = `${keyword.replace(/\b\w/g, (c) => c.toUpperCase())} ${kind} in ${city}`;
    const start = dayStart + r.int(from, to) * DAY_MS + r.int(9, 21) * 3_600_000;
    const end = r.chance(0.3) ? null : start + r.int(1, 6) * 3_600_000;
    const host = `${slug(venue)}-${slug(city)}.${r.pick(TLDS)}`;
    // The live service gives a UTC time when the event names a zone, else the local time without a zone.
    const zoned = r.chance(0.7);
    const item: Record<string, unknown> = {
      type: 'event_item',
      rank_group: i + 1,
      rank_absolute: i + 1,
      position: 'left',
      xpath: `/html[1]/body[1]/div[6]/div[1]/div[${i + 1}]/div[1]`,
      title,
      description: r.chance(0.15) ? null : `${kind} featuring ${keyword} at ${venue}, ${city}.`,
      url: r.chance(0.1) ? null : `https://${host}/events/${slug(title)}`,
      event_dates: {
        start_datetime: eventTime(start, zoned),
        end_datetime: end === null ? null : eventTime(end, zoned),
        displayed_dates: new Date(start).toUTCString().slice(0, 16),
      },
      location_info: {
        name: venue,
        address: `${r.int(1, 999)} Main St, ${city}`,
        url: r.chance(0.3) ? null : `https://${host}/`,
        cid: String(r.int(1e9, 9e9)) + String(r.int(1e8, 9e8)),
        feature_id: `0x${r.hex(16)}:0x${r.hex(16)}`,
      },
    };
    if (variant === 'advanced') {
      item.image_url = r.chance(0.2) ? null : `https://images.${host}/${r.hex(12)}.jpg`;
      const tickets = r.int(0, 3);
      item.information_and_tickets = tickets === 0 ? null : Array.from({ length: tickets }, (_, k) => {
        const d = `${r.pick(['tickets', 'events', 'go', 'live'])}${k}.${r.pick(TLDS)}`;
        return { type: 'information_and_tickets_element', title: `Tickets: ${title}`, description: r.chance(0.3) ? null : `Buy tickets from ${d}`, url: `https://${d}/t/${r.hex(8)}`, domain: d };
      });
    }
    items.push(item);
  }
  return {
    keyword,
    type: 'events',
    se_domain: seDomain,
    location_code: p.location_code ?? null,
    language_code: p.language_code ?? 'en',
    check_url: checkUrl(seDomain, keyword, p.location_code),
    datetime: ts(now),
    spell: spellOf(rng, keyword),
    ...(variant === 'advanced' ? { refinement_chips: refinementChips(rng.fork('chips'), seDomain, keyword) } : {}),
    item_types: ['event_item'],
    se_results_count: count + rng.int(0, 500),
    items_count: items.length,
    items,
  };
}

export function generateEventsHtml(p: EventsParams, engine: string, seed: number, now: number): Record<string, unknown> {
  const rng = new Rng(seed);
  const keyword = decodeKeyword(p.keyword);
  const seDomain = seDomainFor(engine, p.se_domain);
  const pages = Math.max(1, Math.min(p.max_crawl_pages ?? 100, Math.ceil((p.depth ?? 10) / 10)));
  const items = Array.from({ length: pages }, (_, i) => ({
    page: i + 1,
    date: ts(now),
    html: `<!doctype html><html><head><title>${keyword} - Events</title></head><body><div id="events" data-page="${i + 1}">${Array.from({ length: 10 }, (_, k) => `<div class="event">${keyword} ${rng.pick(EVENT_KINDS)} ${i * 10 + k + 1}</div>`).join('')}</div></body></html>`,
  }));
  return {
    keyword,
    type: 'events',
    se_domain: seDomain,
    location_code: p.location_code ?? null,
    language_code: p.language_code ?? 'en',
    datetime: ts(now),
    items_count: items.length,
    items,
  };
}
