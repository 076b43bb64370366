/**
 * Reference data the sandbox serves and checks against: the events locations (E10) and language names.
 * Codes follow the ad platforms' geo-target numbering the live service uses (2840 United States, ...).
 * Russia and Belarus are left out, as the reference says they are unsupported across the service.
 */
export interface LocationItem {
  location_code: number;
  location_name: string;
  location_code_parent: number | null;
  country_iso_code: string;
  location_type: string;
}

const COUNTRIES: [number, string, string][] = [
  [2840, 'United States', 'US'], [2826, 'United Kingdom', 'GB'], [2124, 'Canada', 'CA'], [2036, 'Australia', 'AU'],
  [2276, 'Germany', 'DE'], [2250, 'France', 'FR'], [2724, 'Spain', 'ES'], [2380, 'Italy', 'IT'], [2528, 'Netherlands', 'NL'],
  [2056, 'Belgium', 'BE'], [2756, 'Switzerland', 'CH'], [2040, 'Austria', 'AT'], [2752, 'Sweden', 'SE'], [2578, 'Norway', 'NO'],
  [2208, 'Denmark', 'DK'], [2246, 'Finland', 'FI'], [2372, 'Ireland', 'IE'], [2616, 'Poland', 'PL'], [2203, 'Czechia', 'CZ'],
  [2620, 'Portugal', 'PT'], [2300, 'Greece', 'GR'], [2804, 'Ukraine', 'UA'], [2792, 'Turkey', 'TR'], [2376, 'Israel', 'IL'],
  [2784, 'United Arab Emirates', 'AE'], [2356, 'India', 'IN'], [2392, 'Japan', 'JP'], [2410, 'South Korea', 'KR'],
  [2702, 'Singapore', 'SG'], [2554, 'New Zealand', 'NZ'], [2710, 'South Africa', 'ZA'], [2076, 'Brazil', 'BR'],
  [2484, 'Mexico', 'MX'], [2032, 'Argentina', 'AR'], [2152, 'Chile', 'CL'],
];

const STATES: [number, string, number][] = [
  [21137, 'California', 2840], [21167, 'New York', 2840], [21176, 'Texas', 2840], [21142, 'Florida', 2840],
  [21164, 'Illinois', 2840], [21171, 'Pennsylvania', 2840], [21180, 'Washington', 2840], [21136, 'Arizona', 2840],
  [21138, 'Colorado', 2840], [21143, 'Georgia', 2840], [21153, 'Massachusetts', 2840], [21175, 'Tennessee', 2840],
  [20339, 'England', 2826], [20341, 'Scotland', 2826], [20342, 'Wales', 2826],
  [20121, 'Ontario', 2124], [20117, 'British Columbia', 2124], [20123, 'Quebec', 2124],
  [20034, 'New South Wales', 2036], [20035, 'Victoria', 2036], [20036, 'Queensland', 2036],
  [20228, 'Bavaria', 2276], [20229, 'Berlin', 2276], [20234, 'North Rhine-Westphalia', 2276],
];

export const EVENTS_LOCATIONS: readonly LocationItem[] = [
  ...COUNTRIES.map(([code, name, iso]) => ({ location_code: code, location_name: name, location_code_parent: null, country_iso_code: iso, location_type: 'Country' })),
  ...STATES.map(([code, name, parent]) => {
    const country = COUNTRIES.find((c) => c[0] === parent)!;
    return { location_code: code, location_name: `${name},${country[1]}`, location_code_parent: parent, country_iso_code: country[2], location_type: 'State' };
  }),
];

const BY_CODE = new Map(EVENTS_LOCATIONS.map((l) => [l.location_code, l]));
const BY_NAME = new Map(EVENTS_LOCATIONS.map((l) => [l.location_name.toLowerCase(), l]));

export function locationByCode(code: number): LocationItem | undefined {
  return BY_CODE.get(code);
}
export function locationByName(name: string): LocationItem | undefined {
  return BY_NAME.get(name.trim().toLowerCase());
}

export const LANGUAGES: readonly [code: string, name: string][] = [
  ['en', 'English'], ['de', 'German'], ['fr', 'French'], ['es', 'Spanish'], ['it', 'Italian'], ['nl', 'Dutch'], ['pt', 'Portuguese'],
  ['sv', 'Swedish'], ['no', 'Norwegian'], ['da', 'Danish'], ['fi', 'Finnish'], ['pl', 'Polish'], ['cs', 'Czech'], ['el', 'Greek'],
  ['uk', 'Ukrainian'], ['tr', 'Turkish'], ['he', 'Hebrew'], ['ar', 'Arabic'], ['hi', 'Hindi'], ['ja', 'Japanese'], ['ko', 'Korean'],
  ['zh-CN', 'Chinese (Simplified)'], ['zh-TW', 'Chinese (Traditional)'],
];

const LANG_BY_NAME = new Map(LANGUAGES.map(([c, n]) => [n.toLowerCase(), c]));
const LANG_BY_CODE = new Map(LANGUAGES.map(([c, n]) => [c.toLowerCase(), n]));

export function languageCodeOf(name: string): string | undefined {
  return LANG_BY_NAME.get(name.trim().toLowerCase());
}
export function languageNameOf(code: string): string | undefined {
  return LANG_BY_CODE.get(code.trim().toLowerCase());
}

const DEFAULT_LANGUAGE: Record<string, string> = {
  US: 'en', GB: 'en', CA: 'en', AU: 'en', IE: 'en', NZ: 'en', ZA: 'en', SG: 'en', IN: 'en', DE: 'de', AT: 'de', CH: 'de',
  FR: 'fr', BE: 'fr', ES: 'es', MX: 'es', AR: 'es', CL: 'es', IT: 'it', NL: 'nl', PT: 'pt', BR: 'pt', SE: 'sv', NO: 'no',
  DK: 'da', FI: 'fi', PL: 'pl', CZ: 'cs', GR: 'el', UA: 'uk', TR: 'tr', IL: 'he', AE: 'ar', JP: 'ja', KR: 'ko',
};

/** The language the service picks when a task names none: an official language of the location. */
export function defaultLanguageFor(location: LocationItem | undefined): string {
  return (location && DEFAULT_LANGUAGE[location.country_iso_code]) ?? 'en';
}

/** The country a coordinate falls in, roughly: the sandbox only needs a stable, plausible answer. */
export function countryOfCoordinate(lat: number, lng: number): LocationItem {
  if (lat > 24 && lat < 50 && lng > -125 && lng < -66) return BY_CODE.get(2840)!;
  if (lat > 49 && lat < 61 && lng > -11 && lng < 2) return BY_CODE.get(2826)!;
  if (lat > 47 && lat < 55 && lng > 5 && lng < 15) return BY_CODE.get(2276)!;
  if (lat > 42 && lat < 51 && lng > -5 && lng < 8) return BY_CODE.get(2250)!;
  if (lat > 41 && lat < 84 && lng > -141 && lng < -52) return BY_CODE.get(2124)!;
  if (lat < -10 && lat > -44 && lng > 113 && lng < 154) return BY_CODE.get(2036)!;
  return BY_CODE.get(2840)!;
}
