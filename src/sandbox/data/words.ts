/** Vocabulary for realistic dummy data. Plain lists; the generators pick from them with a seeded Rng. */
export const NOUNS = [
  'shoes', 'running shoes', 'laptop', 'coffee maker', 'headphones', 'backpack', 'garden hose', 'desk lamp', 'yoga mat',
  'blender', 'sofa', 'mattress', 'camera', 'bicycle', 'tent', 'watch', 'jacket', 'sunglasses', 'smartphone', 'tablet',
  'printer', 'monitor', 'keyboard', 'mouse', 'router', 'speaker', 'vacuum cleaner', 'air fryer', 'kettle', 'toaster',
  'dog food', 'cat litter', 'plant pot', 'paint', 'drill', 'ladder', 'rug', 'curtains', 'pillow', 'towel',
  'hotel', 'flight', 'insurance', 'mortgage', 'car rental', 'dentist', 'plumber', 'lawyer', 'gym', 'pizza',
] as const;
export const MODIFIERS = [
  'best', 'cheap', 'buy', 'online', 'near me', 'reviews', 'price', 'sale', 'discount', 'for kids', 'for women', 'for men',
  'wireless', 'organic', 'used', 'new', 'professional', 'small', 'large', 'how to choose', 'vs', 'deals', 'free shipping',
  '2026', 'top rated', 'waterproof', 'portable', 'electric', 'luxury', 'eco friendly',
] as const;
export const ADJECTIVES = ['Premium', 'Classic', 'Ultra', 'Pro', 'Eco', 'Smart', 'Compact', 'Deluxe', 'Essential', 'Urban', 'Nordic', 'Vintage'] as const;
export const BRANDS = ['Acme', 'Northwind', 'Contoso', 'Globex', 'Initech', 'Umbrella', 'Stark', 'Wayne', 'Tyrell', 'Cyberdyne', 'Hooli', 'Vandelay'] as const;
export const SELLERS = ['Acme Store', 'Northwind Traders', 'MegaMart', 'ShopRite Online', 'BestDeals', 'Gadget Hub', 'HomePlus', 'Outdoor World', 'PriceKing', 'Corner Shop'] as const;
export const TLDS = ['com', 'net', 'org', 'io', 'co.uk', 'de', 'fr', 'shop', 'store', 'info'] as const;
export const CITIES = ['Springfield', 'Riverside', 'Fairview', 'Madison', 'Georgetown', 'Franklin', 'Clinton', 'Salem', 'Greenville', 'Bristol'] as const;
export const EVENT_KINDS = ['Concert', 'Festival', 'Workshop', 'Conference', 'Meetup', 'Exhibition', 'Comedy Night', 'Marathon', 'Food Fair', 'Theatre'] as const;
export const VENUES = ['City Hall', 'Grand Arena', 'Riverside Park', 'Convention Center', 'Old Theatre', 'Jazz Club', 'Stadium', 'Public Library'] as const;
export const CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD'] as const;
export const LOREM = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua ut enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat'.split(' ');

export function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'item';
}

export function titleCase(text: string): string {
  return text.replace(/\b[a-z]/g, (c) => c.toUpperCase());
}
