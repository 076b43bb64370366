/** Curated views for the questions readers ask; created in the published warehouse only. */
export function curatedViews(): string[] {
  return [];
}
